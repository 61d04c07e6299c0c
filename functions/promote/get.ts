// GET /studio/promote: the plan for moving overrides into the script and series config; nothing is written.
import { z } from "zod";
import { planPromote } from "../../lib/episode/promote/plan.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, shotId } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/promote",
  summary:
    "Plan a promote: which overrides become script lines or series config values (verified in memory), what stays and why, diffs",
  input: z.object({ ep, shot: shotId.optional().describe("Plan only this shot's overrides") }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    return planPromote(ctx, ep, input.shot);
  },
});
