// POST /studio/render: queue takes for the shots of a pass (contract "Rendering", rules 1–13) and answer at once.

import { resolveEpisode } from "../../lib/paths/episode.ts";
import { queueRender } from "../../lib/render/queue.ts";
import { renderBody, renderRequest } from "../../lib/render/request.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/render",
  summary: "Queue takes for shots of a pass; answers queued, skipped and errors per shot without waiting",
  input: renderBody,
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const req = renderRequest(input);
    const store = await ctx.jobs();
    return queueRender(ctx, ep, req, {
      store,
      engine: (backend) => ctx.engines.get(backend),
      wake: ctx.jobSignals.jobAdded,
    });
  },
});
