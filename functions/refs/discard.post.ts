// POST /studio/refs/discard: move a reference candidate to the trash; a discarded pick is cleared (a voice's
// live sample stays).
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { discardRefTake } from "../../lib/refs/discard.ts";
import { refField, viewField } from "../../lib/refs/ids.ts";
import { listedRef } from "../../lib/refs/listing.ts";
import { liveRefAt } from "../../lib/refs/live-ref.ts";
import { ep, take } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/refs/discard",
  summary:
    "Move a reference candidate to refs/_takes/_trash; clears the reference when it was the pick (not a voice)",
  input: z.object({ ep, ref: refField, view: viewField, take }),
  async handler(input, ctx) {
    const epReal = await resolveEpisode(input.ep, ctx);
    const { place, live } = await liveRefAt(ctx, epReal, input.ref);
    await discardRefTake(ctx, place, live, input.view ?? null, input.take);
    return listedRef(ctx, epReal, input.ref);
  },
});
