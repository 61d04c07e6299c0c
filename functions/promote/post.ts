// POST /studio/promote: promote the chosen plan items (re-checked), write both files with history, rebuild.
import { z } from "zod";
import { applyPromote } from "../../lib/episode/promote/apply.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/promote",
  summary:
    "Promote overrides into the script and series config; 409 when either file changed since the plan, 400 for an item not in it",
  input: z.object({
    ep,
    items: z
      .union([z.literal("all"), z.array(z.string())], { error: 'must be a list of item ids or "all"' })
      .describe('The plan items to promote, by id, or "all"'),
    hashes: z
      .object({
        script: z.string().describe("The script's hash in the plan"),
        series: z.string().describe("The series config's hash in the plan"),
      })
      .describe("The files' hashes the plan was made from (409 when either changed)"),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    return applyPromote(ctx, ep, { items: input.items, hashes: input.hashes });
  },
});
