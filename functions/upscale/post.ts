// POST /studio/upscale: queue upscales of takes (named takes, a cut's shots, or the whole final cut) as jobs.
import { z } from "zod";
import { badRequest } from "../../lib/errors.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, passOr, shotId, take } from "../../lib/schema/fields.ts";
import { queueUpscales } from "../../lib/upscale/queue.ts";
import { parseDeliver } from "../../lib/upscale/recipe.ts";
import { defineFunction } from "../fn.ts";

const scale = z.number().gt(1).max(4).describe("More than 1, at most 4");

export default defineFunction({
  method: "POST",
  path: "/upscale",
  summary:
    "Queue upscales (<stem>.up.mp4 + .up.json); 409 when the backend lacks a node, pack or model file, 502 when it does not answer",
  input: z.object({
    ep,
    pass: passOr("final"),
    shots: z
      .array(shotId)
      .nullish()
      .describe("Shots of the cut; null or absent: the whole cut (out entries left out)"),
    takes: z
      .array(z.object({ shot: shotId, take }))
      .nullish()
      .describe("Takes by number; wins over shots"),
    redo: z.boolean().default(false),
    recipe: z.boolean().default(false).describe("Use the series config's upscale.master"),
    method: z.enum(["latent", "pixel", "seedvr2"]).nullish(),
    scale: scale.or(z.literal("auto")).nullish(),
    start_step: z.int().min(0).nullish(),
    detail: z.union([z.literal(0), z.literal(1), z.literal(2)]).nullish(),
    vae: z.boolean().default(false),
    pixel_model: z.string().min(1).max(200).nullish(),
    then_pixel_model: z.string().min(1).max(200).nullish(),
    then_scale: scale.nullish(),
    then_method: z.enum(["pixel", "seedvr2"]).nullish(),
    seedvr2_model: z.string().min(1).max(200).nullish(),
    deliver: z.string().max(20).nullish().describe("1080p, 1440p, 4k or WxH (both even, 64 to 8192)"),
    fit: z.enum(["crop", "pad"]).default("crop"),
    from_upscale: z.boolean().default(false),
    encoder: z.enum(["auto", "nvenc", "x264"]).default("auto"),
    precision: z.enum(["fp16", "fp32"]).default("fp16"),
    quality: z.enum(["review", "master"]).default("review"),
    frequency_split: z.boolean().default(true),
    keep_soft: z.number().min(0).max(1).default(0),
    grain: z.number().min(0).max(0.2).default(0),
    backend: z.string().min(1).max(128).nullish(),
  }),
  async handler(input, ctx) {
    if (input.deliver) {
      const d = parseDeliver(input.deliver);
      if (typeof d === "string") throw badRequest(d);
    }
    const epReal = await resolveEpisode(input.ep, ctx);
    const { ep: _ep, pass, ...req } = input;
    const answer = await queueUpscales(ctx, epReal, pass, {
      ...req,
      then_method: req.then_method ?? (req.then_pixel_model ? "pixel" : null),
    });
    if (answer.queued.length) ctx.events.emit("studio.episode", { ep: epReal });
    return answer;
  },
});
