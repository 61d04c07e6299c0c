// The post job: one queued post-process of a take's upscale made on its lane (lib/post/run.ts), progress per stage;
// a cancel stops ffmpeg or the engine and closes the record "canceled"; a retry queues the record again.
import { defineJobKind } from "../../lib/jobs/kinds.ts";
import { postPayload } from "../../lib/post/payload.ts";
import { requeuePost } from "../../lib/post/queue.ts";
import { runPost } from "../../lib/post/run.ts";
import { versionJobHooks } from "../../lib/upscale/finish-run.ts";

export const postJob = defineJobKind({
  payload: postPayload,
  async run(job, ctx) {
    const p = job.payload;
    ctx.progress({ log: `${p.stem} post on ${job.lane}` });
    await runPost(ctx.services, job.id, job.lane, p, versionJobHooks(job, ctx));
  },
  retry: (job, services) => requeuePost(services, job),
});
