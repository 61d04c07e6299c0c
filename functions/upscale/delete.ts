// DELETE /studio/upscale: remove a take's upscale (`<stem>.up.mp4` and `.up.json`); 409 while its job waits or runs.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, passOr, queryTake, shotId } from "../../lib/schema/fields.ts";
import { deleteUpscale } from "../../lib/upscale/edit.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "DELETE",
  path: "/upscale",
  summary:
    "Delete a take's upscale files; 404 without a take or a record, 409 while its job is still under way",
  input: z.object({
    ep,
    pass: passOr("final"),
    shot: shotId,
    take: queryTake,
  }),
  async handler(input, ctx) {
    const epReal = await resolveEpisode(input.ep, ctx);
    return deleteUpscale(ctx, epReal, input.pass, input.shot, input.take);
  },
});
