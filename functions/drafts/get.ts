// GET /studio/drafts: the draft takes the proxy cut plays, when each expires and which finals were made from it.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { listDrafts } from "../../lib/render/drafts.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/drafts",
  summary:
    "The draft takes the proxy cut uses (low-resolution proxies a router target made as drafts, kept 7 days): " +
    "`{drafts: [{shot, take, thumb, mp4, expires, expired, finals (final takes made from it), made_from_it (the " +
    "final cut plays one of them), target}]}`. 404 when the proxy pass is not built",
  input: z.object({ ep }),
  async handler(input, ctx) {
    return listDrafts(ctx, await resolveEpisode(input.ep, ctx));
  },
});
