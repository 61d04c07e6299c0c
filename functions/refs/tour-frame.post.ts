// POST /studio/refs/tour-frame: the exact frame at a time of a finished tour becomes one more hold of the location
// (a `tour` take with `hold: null`); answers the new take.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { refField } from "../../lib/refs/ids.ts";
import { TOUR_SECONDS, tourFrame } from "../../lib/refs/tour.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/refs/tour-frame",
  summary:
    "Add the frame at `seconds` of a finished tour as a hold (a tour take with hold null); answers the new take with its tour, start, end and frame. 400 a time outside the tour; 404 no such tour; 409 the tour is not finished",
  input: z.object({
    ep,
    ref: refField.describe("The toured location: location:<id>"),
    tour: z.int().min(1).max(9999).describe("The tour's number (tour_tNN)"),
    seconds: z
      .number()
      .min(0)
      .max(TOUR_SECONDS.max)
      .describe("The time in the tour, in seconds from its start; the frame at that time is cut exactly"),
  }),
  async handler(input, ctx) {
    const epReal = await resolveEpisode(input.ep, ctx);
    return tourFrame(ctx, epReal, input.ref, input.tour, input.seconds);
  },
});
