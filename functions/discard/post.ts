// POST /studio/discard: move a finished or failed take to the trash and drop the cut picks that played it.
import { z } from "zod";
import { discardTake } from "../../lib/episode/discard.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, pass, shotId, take } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/discard",
  summary: "Move a take's files to renders[_proxy]/_trash/<shot>/; cut entries playing it lose their pick",
  input: z.object({
    ep,
    pass,
    shot: shotId,
    take,
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const answer = await discardTake(ctx, ep, input.pass, input.shot, input.take, ctx.now());
    ctx.events.emit("studio.episode", { ep });
    return answer;
  },
});
