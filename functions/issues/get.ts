// GET /studio/issues: the episode's issue notes in the order they were taken, each with `addressed` worked out now.
import { z } from "zod";
import { listIssues } from "../../lib/episode/issues.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, passFilter } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/issues",
  summary: "List the issue notes (both passes, or one with pass)",
  input: z.object({ ep, pass: passFilter }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    return { issues: await listIssues(ctx, ep, input.pass) };
  },
});
