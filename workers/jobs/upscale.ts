// The upscale job: one take's planned upscale made on its lane (lib/upscale/run.ts) with progress per step; a
// cancel stops ffmpeg or the engine and closes the record "canceled"; a retry queues a new record.
import { z } from "zod";
import { defineJobKind } from "../../lib/jobs/kinds.ts";
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
    await runUpscale(ctx.services, job.id, p, {
      signal: ctx.signal,
      progress: (share, step) => ctx.progress({ progress: share, ...(step ? { step } : {}) }),
      emit: (kind, data) => ctx.emit(kind, data),
      engine: (backend) => ctx.engine(backend),
      canceledByUser: async () => {
        const now = await ctx.store.get(job.id).catch(() => null);
        return now === null || now.cancel_requested || now.status === "canceled";
      },
    });
  },
  retry: (job, services) => requeueUpscale(services, job),
});
