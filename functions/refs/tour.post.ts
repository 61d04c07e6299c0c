// POST /studio/refs/tour: queues camera-tour videos of a location's live plate (the `tour` job kind); answers at
// once, and each tour's held moments arrive later as `tour` takes with their events.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { refField } from "../../lib/refs/ids.ts";
import { queueTours, TOUR_COUNT, TOUR_SECONDS } from "../../lib/refs/tour.ts";
import { tourMove } from "../../lib/refs/tour-video.ts";
import { ep, seed } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/refs/tour",
  summary:
    "Queue camera-tour videos of a location's live plate (the built-in zoompan, or a video target's engine with the plate as the first frame); answers at once with each tour's number and its job id. The held moments of each tour become takes of the location's tour view as they are found. 400 not a location; 409 no live plate",
  input: z.object({
    ep,
    ref: refField.describe("The location to tour: location:<id>"),
    move: tourMove,
    seconds: z
      .number()
      .min(TOUR_SECONDS.min)
      .max(TOUR_SECONDS.max)
      .nullish()
      .describe(
        `Length of each tour in seconds, ${TOUR_SECONDS.min} to ${TOUR_SECONDS.max} (default ${TOUR_SECONDS.default})`,
      ),
    count: z
      .int()
      .min(TOUR_COUNT.min)
      .max(TOUR_COUNT.max)
      .nullish()
      .describe(`How many tours, ${TOUR_COUNT.min} to ${TOUR_COUNT.max} (default ${TOUR_COUNT.default})`),
    seed: seed.describe("The first tour's seed (the others get new ones); left out: a new seed"),
    target: z
      .string()
      .max(200)
      .nullish()
      .describe(
        "A video target with a first-frame input (ltx2, wan22_i2v) to render the tour on, the plate as its first frame; left out: the built-in zoompan. 400 for a non-video target or one with no first-frame input",
      ),
    backend: z
      .string()
      .max(200)
      .nullish()
      .describe(
        "The backend running the target (default local); builtin: the built-in zoompan whatever the target",
      ),
  }),
  async handler(input, ctx) {
    const epReal = await resolveEpisode(input.ep, ctx);
    const store = await ctx.jobs();
    return queueTours(
      ctx,
      store,
      epReal,
      {
        ref: input.ref,
        move: input.move,
        seconds: input.seconds,
        count: input.count,
        seed: input.seed,
        target: input.target,
        backend: input.backend,
      },
      ctx.jobSignals.jobAdded,
    );
  },
});
