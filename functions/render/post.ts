// POST /studio/render: queue takes for the shots of a pass (contract "Rendering", rules 1–13) and answer at once.
import { engineFor } from "../../lib/engines/registry.ts";
import { defineFunction } from "../../lib/fn.ts";
import { openJobStore } from "../../lib/jobs/store.ts";
import { jobAdded } from "../../lib/jobs/wake.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { queueRender } from "../../lib/render/queue.ts";
import { renderBody, renderRequest } from "../../lib/render/request.ts";
// The render retry hook is registered wherever the jobs routes may retry a render.
import "../../lib/render/retry.ts";

export default defineFunction({
  method: "POST",
  path: "/render",
  summary: "Queue takes for shots of a pass; answers queued, skipped and errors per shot without waiting",
  input: renderBody,
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const req = renderRequest(input);
    const store = await openJobStore(ctx);
    return queueRender(ctx, ep, req, { store, engine: (backend) => engineFor(backend, ctx), wake: jobAdded });
  },
});
