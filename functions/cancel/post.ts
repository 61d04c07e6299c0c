// POST /studio/cancel: cancel a queued take's job (States table); waits for a running job to stop.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { cancelTake } from "../../lib/render/cancel.ts";
import { ep, pass, shotId, take } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/cancel",
  summary: "Cancel a queued take: a waiting job leaves the queue, a running one is stopped (the route waits)",
  input: z.object({
    ep,
    pass,
    shot: shotId,
    take,
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const store = await ctx.jobs();
    return cancelTake(ctx, store, { ep, pass: input.pass, shot: input.shot, take: input.take });
  },
});
