// The step job: the part of a multi-job request that runs once the jobs it follows have ended (lib/clips/steps.ts
// says what a clip step does). Its payload is its journal, so a restart picks it up where it stood.
import { clipStepPayload, runClipStep } from "../../lib/clips/steps.ts";
import { defineJobKind } from "../../lib/jobs/kinds.ts";

export const stepJob = defineJobKind({
  payload: clipStepPayload,
  async run(job, ctx) {
    const outcome = await runClipStep(ctx.services, job.payload, job, {
      store: ctx.store,
      wake: ctx.services.jobSignals.jobAdded,
      log: (line) => ctx.progress({ log: line }),
    });
    ctx.progress({ step: outcome.state === "waiting" ? `waiting on ${outcome.on}` : "done" });
  },
});
