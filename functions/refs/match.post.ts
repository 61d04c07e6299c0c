// POST /studio/refs/match: which reference slot each dropped file would go to, judged by its name; writes nothing.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { readCatalog } from "../../lib/refs/catalog.ts";
import { matchFiles, matchNames, slotsOf } from "../../lib/refs/match.ts";
import { refsPlace } from "../../lib/refs/place.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/refs/match",
  summary:
    "Match file names to reference slots by slug (revision markers like _v2 set aside; pictures vs sounds by extension); ambiguous names and two files for one slot stay unmatched with the reason",
  input: z.object({ ep, names: matchNames }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const catalog = await readCatalog(ctx, await refsPlace(ctx, ep));
    const note = catalog.seriesError ? `the series config does not load: ${catalog.seriesError}` : undefined;
    return matchFiles(input.names, catalog.refs.flatMap(slotsOf), note);
  },
});
