// POST /studio/refs/generate-missing: make every reference a pass's renders read and nothing provides yet (series
// pictures and voice samples as candidates, keyframes cut, imported or queued as stills); answers at once.
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { generateMissing, generateMissingBody } from "../../lib/refs/generate-missing.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/refs/generate-missing",
  summary:
    "Fill the references a pass reads and lacks: {queued, picked, skipped, errors}. A series reference with no live " +
    "file, not cleared and nothing under way gets one candidate (a voice a voice sample on the voice target); a " +
    "keyframe is cut from the previous shot (continuity, picked), imported from the script's path (picked) or " +
    "queued as a still. dry_run answers the same writing nothing (take and prompt_id null). 404 when the pass has " +
    "no build",
  input: generateMissingBody,
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const store = await ctx.jobs();
    return generateMissing(ctx, ep, input, { store, wake: ctx.jobSignals.jobAdded });
  },
});
