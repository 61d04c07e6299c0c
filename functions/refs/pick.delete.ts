// DELETE /studio/refs/pick: unpick a reference (or one character view): the live file goes, the takes stay, and
// `cleared` keeps auto-pick away until something is picked again. For a keyframe this is Clear.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { refField, viewField } from "../../lib/refs/ids.ts";
import { listedRef } from "../../lib/refs/listing.ts";
import { unpick } from "../../lib/refs/live.ts";
import { liveRefAt } from "../../lib/refs/live-ref.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "DELETE",
  path: "/refs/pick",
  summary: "Unpick a reference or a character view: live file removed, takes kept, `cleared` recorded",
  input: z.object({ ep, ref: refField, view: viewField }),
  async handler(input, ctx) {
    const epReal = await resolveEpisode(input.ep, ctx);
    const { place, live } = await liveRefAt(ctx, epReal, input.ref);
    await unpick(ctx, place, live, input.view ?? null);
    return listedRef(ctx, epReal, input.ref);
  },
});
