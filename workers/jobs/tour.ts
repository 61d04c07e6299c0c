// The tour job: one camera-tour video made from a location's plate (the built-in zoompan, or a ComfyUI video target), then its held moments
// cut into `tour` takes of the location (lib/refs/tour.ts); progress per stage, a cancel stops ffmpeg.
import { defineJobKind } from "../../lib/jobs/kinds.ts";
import { runTour, tourPayload } from "../../lib/refs/tour.ts";

export const tourJob = defineJobKind({
  payload: tourPayload,
  async run(job, ctx) {
    const p = job.payload;
    ctx.progress({ log: `${p.ref} tour t${String(p.tour).padStart(2, "0")}: ${p.move}, ${p.seconds} s` });
    await runTour(ctx.services, p, {
      signal: ctx.signal,
      progress: (share, step) => ctx.progress({ progress: share, step }),
      emit: (kind, data) => ctx.emit(kind, data),
      engine: (backend) => ctx.engine(backend),
    });
  },
});
