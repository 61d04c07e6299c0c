// POST /studio/post: queue post-processes (an enhance step, then motion blur) of takes' upscales and answer at once
// with what was queued, skipped and refused per take.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { queuePosts } from "../../lib/post/queue.ts";
import { ep, passOr, shotId, takeOrDigits } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

const takeItem = z.object({
  shot: shotId,
  take: takeOrDigits,
});

export default defineFunction({
  method: "POST",
  path: "/post",
  summary:
    "Queue post-processes of takes' upscales (enhance: a tier, method or object; motion blur 0-1): " +
    "`{queued: [{shot, take, what, width, height, prompt_id}], skipped, errors}`. Without enhance and blur the " +
    "series post.master recipe is used (409 when there is none). 502 when ComfyUI does not answer, 409 when it " +
    "lacks a node or model file the posts need. On the built-in engine motion blur is frame blending, not optical flow",
  input: z.object({
    ep,
    pass: passOr("final"),
    shots: z
      .array(shotId)
      .nullish()
      .describe("The shots whose cut take to post; left out: the whole cut but the shots marked out"),
    takes: z.array(takeItem).nullish().describe("Exact takes [{shot, take}]; wins over shots"),
    redo: z.boolean().nullish().describe("Post again a take whose fresh post has these settings"),
    recipe: z
      .boolean()
      .nullish()
      .describe(
        "Use the series post.master recipe (each shot's overrides.json post entry over it); default: on when neither enhance nor blur is given",
      ),
    enhance: z
      .union([z.string(), z.record(z.string(), z.unknown()), z.null()])
      .optional()
      .describe(
        'The enhance step: draft, production, cinematic, pixel, seedvr2, supir, {tier|method, ...fields}, or "none"',
      ),
    blur: z
      .number()
      .nullish()
      .describe("Motion blur as a fraction of the frame interval, 0 to 1 (0.5: a 180° shutter)"),
    quality: z
      .enum(["review", "master"])
      .nullish()
      .describe("review or master; left out: the recipe's, else each upscale's own"),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    return queuePosts(ctx, ep, {
      pass: input.pass,
      shots: input.shots ?? null,
      takes: input.takes ?? null,
      redo: input.redo ?? false,
      recipe: input.recipe ?? null,
      ...(input.enhance !== undefined ? { enhance: input.enhance } : {}),
      ...(input.blur !== undefined ? { blur: input.blur } : {}),
      quality: input.quality ?? null,
    });
  },
});
