// POST /studio/presets/own/render: queue a sample picture of an own image preset; answers the job at once.
import { jobView } from "../../../lib/jobs/view.ts";
import { presetTargets } from "../../../lib/presets/registry.ts";
import { queueSample, sampleBody } from "../../../lib/presets/sample.ts";
import { defineFunction } from "../../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/presets/own/render",
  summary:
    "Draw a sample picture of an own image preset on its target (the built-in card needs no GPU) with the preset's " +
    "model, LoRAs, steps and size, as a `preset` job; when it ends the picture becomes the preset's. Answers {job}. " +
    "400 a shipped or malformed id, a video preset (give it a picture instead), an edit or panorama target, a " +
    "backend that does not run the target; 404 no such preset; 409 its target is gone, the backend is not set up, " +
    "model files are missing (missing_files)",
  input: sampleBody,
  async handler(input, ctx) {
    const { registry, show } = await presetTargets(ctx, input.ep);
    const store = await ctx.jobs();
    const job = await queueSample(ctx, registry, show, input, store);
    ctx.jobSignals.jobAdded();
    return { job: jobView(job) };
  },
});
