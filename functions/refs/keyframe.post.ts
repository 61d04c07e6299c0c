// POST /studio/refs/keyframe: one exact frame of a neighbour shot's video take becomes a new take of the shot's
// keyframe reference, picked as asked; answers the reference as listed.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { KEYFRAME_ENDS } from "../../lib/refs/ids.ts";
import { MAX_NOTE } from "../../lib/refs/import.ts";
import { cutKeyframe, FRAME_RULE } from "../../lib/refs/keyframe-cut.ts";
import { listedRef } from "../../lib/refs/listing.ts";
import { ep, pass, shotId, take } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

const frame = z
  .union([z.int().min(-1_000_000).max(1_000_000), z.enum(["first", "last"])], { error: FRAME_RULE })
  .nullish()
  .describe(
    'The frame to cut: a 0-based decode index (negative counts from the end), "first" or "last"; default "last" for a first frame, "first" for a last frame',
  );

export default defineFunction({
  method: "POST",
  path: "/refs/keyframe",
  summary:
    "Cut one exact frame of a video take as a new take of a shot's keyframe reference (shot:<shot>:first|last); answers the reference as listed. 400 no neighbour shot or a frame outside the take; 404 shot in no build or no such source_take; 409 the source has no usable take or its cut take is unusable; 500 without media tools",
  input: z.object({
    ep,
    pass,
    shot: shotId.describe("The shot whose keyframe is cut"),
    which: z
      .enum(KEYFRAME_ENDS)
      .nullish()
      .describe('"first" (default) or "last": which keyframe of the shot the frame becomes'),
    source_shot: shotId
      .nullish()
      .describe(
        "The shot whose take the frame comes from; default the shot before in the pass's cut (after, for last)",
      ),
    source_take: take
      .nullish()
      .describe("The take to cut from; default the cut's take, else the newest usable one"),
    frame,
    pick: z
      .boolean()
      .nullish()
      .describe("true: pick the new take; false: never; null or left out: only when no live file exists"),
    note: z.string().max(MAX_NOTE).nullish().describe(`A note on the take, at most ${MAX_NOTE} characters`),
  }),
  async handler(input, ctx) {
    const epReal = await resolveEpisode(input.ep, ctx);
    const which = input.which ?? "first";
    await cutKeyframe(ctx, epReal, {
      pass: input.pass,
      shot: input.shot,
      which,
      sourceShot: input.source_shot ?? null,
      sourceTake: input.source_take ?? null,
      frame: input.frame ?? null,
      pick: input.pick ?? null,
      note: input.note ?? null,
    });
    return listedRef(ctx, epReal, `shot:${input.shot}:${which}`);
  },
});
