// DELETE /studio/post: remove a take's post-process (its .post.mp4 and .post.json).
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { deletePost } from "../../lib/post/delete.ts";
import { ep, passOr, queryTake, shotId } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "DELETE",
  path: "/post",
  summary:
    "Delete a take's post-process: `{shot, take, deleted: true}`; 404 without the take or its post, 409 while its job waits or runs",
  input: z.object({
    ep,
    pass: passOr("final"),
    shot: shotId,
    take: queryTake,
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    return deletePost(ctx, ep, input.pass, input.shot, input.take);
  },
});
