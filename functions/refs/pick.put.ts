// PUT /studio/refs/pick: copy a reference take into the live file the series config names (a character's view
// picks stitch the 4-panel sheet once all four are picked; a `sheet` take is copied as it is).
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { refField, viewField } from "../../lib/refs/ids.ts";
import { listedRef } from "../../lib/refs/listing.ts";
import { pickTake } from "../../lib/refs/live.ts";
import { liveRefAt } from "../../lib/refs/live-ref.ts";
import { ep, take } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "PUT",
  path: "/refs/pick",
  summary:
    "Make a reference take live: copied into the series config's path, character views stitched into the sheet",
  input: z.object({
    ep,
    ref: refField,
    view: viewField,
    take,
    force: z.boolean().nullish().describe("Pick even a take whose status is not ok (its file must be there)"),
  }),
  async handler(input, ctx) {
    const epReal = await resolveEpisode(input.ep, ctx);
    const { place, live } = await liveRefAt(ctx, epReal, input.ref);
    await pickTake(ctx, place, live, input.view ?? null, input.take, input.force ?? false);
    return listedRef(ctx, epReal, input.ref);
  },
});
