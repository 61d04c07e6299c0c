// POST /studio/promote: promote the chosen plan items (re-checked), write both files with history, rebuild.
import { z } from "zod";
import { applyPromote } from "../../lib/episode/promote.ts";
import { defineFunction } from "../../lib/fn.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";

export default defineFunction({
  method: "POST",
  path: "/promote",
  summary:
    "Promote overrides into the script and series config; 409 when either file changed since the plan, 400 for an item not in it",
  input: z.object({
    ep: z.string(),
    items: z.union([z.literal("all"), z.array(z.string())], { error: 'must be a list of item ids or "all"' }),
    hashes: z.object({ script: z.string(), series: z.string() }),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    return applyPromote(ctx, ep, { items: input.items, hashes: input.hashes });
  },
});
