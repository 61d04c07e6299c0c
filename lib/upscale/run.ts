// Running one queued upscale (`<stem>.up.mp4`, through the version job of finish-run.ts): made from the take, or
// with `from_upscale` from its upscale. The built-in lane scales by ffmpeg's lanczos; a ComfyUI lane runs the
// finishing graphs and the take's audio stream is copied back in as it is.
import path from "node:path";
import type { Services } from "../context.ts";
import { shotFolder } from "../episode/takes.ts";
import { type ResampleSpec, resampleVideo } from "../media/resample.ts";
import { comfyUpscale, sourceVideo } from "./comfy.ts";
import { BUILTIN_LANE, type FinishRunHooks, runVersionJob, withSourceAudio } from "./finish-run.ts";
import { upMp4Name } from "./fresh.ts";
import type { PlannedUpscale } from "./plan.ts";
import type { UpscalePayload } from "./queue.ts";
import { updateOwnRecord } from "./version-record.ts";

export type UpscaleRunHooks = FinishRunHooks;

/** What the built-in resample makes of a plan: lanczos to the made size, then the crop or pad to the delivery. */
export function resampleSpec(plan: PlannedUpscale): ResampleSpec {
  return {
    made: plan.deliver?.made ?? [plan.width, plan.height],
    width: plan.width,
    height: plan.height,
    fit: plan.deliver ? plan.deliver.fit : null,
    sharpen: plan.sharpen,
    quality: plan.quality,
  };
}

export async function runUpscale(
  services: Services,
  jobId: string,
  p: UpscalePayload,
  hooks: UpscaleRunHooks,
): Promise<void> {
  const dir = shotFolder(p.ep, p.pass, p.shot);
  await runVersionJob(services, "upscale", jobId, p, hooks, async (made, workDir) => {
    // `from_upscale` builds on the upscale's bytes; everything else on the take's.
    const src = path.join(dir, p.plan.on_upscale ? upMp4Name(p.stem) : `${p.stem}.mp4`);
    const base = { from: "take", width: p.plan.width, height: p.plan.height, frames: null };
    if (p.lane === BUILTIN_LANE) {
      hooks.progress(0, "lanczos");
      const done = await resampleVideo(services, src, made, resampleSpec(p.plan), {
        signal: hooks.signal,
        progress: (share) => hooks.progress(Math.min(0.95, share), "lanczos"),
      });
      return { ...base, encoder: done.encoder, notes: [], audioMs: 0 };
    }
    const graph = await comfyUpscale(
      services,
      hooks.engine(p.lane),
      p,
      await sourceVideo(services, src),
      workDir,
      {
        signal: hooks.signal,
        progress: hooks.progress,
        submitted: async (id) => {
          await updateOwnRecord(services, "upscale", p, jobId, {
            comfy_prompt_id: id,
            backend_prompt_id: id,
          });
        },
      },
    );
    hooks.progress(0.95, "audio");
    const audio = await withSourceAudio(services, graph.video, src, made, hooks.signal);
    return { ...base, encoder: audio.encoder, notes: graph.notes, audioMs: audio.ms };
  });
}
