// Following jobs to their end through GET /studio/jobs: one progress bar per job redrawn in place on a terminal,
// a plain line per change of state otherwise, nothing with --json.
import { setTimeout as sleep } from "node:timers/promises";
import { CliError } from "./args.ts";
import { answered, type Client } from "./client.ts";
import { ENDED, type JobLine, jobsAnswer } from "./jobs-answer.ts";
import { bar, type Io } from "./output.ts";

const POLL_MS = 250;
/** Polls a job may be missing from the listing (it only keeps the last 200 ended) before it counts as lost. */
const MISSING_POLLS = 20;

/** The jobs as they ended, in the order of `ids`; labels name them for a person ("sh010 take 3"). */
export async function followJobs(
  client: Client,
  ids: readonly string[],
  labels: Record<string, string>,
  io: Io,
): Promise<JobLine[]> {
  const last = new Map<string, JobLine>();
  const said = new Map<string, string>();
  const missing = new Map<string, number>();
  let drawn = 0;
  const label = (id: string) => labels[id] ?? id;
  const width = Math.max(0, ...ids.map((id) => label(id).length));

  const draw = () => {
    if (io.json) return;
    if (io.tty) {
      const lines = ids.map((id) => {
        const j = last.get(id);
        const state = !j ? "waiting" : j.status === "running" && j.step ? `running ${j.step}` : j.status;
        const done = j?.status === "succeeded" ? 1 : (j?.progress ?? 0);
        return `${label(id).padEnd(width)}  ${bar(done)}  ${state}`.slice(0, 160);
      });
      io.err(`${drawn ? `\x1b[${drawn}A` : ""}${lines.map((l) => `\x1b[2K${l}\n`).join("")}`);
      drawn = lines.length;
      return;
    }
    for (const id of ids) {
      const j = last.get(id);
      if (!j) continue;
      const text = j.status === "failed" && j.error ? `failed: ${j.error}` : j.status;
      if (said.get(id) === text) continue;
      said.set(id, text);
      io.err(`${label(id)}: ${text}\n`);
    }
  };

  for (;;) {
    const listing = jobsAnswer.parse(answered(await client.call("GET", "/jobs"), "GET /studio/jobs"));
    const byId = new Map(listing.jobs.map((j) => [j.id, j]));
    for (const id of ids) {
      const j = byId.get(id);
      if (j) {
        last.set(id, j);
        missing.delete(id);
      } else if (!ENDED.includes(last.get(id)?.status ?? "")) {
        const n = (missing.get(id) ?? 0) + 1;
        missing.set(id, n);
        if (n > MISSING_POLLS) throw new CliError(1, `job ${id} is no longer in the queue`);
      }
    }
    draw();
    if (ids.every((id) => ENDED.includes(last.get(id)?.status ?? ""))) {
      return ids.map((id) => last.get(id) as JobLine);
    }
    await sleep(POLL_MS);
  }
}
