// DELETE /studio/refs/override: clear a reference's overrides; with a view, exactly the fields set on that view.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { catalogRef, readCatalog } from "../../lib/refs/catalog.ts";
import { factsOf } from "../../lib/refs/effective.ts";
import { parseRefId, refField } from "../../lib/refs/ids.ts";
import { deleteRefOverride } from "../../lib/refs/override-edit.ts";
import { overrideViewField } from "../../lib/refs/overrides.ts";
import { refsPlace } from "../../lib/refs/place.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "DELETE",
  path: "/refs/override",
  summary: "Clear a reference's overrides: all of them (views too), or exactly those set on one view",
  input: z.object({ ep, ref: refField, view: overrideViewField }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const ref = parseRefId(input.ref);
    const place = await refsPlace(ctx, ep);
    const facts = factsOf(catalogRef(await readCatalog(ctx, place), ref.id));
    const answer = await deleteRefOverride(ctx, place, ref, facts, input.view);
    ctx.events.emit("studio.episode", { ep });
    return answer;
  },
});
