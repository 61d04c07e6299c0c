// studio jobs: the job queue (GET /studio/jobs): queued and running jobs, then the last ended ones.
import { answered } from "../client.ts";
import type { Command } from "../command.ts";
import { withClient } from "../command.ts";
import { jobsAnswer } from "../jobs-answer.ts";
import { bar, result } from "../output.ts";

export const jobs: Command = {
  name: "jobs",
  summary: "list the job queue: queued and running jobs, then the last ones that ended",
  spec: { positionals: [], flags: {} },
  async run(_args, ctx) {
    const raw = await withClient(ctx, { runJobs: false }, async (client) =>
      answered<unknown>(await client.call("GET", "/jobs")),
    );
    const listing = jobsAnswer.parse(raw);
    result(ctx.io, raw, () => {
      if (listing.jobs.length === 0) return ["no jobs"];
      return listing.jobs.map((j) => {
        const state = j.status === "running" ? `running ${bar(j.progress, 10)}` : j.status;
        return `${j.id}  ${j.lane.padEnd(8)}  ${state.padEnd(10)}  ${j.title}${j.error ? `: ${j.error}` : ""}`;
      });
    });
    return 0;
  },
};
