// GET /studio/router/models: the hosted models the router's provider offers, each with what it takes and costs.
import { routerModels } from "../../lib/router/connect.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/router/models",
  summary:
    "The hosted models of the router backend: `{models: [{id, label, provider, kind, fps, inputs {prompt, " +
    "negative, first_image, last_image, durations, resolutions, aspect_ratios}, draft {resolution, days} or null, " +
    "price_per_run, currency}]}`. 503 when no API key is set or the provider cannot be reached, 502 when it " +
    "answers with an error",
  async handler(_input, ctx) {
    return { models: await routerModels(ctx) };
  },
});
