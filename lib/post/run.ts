// Running one queued post (`<stem>.post.mp4`, through the version job of lib/upscale/finish-run.ts): the upscale
// checked still fresh and its stamp recorded, then the built-in lane blends frames with ffmpeg, or a ComfyUI lane
// runs the post graph and the upscale's audio is copied back in. The post keeps its upscale's frame count. A post
// queued behind an upscale job ends failed, saying so, when that job did not make its upscale.
import type { Services } from "../context.ts";
import type { EngineJob } from "../engines/types.ts";
import { probe } from "../media/ffmpeg.ts";
import { sourceVideo } from "../upscale/comfy.ts";
import {
  BUILTIN_LANE,
  type FinishRunHooks,
  runFinishGraph,
  runVersionJob,
  withSourceAudio,
} from "../upscale/finish-run.ts";
import { sourceStamp, upscaleOf } from "../upscale/fresh.ts";
import { updateOwnRecord } from "../upscale/version-record.ts";
import { BLUR_METHOD, blurEncoder, runBlur } from "./blur.ts";
import { postGraphRequest } from "./comfy.ts";
import { postGraph, RAFT_LARGE } from "./graphs/index.ts";
import type { PostPayload } from "./payload.ts";
import type { Enhance } from "./recipe.ts";

export type PostRunHooks = FinishRunHooks;

/** The upscale job a post was queued behind, as it ended. */
export interface AwaitedUpscale {
  id: string;
  status: string;
  error: string | null;
}

/** Why a post cannot be made from the upscale job it waited for, or null when that job made it. */
export function awaitedProblem(job: AwaitedUpscale, record: Record<string, unknown> | null): string | null {
  const nothing = "no post made: upscale it, then post again";
  if (job.status === "canceled") return `its upscale (job ${job.id}) was canceled: ${nothing}`;
  if (job.status === "failed")
    return `its upscale (job ${job.id}) failed${job.error ? ` (${job.error})` : ""}: ${nothing}`;
  if (job.status !== "succeeded") return `its upscale (job ${job.id}) has not ended (${job.status})`;
  if (record?.job !== job.id)
    return `its upscale was queued again by another job after this post was queued: post it once that one is done`;
  return null;
}

/** The post graph run on a ComfyUI lane; answers the video it delivered and the graph's notes. */
async function comfyPost(
  services: Services,
  jobId: string,
  lane: string,
  p: PostPayload,
  upMp4: string,
  workDir: string,
  hooks: PostRunHooks,
): Promise<{ video: string; notes: string[] }> {
  const source = { ...(await sourceVideo(services, upMp4)), width: p.width, height: p.height };
  const built = postGraph(
    postGraphRequest(
      { enhance: p.settings.enhance as Enhance | null, motion_blur: p.settings.motion_blur },
      source,
      p.seed,
      p.stem,
    ),
  );
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
    fps: source.fps,
    frames: source.frames,
    seed: BigInt(p.seed ?? 0),
    prompt: "",
    negative: null,
    entry: {},
    inputs: { upscale: upMp4 },
    workDir,
    graph: built.graph,
  };
  const graphHooks = {
    signal: hooks.signal,
    progress: hooks.progress,
    submitted: async (id: string) => {
      await updateOwnRecord(services, "post", p, jobId, { comfy_prompt_id: id, backend_prompt_id: id });
    },
  };
  return runFinishGraph(hooks.engine(lane), job, built, graphHooks, {
    kind: "post",
    step: "post",
    share: [0, 0.9],
  });
}

export async function runPost(
  services: Services,
  jobId: string,
  lane: string,
  p: PostPayload,
  hooks: PostRunHooks,
  awaited: AwaitedUpscale | null = null,
): Promise<void> {
  await runVersionJob(services, "post", jobId, p, hooks, async (made, workDir) => {
    const up = await upscaleOf(services, p.ep, p.pass, p.shot, p.take);
    const problem = awaited ? awaitedProblem(awaited, up?.record ?? null) : null;
    if (problem) throw new Error(problem);
    if (!up?.fresh || !up.mp4)
      throw new Error(
        "its upscale changed or went away after the post was queued: upscale it, then post again",
      );
    const stamp = await sourceStamp(p.ep, up.mp4);
    if (!stamp) throw new Error("the upscale's mp4 went away before the post started");
    const base = {
      from: "upscale",
      width: p.width,
      height: p.height,
      frames: typeof up.record?.frames === "number" ? up.record.frames : null,
    };
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
      return {
        ...base,
        encoder: blurEncoder(p.quality),
        notes: [`motion blur ${p.settings.motion_blur} by ${BLUR_METHOD}`],
        audioMs: 0,
        fields: { ...stamp, motion_blur_method: BLUR_METHOD },
      };
    }
    const graph = await comfyPost(services, jobId, lane, p, up.mp4, workDir, hooks);
    hooks.progress(0.95, "audio");
    const audio = await withSourceAudio(services, graph.video, up.mp4, made, hooks.signal);
    return {
      ...base,
      encoder: audio.encoder,
      notes: graph.notes,
      audioMs: audio.ms,
      fields: {
        ...stamp,
        ...(p.settings.motion_blur > 0
          ? { motion_blur_method: `optical flow (H3MotionBlur, ${RAFT_LARGE})` }
          : {}),
      },
    };
  });
}
