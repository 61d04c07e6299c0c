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
    redo: z.boolean().default(false).describe("Redo takes whose upscale is fresh (false skips them)"),
    recipe: z.boolean().default(false).describe("Use the series config's upscale.master"),
    method: z
      .enum(["latent", "pixel", "seedvr2"])
      .nullish()
      .describe(
        "latent (the target's own re-sample), pixel or seedvr2; null: latent where the target has one",
      ),
    scale: scale
      .or(z.literal("auto"))
      .nullish()
      .describe("Scale factor in (1, 4], or auto for a latent re-sample"),
    start_step: z.int().min(0).nullish().describe("The schedule step a re-sample starts from"),
    detail: z
      .union([z.literal(0), z.literal(1), z.literal(2)])
      .nullish()
      .describe("Start 0, 1 or 2 steps earlier"),
    vae: z.boolean().default(false).describe("Force the VAE route (frames re-encoded) over a kept latent"),
    pixel_model: z.string().min(1).max(200).nullish().describe("An upscale model file for the pixel method"),
    then_pixel_model: z
      .string()
      .min(1)
      .max(200)
      .nullish()
      .describe("A pixel step after the re-sample: its model file"),
    then_scale: scale.nullish().describe("The then step's scale (default 2)"),
    then_method: z.enum(["pixel", "seedvr2"]).nullish().describe("The then step's method"),
    seedvr2_model: z.string().min(1).max(200).nullish().describe("7b, 3b or a SeedVR2 model file"),
    deliver: z.string().max(20).nullish().describe("1080p, 1440p, 4k or WxH (both even, 64 to 8192)"),
    fit: z.enum(["crop", "pad"]).default("crop").describe("How another aspect meets the delivery size"),
    from_upscale: z.boolean().default(false).describe("Run the pixel or SeedVR2 method on the fresh upscale"),
    encoder: z.enum(["auto", "nvenc", "x264"]).default("auto").describe("The video encoder asked for"),
    precision: z.enum(["fp16", "fp32"]).default("fp16").describe("Model precision"),
    quality: z
      .enum(["review", "master"])
      .default("review")
      .describe("review (fast) or master (high-quality H.264)"),
    frequency_split: z.boolean().default(true).describe("Colour from the source, detail from the upscale"),
    keep_soft: z
      .number()
      .min(0)
      .max(1)
      .default(0)
      .describe("0 to 1: how much softness to keep (1: no sharpening on the built-in engine)"),
    grain: z.number().min(0).max(0.2).default(0).describe("0 to 0.2 of film grain"),
    backend: z
      .string()
      .min(1)
      .max(128)
      .nullish()
      .describe("The backend for takes not rendered on the built-in engine (default local)"),
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
