// POST /studio/refs/copy-take: a finished picture take of one reference becomes a new, unpicked candidate of
// another (a character receives it into one of its views).
import { z } from "zod";
import { badRequest } from "../../lib/errors.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { copyRefTake } from "../../lib/refs/copy-take.ts";
import { isCharacterView, refField, viewField } from "../../lib/refs/ids.ts";
import { listedRef } from "../../lib/refs/listing.ts";
import { liveRefAt } from "../../lib/refs/live-ref.ts";
import { ep, take } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/refs/copy-take",
  summary: "Copy a finished picture take into another reference as a new unpicked candidate",
  input: z.object({
    ep,
    ref: refField.describe("The reference the take belongs to"),
    view: viewField.describe("The take's view (characters and pseudo-views)"),
    take,
    to: refField.describe("The reference receiving the copy"),
    to_view: viewField.describe(
      "The view the copy goes to when `to` is a character; left out: the take's own view when it is a character view",
    ),
  }),
  async handler(input, ctx) {
    const epReal = await resolveEpisode(input.ep, ctx);
    const from = await liveRefAt(ctx, epReal, input.ref);
    const to = await liveRefAt(ctx, epReal, input.to);
    const view = input.view ?? null;
    const toView = input.to_view ?? (to.live.stitches && isCharacterView(view) ? view : null);
    if (input.to === input.ref && (toView ?? null) === view) {
      throw badRequest(
        "copy-take: `to` is the take's own reference and view; name another reference or view",
      );
    }
    const made = await copyRefTake(
      ctx,
      from.place,
      { live: from.live, view, take: input.take },
      { live: to.live, view: toView },
    );
    return { ...(await listedRef(ctx, epReal, input.to)), copied: { view: made.view, take: made.take } };
  },
});
