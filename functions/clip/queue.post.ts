// POST /studio/clip/queue: the pictures a shot needs generated, then a step that waits for them, makes them live
// and queues the shot's renders (or keeps the still). Answers at once.
import { clipQueueBody, queueClip } from "../../lib/clips/clip-queue.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/clip/queue",
  summary:
    "Make a clip of a shot: each picture its render reads with no live file is generated (its own generate " +
    "request; one already being made is waited for), then a `step` job waits for them, makes them live and " +
    "queues `takes` renders, or with `still` keeps the shot's first keyframe drawn on `image_target`. Answers " +
    "{refs: [{ref, kind, state (queued|waiting|finished|failed), takes: [{view, take, prompt_id}], errors}], " +
    "waiting_on (job ids), step (the step job's id, null when nothing was waited for and the renders were queued " +
    "at once), renders (those queued at once), stills: [{ref, take, prompt_id, target}]}. A step still waiting " +
    "continues as a follow-up step job whose info.step names the first. 404 a shot in no build of the pass; 409 " +
    "(with refs) when nothing had to be waited for and the render could not be queued",
  input: clipQueueBody,
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const store = await ctx.jobs();
    return queueClip(ctx, ep, input, { store, wake: ctx.jobSignals.jobAdded });
  },
});
