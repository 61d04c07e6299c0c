// GET /studio/post/options: post-process tiers with their readiness, methods, ranges, and the episode's recipe.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { postOptions } from "../../lib/post/options.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/post/options",
  summary:
    "Post-process options: `{tiers: [{id, enhance, text, readiness}], methods, blur: {min, max, default, " +
    "readiness, builtin}, strength, recipe}`; readiness is the local ComfyUI's (`unknown` when it does not " +
    "answer). Extra: `blur.builtin` {lane, method} says what the built-in engine does instead (frame blending, " +
    "not optical flow). `recipe` (with ep): the series post.master and each shot's overrides.json entry in words",
  input: z.object({ ep: ep.optional() }),
  async handler(input, ctx) {
    const epReal = input.ep ? await resolveEpisode(input.ep, ctx) : null;
    return postOptions(ctx, epReal);
  },
});
