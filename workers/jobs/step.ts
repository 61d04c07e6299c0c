// The step job: the part of a multi-job request that runs once the jobs it follows have ended (lib/clips/steps.ts
// says what a clip step does, lib/refs/frame-step.ts a frame edit's). Its payload is its journal, so a restart
// picks it up where it stood.
import { z } from "zod";
import { clipStepPayload, runClipStep } from "../../lib/clips/steps.ts";
import { defineJobKind } from "../../lib/jobs/kinds.ts";
import { frameStepPayload, runFrameStep } from "../../lib/refs/frame-step.ts";

export const stepJob = defineJobKind({
  payload: z.discriminatedUnion("what", [clipStepPayload, frameStepPayload]),
  async run(job, ctx) {
    const deps = {
      store: ctx.store,
      wake: ctx.services.jobSignals.jobAdded,
      log: (line: string) => ctx.progress({ log: line }),
    };
    const p = job.payload;
    const outcome =
      p.what === "clip"
        ? await runClipStep(ctx.services, p, job, deps)
        : await runFrameStep(ctx.services, p, job, deps);
    ctx.progress({ step: outcome.state === "waiting" ? `waiting on ${outcome.on}` : "done" });
  },
});
