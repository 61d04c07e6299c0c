// GET /studio/episode: the pass's shots in cut order with their takes, picks, overrides, targets and staleness.
// The answer is JSON text assembled from cached per-shot pieces, so it is handed to the runtime as text.
import { z } from "zod";
import { passReads } from "../../lib/episode/pass-reads.ts";
import { episodeStatus } from "../../lib/episode/status.ts";
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
    // has nothing to sweep and is refused below. The sweep and the status share one read of the build and of
    // the take lists, read again only when the sweep closed a take.
    let reads = passReads(ctx, ep, pass);
    if ((await sweepQueuedTakes(ctx, ep, pass, { reads })) > 0) reads = passReads(ctx, ep, pass);
    const answer = await episodeStatus(ctx, ep, pass, ctx.now(), reads);
    if (answer === null)
      throw notFound(`the ${pass} pass of ${input.ep} is not built: build the episode first`);
    // A page that re-reads the episode and already holds this answer gets 304 and no body.
    const held = ctx.request.headers.get("if-none-match");
    if (held && matchesEtag(held, answer.etag))
      return new Response(null, { status: 304, headers: { etag: answer.etag } });
    return new JsonText(answer.text, `${ep}\0${pass}`, { etag: answer.etag });
  },
});

/** If-None-Match holds `etag` (weak comparison: the W/ prefix is ignored), or is `*`. */
function matchesEtag(header: string, etag: string): boolean {
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim() === "*" || bare(tag) === bare(etag));
}
