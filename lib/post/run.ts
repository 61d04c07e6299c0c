// Running one queued post: the upscale checked still fresh and stamped, the new version made in a work folder inside
// the shot folder (the built-in lane blends frames with ffmpeg; a ComfyUI lane runs the post graph and the upscale's
// audio is copied back in), moved to `<stem>.post.mp4`, and the record closed with the saver's fields. A failure or a
// cancel closes it `failed` with the reason.
import { rm } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import type { EngineJob, RunHooks, Submitted } from "../engines/types.ts";
import { shotFolder } from "../episode/takes.ts";
import { countFrames, probe, runFfmpeg } from "../media/ffmpeg.ts";
import { episodeFence, mkdirShow, renameShow } from "../paths/guarded.ts";
import { localIso } from "../render/time.ts";
import { errorMessage } from "../store/json-guards.ts";
import { jobWorkPath } from "../store/temp-names.ts";
import { postMp4Name, sourceStamp, upscaleOf } from "../upscale/fresh.ts";
import { BLUR_METHOD, blurEncoder, runBlur } from "./blur.ts";
import { postGraphRequest } from "./comfy.ts";
import { postGraph, RAFT_LARGE } from "./graphs/index.ts";
import type { PostPayload } from "./payload.ts";
import { BUILTIN_LANE } from "./plan.ts";
import type { Enhance } from "./recipe.ts";
import { type PostRef, postEvent, readPostNow, updatePost } from "./record.ts";

export interface PostRunHooks {
  signal: AbortSignal;
  progress(share: number, step?: string): void;
  emit(kind: string, data: unknown): void;
  /** After an abort: whether a person canceled the job (else the worker stopped and the job runs again). */
  canceledByUser(): Promise<boolean>;
}

/** Whether the record on disk is still the one this job was queued for (a redo rewrites it with a new job). */
const ours = (rec: Record<string, unknown> | null, jobId: string) =>
  rec !== null && rec.status === "queued" && (rec.job === undefined || rec.job === null || rec.job === jobId);

/** The post graph run on a ComfyUI lane; answers the video it delivered and the graph's notes. */
async function comfyPost(
  services: Services,
  lane: string,
  p: PostPayload,
  upMp4: string,
  workDir: string,
  hooks: PostRunHooks,
): Promise<{ video: string; notes: string[] }> {
  const facts = await probe(upMp4, services.media);
  const frames = await countFrames(upMp4, services.media);
  const fps = facts.video?.fps ?? 24;
  const source = { file: upMp4, width: p.width, height: p.height, fps, frames };
  const built = postGraph(
    postGraphRequest(
      { enhance: p.settings.enhance as Enhance | null, motion_blur: p.settings.motion_blur },
      source,
      p.seed,
      p.stem,
    ),
  );
  const engine = services.engines.get(lane);
  const job: EngineJob = {
    kind: "video",
    target: "post",
    ep: p.ep,
    pass: p.pass,
    subject: p.shot,
    take: p.take,
    stem: `${p.stem}.post`,
    width: p.width,
    height: p.height,
    fps,
    frames,
    seed: BigInt(p.seed ?? 0),
    prompt: "",
    negative: null,
    entry: {},
    inputs: { upscale: upMp4 },
    workDir,
    graph: built.graph,
  };
  const runHooks: RunHooks = {
    signal: hooks.signal,
    onProgress: (e) => hooks.progress(Math.min(0.9, e.progress * 0.9), e.step),
  };
  let submitted: Submitted | null = null;
  try {
    const prepared = await engine.prepare(job, runHooks);
    submitted = await engine.submit(job, prepared, runHooks);
    await updatePost(services, { ep: p.ep, pass: p.pass, shot: p.shot, stem: p.stem }, (now) =>
      now.status === "queued"
        ? {
            ...now,
            comfy_prompt_id: submitted?.backendPromptId ?? null,
            backend_prompt_id: submitted?.backendPromptId ?? null,
          }
        : null,
    );
    const outputs = await engine.collect(job, submitted, runHooks);
    if (!outputs.video) throw new Error("ComfyUI finished the post without a video");
    return { video: outputs.video, notes: [...built.notes, ...prepared.notes, ...outputs.notes] };
  } catch (err) {
    if (hooks.signal.aborted) await engine.cancel(job, submitted).catch(() => {});
    throw err;
  }
}

export async function runPost(
  services: Services,
  jobId: string,
  lane: string,
  p: PostPayload,
  hooks: PostRunHooks,
): Promise<void> {
  const ref: PostRef = { ep: p.ep, pass: p.pass, shot: p.shot, stem: p.stem };
  if (!ours(await readPostNow(ref), jobId)) return;
  const started = Date.now();
  const dir = shotFolder(p.ep, p.pass, p.shot);
  const workDir = jobWorkPath(dir, p.stem, jobId);
  try {
    const up = await upscaleOf(services, p.ep, p.pass, p.shot, p.take);
    if (!up?.fresh || !up.mp4)
      throw new Error(
        "its upscale changed or went away after the post was queued: upscale it, then post again",
      );
    const stamp = await sourceStamp(p.ep, up.mp4);
    if (!stamp) throw new Error("the upscale's mp4 went away before the post started");
    await mkdirShow(episodeFence(p.ep), workDir);
    const made = path.join(workDir, postMp4Name(p.stem));
    const notes: string[] = [];
    let encoder: string;
    let method: string | null = null;
    if (lane === BUILTIN_LANE) {
      if (p.settings.enhance)
        throw new Error(
          `the built-in engine has no enhance step (${p.settings.enhance.method} runs on ComfyUI)`,
        );
      const seconds = (await probe(up.mp4, services.media)).duration ?? 0;
      hooks.progress(0, "blur");
      await runBlur(
        { input: up.mp4, output: made, amount: p.settings.motion_blur, quality: p.quality },
        {
          media: services.media,
          signal: hooks.signal,
          onProgress: (s) => {
            if (seconds > 0) hooks.progress(Math.min(0.95, s / seconds), "blur");
          },
        },
      );
      encoder = blurEncoder(p.quality);
      method = BLUR_METHOD;
      notes.push(`motion blur ${p.settings.motion_blur} by ${BLUR_METHOD}`);
    } else {
      const graph = await comfyPost(services, lane, p, up.mp4, workDir, hooks);
      notes.push(...graph.notes);
      hooks.progress(0.95, "audio");
      // The saver re-encodes what it is given: the upscale's own audio stream goes back in untouched.
      await runFfmpeg(
        [
          "-i",
          graph.video,
          "-i",
          up.mp4,
          "-map",
          "0:v:0",
          "-map",
          "1:a?",
          "-c",
          "copy",
          "-movflags",
          "+faststart",
          "-f",
          "mp4",
          made,
        ],
        { media: services.media, signal: hooks.signal },
      );
      encoder = (await probe(graph.video, services.media)).video?.codec ?? "unknown";
      if (p.settings.motion_blur > 0) method = `optical flow (H3MotionBlur, ${RAFT_LARGE})`;
    }
    const mp4Ms = Date.now() - started;
    const [frames, facts] = await Promise.all([
      countFrames(made, services.media),
      probe(made, services.media),
    ]);
    const audio = facts.audio ? "copied" : "none";
    const upFrames = typeof up.record?.frames === "number" ? up.record.frames : null;
    if (upFrames !== null && upFrames !== frames)
      throw new Error(`the post has ${frames} frames where its upscale has ${upFrames}`);
    await renameShow(episodeFence(p.ep), made, path.join(dir, postMp4Name(p.stem)));
    const total = Date.now() - started;
    const file = postMp4Name(p.stem);
    const closed = await updatePost(services, ref, (now) =>
      ours(now, jobId)
        ? {
            ...now,
            ...stamp,
            status: "ok",
            finished: localIso(services.now()),
            frames,
            width: facts.video?.width ?? p.width,
            height: facts.video?.height ?? p.height,
            mp4: file,
            audio,
            encoder,
            ...(method ? { motion_blur_method: method } : {}),
            save_ms: { mp4: mp4Ms, audio: 0, total },
            save_notes: `${file}: mp4 written (${encoder}); ${audio === "copied" ? "the upscale's audio copied" : "the upscale is mute"}${notes.length ? `; ${notes.join("; ")}` : ""}`,
          }
        : null,
    );
    if (closed) hooks.emit("studio.post", postEvent(p.ep, p.shot, p.take, "ok"));
  } catch (err) {
    if (hooks.signal.aborted && !(await hooks.canceledByUser())) throw err;
    const why = hooks.signal.aborted ? "canceled" : errorMessage(err);
    const closed = await updatePost(services, ref, (now) =>
      ours(now, jobId)
        ? {
            ...now,
            status: "failed",
            finished: localIso(services.now()),
            save_notes: `${p.stem}.post.mp4 failed: ${why}`,
          }
        : null,
    );
    if (closed) hooks.emit("studio.post", postEvent(p.ep, p.shot, p.take, "failed"));
    throw err;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
