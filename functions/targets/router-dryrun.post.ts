// POST /studio/targets/router-dryrun: the exact provider request a render of one shot on a router target would
// send (planned as a render plans it), without sending anything.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { routerDryRun } from "../../lib/router/dry-run.ts";
import { ep, passName, shotId, targetId } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/targets/router-dryrun",
  summary:
    "What a render of `shot` on the router target `target` would send: `{shot, target, model, method, url, " +
    "headers (the key shown as <api key>), body, notes, price_per_run, currency, draft}`; nothing is sent. 400 " +
    "when the target is not a router target or the shot cannot be rendered on it (the render's reason)",
  input: z.object({
    ep,
    shot: shotId,
    target: targetId.describe("A router target (backend router)"),
    pass: passName.default("final"),
  }),
  async handler(input, ctx) {
    const epReal = await resolveEpisode(input.ep, ctx);
    return routerDryRun(ctx, epReal, input);
  },
});
