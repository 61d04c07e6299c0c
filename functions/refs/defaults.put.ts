// PUT /studio/refs/defaults: the episode's targets for reference pictures, keyframes and voices (overrides.json
// `episode.refs_target`, `keyframe_target`, `voice_target`); null clears one, a key left out is kept.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { type DefaultsChange, setRefDefaults } from "../../lib/refs/override-edit.ts";
import { refsPlace } from "../../lib/refs/place.ts";
import { ep, targetId } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "PUT",
  path: "/refs/defaults",
  summary:
    "Set (or clear with null) the episode's reference, keyframe and voice targets; answers the defaults now in force",
  input: z.object({
    ep,
    target: targetId.nullish().describe("The image target reference pictures are made on; null clears it"),
    keyframe_target: targetId.nullish().describe("The image target keyframes are made on; null clears it"),
    voice_target: targetId.nullish().describe("The audio target voices are made on; null clears it"),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const change: DefaultsChange = {};
    for (const key of ["target", "keyframe_target", "voice_target"] as const) {
      if (input[key] !== undefined) change[key] = input[key];
    }
    const answer = await setRefDefaults(ctx, await refsPlace(ctx, ep), change);
    ctx.events.emit("studio.episode", { ep });
    return answer;
  },
});
