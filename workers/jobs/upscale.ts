// The upscale job: one take's planned upscale made on its lane (lib/upscale/run.ts) with progress per step; a
// cancel stops ffmpeg or the engine and closes the record "canceled"; a retry queues a new record.
import { z } from "zod";
import { defineJobKind } from "../../lib/jobs/kinds.ts";
import { versionJobHooks } from "../../lib/upscale/finish-run.ts";
import type { PlannedUpscale } from "../../lib/upscale/plan.ts";
import { requeueUpscale, type UpscalePayload } from "../../lib/upscale/queue.ts";
import { runUpscale } from "../../lib/upscale/run.ts";

const payload: z.ZodType<UpscalePayload> = z.object({
  ep: z.string().min(1),
  pass: z.enum(["final", "proxy"]),
  shot: z.string().min(1),
  take: z.number().int().min(1),
  stem: z.string().min(1),
  lane: z.string().min(1),
  plan: z.looseObject({}) as unknown as z.ZodType<PlannedUpscale>,
});

export const upscaleJob = defineJobKind({
  payload,
  async run(job, ctx) {
    const p = job.payload;
    ctx.progress({ log: `${p.stem}: ${p.plan.upscaler} to ${p.plan.width}x${p.plan.height} on ${p.lane}` });
    await runUpscale(ctx.services, job.id, p, versionJobHooks(job, ctx));
  },
  retry: (job, services) => requeueUpscale(services, job),
});
