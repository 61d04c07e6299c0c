// studio render <ep>: queue takes of a pass's shots (POST /studio/render) and follow their jobs to the end; exit 1
// when a shot could not be queued or a job did not succeed.
import { textFlag, usageError } from "../args.ts";
import { answered } from "../client.ts";
import { type Command, EP, episodeArg, PASS_FLAG, withClient } from "../command.ts";
import { followJobs } from "../follow.ts";
import type { JobLine } from "../jobs-answer.ts";
import { result } from "../output.ts";

interface RenderAnswer {
  queued: { shot: string; take: number; prompt_id: string; target: string }[];
  skipped: { shot: string; reason: string }[];
  errors: { shot: string; error: string }[];
  warning?: string;
}

export const render: Command = {
  name: "render",
  summary: "render takes of a pass's shots and wait for them; exit 1 when one fails",
  spec: {
    ...EP,
    flags: {
      ...PASS_FLAG,
      shots: { value: true, help: "the shots, comma-separated (default every shot of the pass)" },
      target: { value: true, help: "render on this video target instead of each shot's own" },
      backend: { value: true, help: "render on this backend: local, cloud, deployment:<target>, router" },
      redo: { value: false, help: "also render shots that already have a usable take" },
    },
  },
  async run(args, ctx) {
    const ep = episodeArg(args, ctx);
    const shotsText = textFlag(args, "shots");
    const shots = shotsText?.split(",").map((s) => s.trim());
    if (shots?.some((s) => s === ""))
      throw usageError(`--shots: a comma-separated list of shot ids; got "${shotsText}"`);
    const body = {
      ep,
      pass: textFlag(args, "pass") ?? "proxy",
      shots,
      target: textFlag(args, "target"),
      backend: textFlag(args, "backend"),
      redo: args.flags.redo === true ? true : undefined,
    };
    const { answer, jobs } = await withClient(ctx, { runJobs: true }, async (client) => {
      const answer = answered<RenderAnswer>(await client.call("POST", "/render", body));
      if (answer.warning && !ctx.io.json) ctx.io.err(`warning: ${answer.warning}\n`);
      for (const s of answer.skipped) if (!ctx.io.json) ctx.io.err(`${s.shot}: skipped: ${s.reason}\n`);
      for (const e of answer.errors) if (!ctx.io.json) ctx.io.err(`${e.shot}: error: ${e.error}\n`);
      const labels = Object.fromEntries(answer.queued.map((q) => [q.prompt_id, `${q.shot} take ${q.take}`]));
      const ids = answer.queued.map((q) => q.prompt_id);
      const jobs: JobLine[] = ids.length ? await followJobs(client, ids, labels, ctx.io) : [];
      return { answer, jobs };
    });
    const failed = jobs.filter((j) => j.status !== "succeeded");
    result(ctx.io, { ...answer, jobs }, () => [
      ...answer.queued.map(
        (q, i) => `${q.shot} take ${q.take} (${q.target}): ${jobs[i]?.status ?? "queued"}`,
      ),
      `${answer.queued.length - failed.length} of ${answer.queued.length} takes made` +
        (answer.skipped.length ? `, ${answer.skipped.length} shots skipped` : "") +
        (answer.errors.length ? `, ${answer.errors.length} shots with errors` : ""),
    ]);
    return failed.length || answer.errors.length ? 1 : 0;
  },
};
