// What an upscale job and a post job both do around the making of their video: leave a record another job now owns
// alone, make the video in a work folder inside the shot folder, move it to its name, close the record with the
// saver's fields (status, finished, frames, width, height, mp4, audio, encoder, save_ms, save_notes) or `failed`
// with the reason ("canceled" for a person's cancel; a stopping worker leaves it queued for the job's next run),
// and send the event. Also the two steps of a ComfyUI lane: one finishing graph through the engine, and the
// source's own audio stream copied back in as it is (the graph's saver re-encodes the sound it is given).
import { rm } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import type { Engine, EngineJob, EngineProgress, RunHooks, Submitted } from "../engines/types.ts";
import { shotFolder } from "../episode/takes.ts";
import type { JobContext } from "../jobs/kinds.ts";
import { countFrames, probe, runFfmpeg } from "../media/ffmpeg.ts";
import { episodeFence, mkdirShow, renameShow } from "../paths/guarded.ts";
import { localIso } from "../render/time.ts";
import { errorMessage, type JsonObject } from "../store/json-guards.ts";
import { jobWorkPath } from "../store/temp-names.ts";
import type { BuiltGraph } from "./graphs/index.ts";
import {
  failedFields,
  stillOurs,
  updateOwnRecord,
  type VersionKind,
  type VersionRef,
  versionEvent,
  versionEventType,
  versionMp4Name,
} from "./version-record.ts";

/** The lane of the built-in engine (ffmpeg, no GPU), where both kinds run without a ComfyUI. */
export const BUILTIN_LANE = "builtin";

export interface FinishRunHooks {
  signal: AbortSignal;
  progress(share: number, step?: string): void;
  emit(kind: string, data: unknown): void;
  engine(backend: string): Engine;
  /** After an abort: whether a person canceled the job (else the worker stopped and the job runs again). */
  canceledByUser(): Promise<boolean>;
}

/** A worker's job context as the version job's hooks: progress, events, engines, and whether a person canceled. */
export function versionJobHooks(job: { id: string }, ctx: JobContext): FinishRunHooks {
  return {
    signal: ctx.signal,
    progress: (share, step) => ctx.progress({ progress: share, ...(step ? { step } : {}) }),
    emit: (kind, data) => ctx.emit(kind, data),
    engine: (backend) => ctx.engine(backend),
    canceledByUser: async () => {
      const now = await ctx.store.get(job.id).catch(() => null);
      return now === null || now.cancel_requested || now.status === "canceled";
    },
  };
}

/** What making the video answers, for the record. */
export interface MadeVersion {
  encoder: string;
  /** What the video was made from, as the notes name it ("take", "upscale"). */
  from: string;
  notes: string[];
  /** Milliseconds spent copying the source's audio back in (0 when the encode carried it). */
  audioMs: number;
  /** The size asked, for a file whose size the probe does not tell. */
  width: number;
  height: number;
  /** The frames the video must have (its source's), or null when not checked. */
  frames: number | null;
  /** Fields of this kind of record (the post's source stamp and blur method). */
  fields?: JsonObject;
}

/** Run one version job: `make` writes the video at the path it is given, inside this job's work folder. */
export async function runVersionJob(
  services: Services,
  kind: VersionKind,
  jobId: string,
  r: VersionRef & { take: number },
  hooks: FinishRunHooks,
  make: (made: string, workDir: string) => Promise<MadeVersion>,
): Promise<void> {
  if (!(await stillOurs(kind, r, jobId))) return;
  const started = Date.now();
  const dir = shotFolder(r.ep, r.pass, r.shot);
  const workDir = jobWorkPath(dir, r.stem, jobId);
  const file = versionMp4Name(kind, r.stem);
  const event = versionEventType(kind);
  try {
    await mkdirShow(episodeFence(r.ep), workDir);
    const made = path.join(workDir, file);
    const m = await make(made, workDir);
    const [frames, out] = await Promise.all([countFrames(made, services.media), probe(made, services.media)]);
    if (m.frames !== null && m.frames !== frames)
      throw new Error(`the ${kind} has ${frames} frames where its ${m.from} has ${m.frames}`);
    await renameShow(episodeFence(r.ep), made, path.join(dir, file));
    const total = Date.now() - started;
    const audio = out.audio ? "copied" : "none";
    const notes = m.notes.length ? `; ${m.notes.join("; ")}` : "";
    const closed = await updateOwnRecord(services, kind, r, jobId, {
      ...m.fields,
      status: "ok",
      finished: localIso(services.now()),
      frames,
      width: out.video?.width ?? m.width,
      height: out.video?.height ?? m.height,
      mp4: file,
      audio,
      encoder: m.encoder,
      save_ms: { mp4: total - m.audioMs, audio: m.audioMs, total },
      save_notes: `${file}: mp4 written (${m.encoder}); ${audio === "copied" ? `the ${m.from}'s audio copied` : `the ${m.from} is mute`}${notes}`,
    });
    if (closed) hooks.emit(event, versionEvent(r.ep, r.shot, r.take, "ok"));
    hooks.progress(1);
  } catch (err) {
    if (hooks.signal.aborted && !(await hooks.canceledByUser())) throw err;
    const why = hooks.signal.aborted ? "canceled" : errorMessage(err);
    const closed = await updateOwnRecord(
      services,
      kind,
      r,
      jobId,
      failedFields(kind, r.stem, why, services.now()),
    ).catch(() => false);
    if (closed) hooks.emit(event, versionEvent(r.ep, r.shot, r.take, "failed"));
    throw err;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

export interface GraphStepHooks {
  signal: AbortSignal;
  progress(share: number, step?: string): void;
  /** The backend accepted the graph: its prompt id goes into the record. */
  submitted(promptId: string): Promise<void>;
}

/**
 * One finishing graph through the engine (prepare, submit, collect), its progress mapped into `share` of the job;
 * answers the collected video and the notes of the graph and the engine. A cancel cancels it on the backend too.
 */
export async function runFinishGraph(
  engine: Engine,
  job: EngineJob,
  built: BuiltGraph,
  hooks: GraphStepHooks,
  at: { kind: VersionKind; step: string; share: [number, number] },
): Promise<{ video: string; notes: string[] }> {
  const { share, step } = at;
  const runHooks: RunHooks = {
    signal: hooks.signal,
    onProgress: (e: EngineProgress) => hooks.progress(share[0] + (share[1] - share[0]) * e.progress, step),
  };
  let submitted: Submitted | null = null;
  try {
    const prepared = await engine.prepare(job, runHooks);
    submitted = await engine.submit(job, prepared, runHooks);
    await hooks.submitted(submitted.backendPromptId);
    const outputs = await engine.collect(job, submitted, runHooks);
    if (!outputs.video) throw new Error(`ComfyUI finished the ${at.kind} without a video`);
    return { video: outputs.video, notes: [...built.notes, ...prepared.notes, ...outputs.notes] };
  } catch (err) {
    if (hooks.signal.aborted) await engine.cancel(job, submitted).catch(() => {});
    throw err;
  }
}

/**
 * The graph's picture with the source's own audio stream, copied bit for bit (none when the source is mute), into
 * `out`; answers the milliseconds it took and the graph's video encoder.
 */
export async function withSourceAudio(
  services: Pick<Services, "media">,
  video: string,
  source: string,
  out: string,
  signal: AbortSignal,
): Promise<{ ms: number; encoder: string }> {
  const start = Date.now();
  await runFfmpeg(
    [
      ...["-i", video, "-i", source, "-map", "0:v:0", "-map", "1:a?", "-c", "copy"],
      ...["-movflags", "+faststart", "-f", "mp4", out],
    ],
    { media: services.media, signal },
  );
  const ms = Date.now() - start;
  return { ms, encoder: (await probe(video, services.media)).video?.codec ?? "unknown" };
}
