// GET /studio/episodes: every episode up to two levels below the configured roots, as summaries.
import { configRoots } from "../../lib/config/config.ts";
import { findEpisodes } from "../../lib/episode/find.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/episodes",
  summary: "List the episodes found up to two levels below each root",
  async handler(_input, ctx) {
    const roots = await configRoots(ctx);
    return findEpisodes(roots);
  },
});
