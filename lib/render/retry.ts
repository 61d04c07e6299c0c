// Retry of a render job: a new take number with the old take's settings — the same seed,
// target, size and overrides, and its frozen shot list — queued as a new job of the same lane.
import type { Services } from "../context.ts";
import { conflict, StudioError } from "../errors.ts";
import type { Job, NewJob } from "../jobs/types.ts";
import { episodeFence, readShowText, writeShowFile } from "../paths/guarded.ts";
import { withLock } from "../store/lock.ts";
import { retryAfter } from "./chain.ts";
import type { RenderPayload } from "./payload.ts";
import { frozenPath, jobTitle, reserveTake } from "./queue.ts";
import { readSidecarNow, type Sidecar, stemOf, type TakeRef, takeEvent } from "./sidecar.ts";
import { localIso } from "./time.ts";

/** Fields a run writes (or a later writer): not copied into the new take. */
const RUN_FIELDS = new Set([
  "take",
  "job",
  "status",
  "queued",
  "finished",
  "backend_prompt_id",
  "save_notes",
  "error",
  "save_ms",
  "frames",
  "mp4",
  "thumb",
  "strip",
  "inputs",
  "latent",
  "latent_pruned",
  "continuity",
  "continued_from",
  "unreadable",
]);

const two = (n: number) => String(n).padStart(2, "0");

/** The new take's sidecar: the old one's queue-time settings, `take:N` as the seed's source. */
export function retrySidecar(old: Sidecar, oldTake: number, take: number, queued: string): Sidecar {
  const out: Sidecar = {};
  for (const [k, v] of Object.entries(old)) {
    if (k === "take") out.take = take;
    else if (k === "job") out.job = null;
    else if (k === "status") out.status = "queued";
    else if (k === "queued") out.queued = queued;
    else if (k === "backend_prompt_id") out.backend_prompt_id = null;
    else if (k === "inputs") out.inputs = {};
    else if (!RUN_FIELDS.has(k)) out[k] = v;
  }
  out.take = take;
  out.status = "queued";
  out.queued = queued;
  out.seed_source = `take:${oldTake}`;
  const notes = Array.isArray(old.notes) ? old.notes.filter((n) => typeof n === "string") : [];
  out.notes = [...notes, `a retry of t${two(oldTake)} with its settings`];
  return out;
}

export async function retryRender(
  job: Job<RenderPayload>,
  services: Pick<Services, "events" | "now" | "caches" | "locks" | "jobs">,
): Promise<NewJob<RenderPayload>> {
  const p = job.payload;
  const old: TakeRef = { ep: p.ep, pass: p.pass, shot: p.shot, take: p.take };
  const label = `${p.shot} t${two(p.take)} (${p.pass})`;
  const sidecar = await readSidecarNow(old);
  if (!sidecar || sidecar.unreadable) {
    throw conflict(
      `${label} has no readable sidecar any more (discarded?): there are no settings to retry with`,
    );
  }
  let frozen: string;
  try {
    frozen = await readShowText(episodeFence(old.ep), frozenPath(old));
  } catch (err) {
    if (err instanceof StudioError) throw err;
    throw conflict(
      `${label} has no frozen shot list (${stemOf(old)}.shotlist.json): there is nothing to retry`,
    );
  }
  const take = await withLock(services, p.ep, async () => {
    const queued = localIso(services.now());
    const n = await reserveTake(p.ep, p.pass, p.shot, (k) => retrySidecar(sidecar, p.take, k, queued));
    await writeShowFile(episodeFence(old.ep), frozenPath({ ...old, take: n }), frozen);
    return n;
  });
  const t: TakeRef = { ...old, take };
  services.events.emit("studio.take", takeEvent(t, "queued", null));
  services.events.emit("studio.episode", { ep: p.ep });
  const payload: RenderPayload = { ...p, take, stem: stemOf(t) };
  return {
    kind: "render",
    lane: job.lane,
    title: jobTitle(t),
    info: { ...job.info, take },
    payload,
    // A latent chain's take waits again on the take it continues while that one still renders.
    after: await retryAfter(await services.jobs(), job),
  };
}
