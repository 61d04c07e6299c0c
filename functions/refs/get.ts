// GET /studio/refs: every reference of the episode (series references from the config in force, keyframes of
// built shots) with its live file, candidates, picks, overrides and effective settings, and the default targets.
// The sweep of reference takes whose job is gone and auto-pick run after the answer is sent.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { afterAnswer } from "../../lib/refs/list-after.ts";
import { listRefsAt } from "../../lib/refs/listing.ts";
import { refsPlace } from "../../lib/refs/place.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction, JsonText } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/refs",
  summary:
    "Every reference of the episode (subjects with views, locations, voices, keyframes) with live file, candidates, picks, overrides, effective settings and sharing; and the default targets. A location's `tours` each add `video` (the tour's mp4, episode-relative, null until made), `seconds`, `fps` and `frames` (null until made)",
  input: z.object({ ep }),
  async handler(input, ctx) {
    const epReal = await resolveEpisode(input.ep, ctx);
    const place = await refsPlace(ctx, epReal);
    const { text, pending } = await listRefsAt(ctx, place);
    afterAnswer(ctx, place, pending);
    // Kept text: an unchanged listing is the same string, whose bytes and gzip the runtime keeps by this key.
    return new JsonText(text, `${place.ep}\0refs`);
  },
});
