// POST /studio/jobs/{cancel,move,retry,pause,parallel,paid-reset}: change the queue, answer with the GET /studio/jobs
// body.
import { z } from "zod";
import { badRequest, notFound, shown } from "../../lib/errors.ts";
import { retryJob } from "../../lib/jobs/kinds.ts";
import { isKnownLane, LANES_HINT } from "../../lib/jobs/lanes.ts";
import type { Job } from "../../lib/jobs/types.ts";
import { jobsAnswer, jobView } from "../../lib/jobs/view.ts";
import { closeCanceledRef } from "../../lib/refs/queue-ref.ts";
import { sweepQueuedTakes } from "../../lib/render/sweep.ts";
import { MAX_JOB_ID, MAX_LANE } from "../../lib/schema/fields.ts";
import { closeCanceledVersion } from "../../lib/upscale/version-record.ts";
import { defineFunction } from "../fn.ts";

const ACTIONS = "cancel, move, retry, pause, parallel or paid-reset";
/** More jobs of one lane at once than any machine room would run. */
const MAX_PARALLEL = 64;
const PARALLEL_RULE = `must be a whole number from 1 to ${MAX_PARALLEL}`;
const WHOLE = "must be a whole number, 0 or more";

const required = (otherwise: string) => (issue: { input: unknown }) =>
  issue.input === undefined ? "required" : otherwise;

const JOB_ID_RULE = `must be a job id (a string of at most ${MAX_JOB_ID} characters)`;
const id = z
  .string({ error: required(JOB_ID_RULE) })
  .min(1, JOB_ID_RULE)
  .max(MAX_JOB_ID, JOB_ID_RULE)
  .describe("The job's id, as GET /studio/jobs lists it");

// The action is the path's last segment; each is documented with what it does.
const action = <A extends string>(name: A, what: string) => z.literal(name).describe(what);

const laneName = z
  .string({ error: required("must be a lane name") })
  .min(1, "must be a lane name")
  .max(MAX_LANE, `must be a lane name of at most ${MAX_LANE} characters`)
  .describe("The lane: builtin, local, cloud, router or deployment:<target>");

const input = z.discriminatedUnion(
  "action",
  [
    z.strictObject({ action: action("cancel", "Cancel a queued or running job"), id }),
    z.strictObject({
      action: action("move", "Move a queued job to another place in its lane"),
      id,
      index: z
        .number({ error: required(WHOLE) })
        .int(WHOLE)
        .min(0, WHOLE)
        .describe("The job's new place among its lane's queued jobs, 0 first"),
    }),
    z.strictObject({ action: action("retry", "Run a failed or canceled job again"), id }),
    z.strictObject({
      action: action("pause", "Pause or resume a lane"),
      lane: laneName,
      paused: z
        .boolean({ error: required("must be true or false") })
        .describe("true pauses the lane, false resumes it"),
    }),
    z.strictObject({
      action: action(
        "parallel",
        "How many jobs of a lane run at once, over every worker (workers reaching the lane share it evenly)",
      ),
      lane: laneName,
      parallel: z
        .number({ error: required(PARALLEL_RULE) })
        .int(PARALLEL_RULE)
        .min(1, PARALLEL_RULE)
        .max(MAX_PARALLEL, PARALLEL_RULE)
        .describe("Jobs of the lane at once; 1 for one ComfyUI, the number of machines for one on each"),
    }),
    z.strictObject({ action: action("paid-reset", "Reset the counter of paid runs") }),
  ],
  // An unknown action is a 400 naming `action`, like any other bad field (the route itself exists).
  { error: (issue) => (issue.code === "invalid_union" ? `must be ${ACTIONS}` : undefined) },
);

export default defineFunction({
  method: "POST",
  path: "/jobs/:action",
  queue: true,
  summary:
    "Cancel, move or retry a job, pause or resume a lane, set how many jobs of a lane run at once (the extra action `parallel`), reset the paid-run counter",
  input,
  async handler(input, ctx) {
    const store = await ctx.jobs();
    const { jobAdded, cancelRequested } = ctx.jobSignals;
    /** The lane trimmed, or a 400 for a name that is neither a lane the pool runs nor one the store has seen. */
    const knownLane = async (name: string): Promise<string> => {
      const lane = name.trim();
      if (!isKnownLane(lane) && (await store.list()).lanes[lane] === undefined) {
        throw badRequest(`lane: unknown lane ${shown(lane)} (use ${LANES_HINT})`);
      }
      return lane;
    };
    let changed: Job | null = null;
    let lanesChanged = false;
    switch (input.action) {
      case "cancel":
        changed = await store.cancel(input.id);
        // A pool in this process stops the job now rather than at its next heartbeat.
        if (changed.status === "running") cancelRequested(changed.id);
        // A render that never ran has no handler to close its take: the sweep closes it now, not at the next listing.
        else if (changed.kind === "render" && typeof changed.info.ep === "string" && changed.info.pass) {
          await sweepQueuedTakes(ctx, changed.info.ep, changed.info.pass, { store });
        } else if (changed.kind === "ref") await closeCanceledRef(ctx, changed);
        else await closeCanceledVersion(ctx, changed);
        break;
      case "move":
        await store.move(input.id, input.index);
        changed = await store.get(input.id);
        lanesChanged = true;
        break;
      case "retry": {
        const job = await store.get(input.id);
        if (!job) throw notFound(`job ${input.id} not found`);
        changed = await retryJob(ctx, store, job);
        jobAdded();
        break;
      }
      case "pause": {
        const lane = await knownLane(input.lane);
        await store.pause(lane, input.paused);
        // A resumed lane may start jobs now rather than at the pool's next poll.
        if (!input.paused) jobAdded();
        lanesChanged = true;
        break;
      }
      case "parallel": {
        await store.setParallel(await knownLane(input.lane), input.parallel);
        // A wider lane may start jobs now rather than at the pool's next poll.
        jobAdded();
        lanesChanged = true;
        break;
      }
      case "paid-reset":
        await store.paidReset();
        // Jobs held back by the paid limit may start now.
        jobAdded();
        lanesChanged = true;
        break;
    }
    const answer = await jobsAnswer(store, ctx);
    if (changed) ctx.events.emit("studio.job", jobView(changed));
    if (lanesChanged) ctx.events.emit("studio.jobs", { lanes: answer.lanes, paid: answer.paid });
    return answer;
  },
});
