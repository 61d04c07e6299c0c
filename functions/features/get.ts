// GET /studio/features: what the shipped ComfyUI targets need installed, what is there, where installs go.
import { featuresAnswer } from "../../lib/features/listing.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/features",
  queue: true,
  summary:
    "The model files and node packs each shipped ComfyUI target needs, grouped by kind, with what is installed (on the engine's disk, or as the target's readiness says), where installs go (place.why_not when nowhere), whether a download token is set (never the token) and the install job's tasks",
  handler(_input, ctx) {
    return featuresAnswer(ctx);
  },
});
