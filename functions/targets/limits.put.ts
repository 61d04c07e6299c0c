// PUT /studio/targets/limits: set a target's limits in the settings (`target_limits`), which GET /studio/targets
// reports and a render holds each shot to (a shot beyond them is that shot's error).
import { z } from "zod";
import { effectiveSettings, writeSettings } from "../../lib/config/settings-store.ts";
import { notFound } from "../../lib/errors.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, targetId } from "../../lib/schema/fields.ts";
import { checkLimitsBody } from "../../lib/targets/limit-check.ts";
import { targetLimits } from "../../lib/targets/limits.ts";
import { showDirOf } from "../../lib/targets/listing.ts";
import { settingsTargetsRoot, targetsForShow } from "../../lib/targets/target-tree.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "PUT",
  path: "/targets/limits",
  summary:
    "Set limits that replace a target's own (max_frames, max_seconds, max_long_side, max_pixels, min_pixels, " +
    "max_refs, max_subjects, size_multiple, trained_frames; null drops one, `{}` drops them all); saved in the " +
    "settings' target_limits. Answers `{target, limits (in force), target_limits (the saved overrides)}`. 400 " +
    "for a value that is not a positive number or an unknown limit, 404 for an unknown target (`ep` adds the " +
    "show's own)",
  input: z.object({
    target: targetId,
    limits: z.unknown().describe("{limit: positive number or null}"),
    ep: ep.optional().describe("An episode, so the show's own targets can be named"),
  }),
  async handler(input, ctx) {
    const limits = checkLimitsBody(input.limits);
    const showDir = input.ep ? await showDirOf(ctx, await resolveEpisode(input.ep, ctx)) : null;
    const spec = (await targetsForShow(ctx.targets, showDir, settingsTargetsRoot(ctx))).get(input.target);
    if (!spec) throw notFound(`no target '${input.target}'${showDir ? " in this show or shipped" : ""}`);
    const current = (await effectiveSettings(ctx)).target_limits;
    const merged: Record<string, unknown> = Object.keys(limits).length ? { ...current[input.target] } : {};
    for (const [k, v] of Object.entries(limits)) {
      if (v === null) delete merged[k];
      else merged[k] = v;
    }
    const next: Record<string, Record<string, unknown>> = { ...current };
    if (Object.keys(merged).length) next[input.target] = merged;
    else delete next[input.target];
    await writeSettings(ctx, { target_limits: next as never });
    return { target: input.target, limits: targetLimits(spec, merged), target_limits: merged };
  },
});
