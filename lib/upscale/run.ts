// Running one queued upscale: the version made in a work folder inside the shot folder, from the take (or with
// `from_upscale` from its upscale), moved to `<stem>.up.mp4`, and the record closed with the saver's fields
// (status, finished, frames, width, height, mp4, audio, encoder, save_ms, save_notes). The built-in lane scales by
// ffmpeg's lanczos; a ComfyUI lane runs the finishing graphs and the take's audio stream is copied back in as it
// is. A failure closes the record `failed` with the reason; a person's cancel closes it "canceled"; a worker that
// stops leaves it queued for the job's next run.
import { rm } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import type { Engine } from "../engines/types.ts";
import { shotFolder } from "../episode/takes.ts";
import { countFrames, probe, runFfmpeg } from "../media/ffmpeg.ts";
import { type ResampleSpec, resampleVideo } from "../media/resample.ts";
import { episodeFence, mkdirShow, renameShow } from "../paths/guarded.ts";
import { localIso } from "../render/time.ts";
import { errorMessage, type JsonObject } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import { jobWorkPath } from "../store/temp-names.ts";
import { comfyUpscale, sourceVideo } from "./comfy.ts";
import { upJsonName, upMp4Name } from "./fresh.ts";
import type { PlannedUpscale } from "./plan.ts";
import { readRecordNow, type UpscalePayload, upscaleEvent, writeUpscaleRecord } from "./queue.ts";

export const BUILTIN_LANE = "builtin";

export interface UpscaleRunHooks {
  signal: AbortSignal;
  progress(share: number, step?: string): void;
  emit(kind: string, data: unknown): void;
  engine(backend: string): Engine;
  /** After an abort: whether a person canceled the job (else the worker stopped and the job runs again). */
  canceledByUser(): Promise<boolean>;
}

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

/** Whether the record on disk is still the one this job was queued for (a redo rewrites it with a new job). */
const ours = (rec: JsonObject | null, jobId: string): rec is JsonObject =>
  rec?.status === "queued" && rec.job === jobId;

/** Rewrite the record with `fields` while it is still this job's; answers whether it did. */
export async function updateOwnRecord(
  services: Pick<Services, "caches" | "locks">,
  p: Pick<UpscalePayload, "ep" | "pass" | "shot" | "stem">,
  jobId: string,
  fields: JsonObject,
): Promise<boolean> {
  const json = path.join(shotFolder(p.ep, p.pass, p.shot), upJsonName(p.stem));
  return withLock(services, p.ep, async () => {
    const now = await readRecordNow(p.ep, json);
    if (!ours(now, jobId)) return false;
    await writeUpscaleRecord(services, p.ep, json, { ...now, ...fields });
    return true;
  });
}

export async function runUpscale(
  services: Services,
  jobId: string,
  p: UpscalePayload,
  hooks: UpscaleRunHooks,
): Promise<void> {
  const dir = shotFolder(p.ep, p.pass, p.shot);
  if (!ours(await readRecordNow(p.ep, path.join(dir, upJsonName(p.stem))), jobId)) return;
  const started = Date.now();
  const workDir = jobWorkPath(dir, p.stem, jobId);
  const file = upMp4Name(p.stem);
  try {
    // `from_upscale` builds on the upscale's bytes; everything else on the take's.
    const src = path.join(dir, p.plan.on_upscale ? file : `${p.stem}.mp4`);
    const facts = await probe(src, services.media);
    const hasAudio = facts.audio !== null;
    await mkdirShow(episodeFence(p.ep), workDir);
    const made = path.join(workDir, file);
    const notes: string[] = [];
    let encoder: string;
    let audioMs = 0;
    if (p.lane === BUILTIN_LANE) {
      hooks.progress(0, "lanczos");
      const done = await resampleVideo(services, src, made, resampleSpec(p.plan), {
        signal: hooks.signal,
        progress: (share) => hooks.progress(Math.min(0.95, share), "lanczos"),
      });
      encoder = done.encoder;
    } else {
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
            await updateOwnRecord(services, p, jobId, { comfy_prompt_id: id, backend_prompt_id: id });
          },
        },
      );
      notes.push(...graph.notes);
      hooks.progress(0.95, "audio");
      const audioStart = Date.now();
      // The saver re-encodes the sound it is given: the source's own audio stream goes back in untouched.
      await runFfmpeg(
        [
          ...["-i", graph.video, "-i", src, "-map", "0:v:0", "-map", "1:a?", "-c", "copy"],
          ...["-movflags", "+faststart", "-f", "mp4", made],
        ],
        { media: services.media, signal: hooks.signal },
      );
      audioMs = Date.now() - audioStart;
      encoder = (await probe(graph.video, services.media)).video?.codec ?? "unknown";
    }
    const [frames, out] = await Promise.all([countFrames(made, services.media), probe(made, services.media)]);
    await renameShow(episodeFence(p.ep), made, path.join(dir, file));
    const total = Date.now() - started;
    const audio = hasAudio ? "copied" : "none";
    const closed = await updateOwnRecord(services, p, jobId, {
      status: "ok",
      finished: localIso(services.now()),
      frames,
      width: out.video?.width ?? p.plan.width,
      height: out.video?.height ?? p.plan.height,
      mp4: file,
      audio,
      encoder,
      save_ms: { mp4: total - audioMs, audio: audioMs, total },
      save_notes: `${file}: mp4 written (${encoder}); ${hasAudio ? "take's audio copied" : "the take is mute"}${notes.length ? `; ${notes.join("; ")}` : ""}`,
    });
    if (closed) hooks.emit("studio.upscale", upscaleEvent(p.ep, p.shot, p.take, "ok"));
    hooks.progress(1);
  } catch (err) {
    if (hooks.signal.aborted && !(await hooks.canceledByUser())) throw err;
    const why = hooks.signal.aborted ? "canceled" : errorMessage(err);
    const closed = await updateOwnRecord(services, p, jobId, {
      status: "failed",
      finished: localIso(services.now()),
      mp4: null,
      save_notes: `${file} failed: ${why}`,
    }).catch(() => false);
    if (closed) hooks.emit("studio.upscale", upscaleEvent(p.ep, p.shot, p.take, "failed"));
    throw err;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
