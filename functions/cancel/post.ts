// POST /studio/cancel: cancel a queued take's job (States table); waits for a running job to stop.
import { z } from "zod";
import { defineFunction } from "../fn.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { cancelTake } from "../../lib/render/cancel.ts";
import { shotId } from "../../lib/schema/fields.ts";

export default defineFunction({
  method: "POST",
  path: "/cancel",
  summary: "Cancel a queued take: a waiting job leaves the queue, a running one is stopped (the route waits)",
  input: z.object({
    ep: z.string(),
    pass: z.enum(["final", "proxy"]).or(z.literal("")).nullish(),
    shot: shotId,
    take: z.number().int().min(1),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const store = await ctx.jobs();
    return cancelTake(ctx, store, { ep, pass: input.pass || "proxy", shot: input.shot, take: input.take });
  },
});
