// The post job: one queued post-process of a take's upscale made on its lane (lib/post/run.ts), progress per stage;
// a cancel stops ffmpeg or the engine and closes the record "canceled"; a retry queues the record again. A post
// queued behind an upscale job is handed how that job ended, so it fails with the reason when there is no upscale.
import { defineJobKind } from "../../lib/jobs/kinds.ts";
import { postPayload } from "../../lib/post/payload.ts";
import { requeuePost } from "../../lib/post/queue.ts";
import { type AwaitedUpscale, runPost } from "../../lib/post/run.ts";
import { versionJobHooks } from "../../lib/upscale/finish-run.ts";

export const postJob = defineJobKind({
  payload: postPayload,
  async run(job, ctx) {
    const p = job.payload;
    ctx.progress({ log: `${p.stem} post on ${job.lane}` });
    // A job the store no longer keeps leaves the upscale's freshness to decide, as for any post.
    const before = job.after ? await ctx.store.get(job.after).catch(() => null) : null;
    const awaited: AwaitedUpscale | null =
      before?.kind === "upscale" ? { id: before.id, status: before.status, error: before.error } : null;
    await runPost(ctx.services, job.id, job.lane, p, versionJobHooks(job, ctx), awaited);
  },
  retry: (job, services) => requeuePost(services, job),
});
