// GET /studio/refs/videos: the videos kept in the show's refs/_videos/, newest first.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { refsPlace } from "../../lib/refs/place.ts";
import { listVideos } from "../../lib/refs/videos.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/refs/videos",
  summary:
    "The videos kept in the show's refs/_videos/, newest first: {videos: [{path, name, size, modified, duration}]} (paths episode-relative)",
  input: z.object({ ep }),
  async handler(input, ctx) {
    const place = await refsPlace(ctx, await resolveEpisode(input.ep, ctx));
    return { videos: await listVideos(ctx, place) };
  },
});
