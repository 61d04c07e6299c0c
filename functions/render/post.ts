// POST /studio/render: queue takes for the shots of a pass (contract "Rendering", rules 1–13) and answer at once.
// Extra: `warning` when the takes come from an older build because the newer script or series config does not build.

import { staleBuildWarning } from "../../lib/episode/build-failure.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { withDrafts } from "../../lib/render/drafts.ts";
import { queueRender } from "../../lib/render/queue.ts";
import { renderBody, renderRequest } from "../../lib/render/request.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/render",
  summary:
    "Queue takes for shots of a pass; answers queued, skipped and errors per shot without waiting. Extra field " +
    "`warning` (a string) when the script or series config was saved after the pass's last good build and " +
    "does not build: it names the build the takes come from (its time) and the first error of the newer text",
  input: renderBody,
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const req = await withDrafts(ctx, ep, renderRequest(input));
    const store = await ctx.jobs();
    const [answer, warning] = await Promise.all([
      queueRender(ctx, ep, req, {
        store,
        engine: (backend) => ctx.engines.get(backend),
        wake: ctx.jobSignals.jobAdded,
      }),
      staleBuildWarning(ep, req.pass),
    ]);
    return warning ? { ...answer, warning } : answer;
  },
});
