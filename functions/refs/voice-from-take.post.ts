// POST /studio/refs/voice-from-take: a span of a shot take's sound becomes a voice sample candidate (a 16-bit PCM
// wav, `source: from_take`), picked as asked; answers the voice as listed plus `picked`, `take` and `source`.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { refField } from "../../lib/refs/ids.ts";
import { MAX_NOTE } from "../../lib/refs/import.ts";
import { listedRef } from "../../lib/refs/listing.ts";
import { MAX_CLIP, MIN_CLIP, voiceFromTake } from "../../lib/refs/voice-from-take.ts";
import { ep, pass, shotId, take } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

/** Seconds into the take: a number, or its digits as text (`"1.5"`). */
const seconds = z
  .union([
    z.number().min(0).max(86_400),
    z
      .string()
      .regex(/^\d+(\.\d+)?$/, { error: "must be seconds: a number, or its digits as text" })
      .transform(Number)
      .pipe(z.number().max(86_400)),
  ])
  .nullish();

export default defineFunction({
  method: "POST",
  path: "/refs/voice-from-take",
  summary: `Cut a voice sample from a shot take's sound (the mp4's audio stream, else its _h3.wav) into a new candidate of a voice reference (a 16-bit PCM wav, source from_take; the sidecar records source_shot, source_take, source_pass, source_start, source_end, source_file, source_sha1 and seconds). Answers the voice as GET /studio/refs lists it plus picked (a boolean: this clip was picked), take (the new take's number) and source {shot, take, pass, start, end, file}. A pick of a voice whose character names no voice_sample also adds that line to the series config (and rebuilds). 400 not a voice, a span outside ${MIN_CLIP}–${MAX_CLIP} s, a start outside the take or an end past it; 404 unknown reference, shot or take; 409 a take not finished or with no sound there`,
  input: z.object({
    ep,
    ref: refField.describe("The voice the clip becomes a sample of: voice:<character>"),
    shot: shotId.describe("The shot whose take the sound comes from"),
    take: take.describe("The take number"),
    pass,
    start: seconds.describe("Where the clip starts, in seconds into the take (default 0)"),
    end: seconds.describe("Where the clip ends, in seconds into the take (default the end of the take)"),
    pick: z
      .boolean()
      .nullish()
      .describe("true: pick the clip; false: never; null or left out: only when the voice has no live file"),
    note: z.string().max(MAX_NOTE).nullish().describe(`A note on the take, at most ${MAX_NOTE} characters`),
  }),
  async handler(input, ctx) {
    const epReal = await resolveEpisode(input.ep, ctx);
    const made = await voiceFromTake(ctx, epReal, {
      ref: input.ref,
      pass: input.pass,
      shot: input.shot,
      take: input.take,
      start: input.start ?? null,
      end: input.end ?? null,
      pick: input.pick ?? null,
      note: input.note ?? null,
    });
    return {
      ...(await listedRef(ctx, epReal, input.ref)),
      picked: made.picked,
      take: made.take.take,
      source: made.source,
    };
  },
});
