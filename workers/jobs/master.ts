// The master job: the episode's master made from its upscales (lib/master/run.ts), every step sent to the pages as
// `studio.master`. A master that could not be made fails the job with the reason the job object gives.
import { defineJobKind } from "../../lib/jobs/kinds.ts";
import { masterPayload, runMaster } from "../../lib/master/run.ts";

export const masterJob = defineJobKind({
  payload: masterPayload,
  async run(job, ctx) {
    const end = await runMaster(ctx.services, job.id, job.payload, {
      signal: ctx.signal,
      emit: (state) => {
        ctx.emit("studio.master", state);
        ctx.progress({ step: state.text || state.stage });
      },
    });
    ctx.progress({ log: end.state === "done" ? `${end.output}` : `not mastered: ${end.error}` });
    ctx.signal.throwIfAborted();
    if (end.state !== "done") throw new Error(end.error || "the master failed");
  },
});
