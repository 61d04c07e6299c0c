// GET /studio/peaks: a media file's waveform as peak bytes (0..255) over a range, from its envelope made once per
// file version and kept in memory and in the episode's _cache/peaks/.
import { stat } from "node:fs/promises";
import { z } from "zod";
import { readPeaks } from "../../lib/audio/peaks.ts";
import { peaksAnswer } from "../../lib/audio/peaks-range.ts";
import { notFound, shown } from "../../lib/errors.ts";
import { resolveEpisodePath } from "../../lib/paths/relative.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

/** Most bins an answer may hold. */
export const MAX_BINS = 100_000;

const bins = z
  .string()
  .regex(/^\d+$/, { error: (issue) => `must be a whole number of bins (got ${shown(issue.input)})` })
  .transform(Number)
  .pipe(z.number().int().min(1).max(MAX_BINS, `must be at most ${MAX_BINS}`))
  .optional()
  .describe(`How many peaks to answer, 1 to ${MAX_BINS}; left out: 200 per second of the range`);

const seconds = (what: string) =>
  z
    .string()
    .regex(/^\s*(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/, {
      error: (issue) => `must be a number of seconds, 0 or more (got ${shown(issue.input)})`,
    })
    .transform(Number)
    .pipe(z.number().finite("must be a finite number of seconds"))
    .optional()
    .describe(what);

export default defineFunction({
  method: "GET",
  path: "/peaks",
  summary:
    "A sound or video file's waveform: one peak (0..255, the loudest sample of each bin) per bin over a range; a file with no sound answers silent: true and no peaks",
  input: z.object({
    ep,
    path: z
      .string()
      .describe(
        "The media file: a path relative to the episode (a take, the track, a recording, an audio source)",
      ),
    bins,
    start: seconds("Where the range starts, in seconds (default 0)"),
    end: seconds("Where the range ends, in seconds (default and at most: the file's end)"),
  }),
  async handler(input, ctx) {
    // A link leading out is the asker's mistake here (400), where /file calls it forbidden.
    const found = await resolveEpisodePath(ctx, input.ep, input.path, { linkEscapeStatus: 400 });
    if (!(await stat(found.path)).isFile()) {
      throw notFound(`path: ${shown(input.path)} is a folder, not a file`);
    }
    const env = await readPeaks(ctx, found.ep, found.path, ctx.signal);
    return peaksAnswer(env, { bins: input.bins, start: input.start, end: input.end });
  },
});
