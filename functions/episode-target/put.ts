// PUT /studio/episode-target: the editor's episode video target (overrides.json `episode.target`); null clears it.
import { z } from "zod";
import { setEpisodeTarget } from "../../lib/episode/override-edit.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, targetId } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "PUT",
  path: "/episode-target",
  summary: "Set (or clear with null) the episode's default video target; answers the target now in force",
  input: z.object({
    ep,
    target: targetId.nullable().describe("The episode's default video target id; null clears it"),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const answer = await setEpisodeTarget(ctx, ep, input.target);
    ctx.events.emit("studio.episode", { ep });
    return answer;
  },
});
