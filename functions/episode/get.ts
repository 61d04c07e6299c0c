// GET /studio/episode: the pass's shots in cut order with their takes, picks, overrides, targets and staleness.
// The answer is JSON text assembled from cached per-shot pieces, so it is handed to the runtime as text.
import { z } from "zod";
import { episodeStatusText } from "../../lib/episode/status.ts";
import { notFound } from "../../lib/errors.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { sweepQueuedTakes } from "../../lib/render/sweep.ts";
import { ep, pass } from "../../lib/schema/fields.ts";
import { defineFunction, JsonText } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/episode",
  summary: "Episode status: shots in cut order with takes, cut picks, overrides, targets and staleness",
  input: z.object({
    ep,
    pass,
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const pass = input.pass;
    // Render sweep (States table): queued takes whose job is gone are closed before the answer; an unbuilt pass
    // has nothing to sweep and is refused below.
    await sweepQueuedTakes(ctx, ep, pass);
    const text = await episodeStatusText(ctx, ep, pass, ctx.now());
    if (text === null)
      throw notFound(`the ${pass} pass of ${input.ep} is not built: build the episode first`);
    return new JsonText(text, `${ep}\0${pass}`);
  },
});
