// A planned upscale on a ComfyUI backend: the finishing graph for its method (pixel model, SeedVR2, or the take's
// own second stage, then its `then` step on the result), each step run through the engine (prepare, submit with
// the prompt id recorded, collect), answering the video the last step delivered and what the graphs say they
// do not do.
import path from "node:path";
import type { Services } from "../context.ts";
import type { Engine, EngineJob } from "../engines/types.ts";
import { countFrames, probe } from "../media/ffmpeg.ts";
import { engineJobFor, frozenEntry } from "../render/engine-job.ts";
import { readSidecarNow } from "../render/sidecar.ts";
import { type GraphStepHooks, runFinishGraph } from "./finish-run.ts";
import { type BuiltGraph, type SourceVideo, upscaleGraph } from "./graphs/index.ts";
import type { PlannedUpscale } from "./plan.ts";
import type { UpscalePayload } from "./queue.ts";

/** SeedVR2 and SUPIR seeds (upscale and post): the take's seed mod 2^50 (0 when the take has none). */
export function derivedSeed(seed: string | null): number {
  if (seed === null || !/^\d+$/.test(seed)) return 0;
  return Number(BigInt(seed) % (1n << 50n));
}

/** The video as a graph reads it: size, rate and frames probed. */
export async function sourceVideo(services: Pick<Services, "media">, file: string): Promise<SourceVideo> {
  const [facts, frames] = await Promise.all([probe(file, services.media), countFrames(file, services.media)]);
  return {
    file,
    width: facts.video?.width ?? 0,
    height: facts.video?.height ?? 0,
    fps: facts.video?.fps ?? 24,
    frames,
  };
}

/** The take's graph as its render patched it (prompt, seed, model files), for a second stage to continue. */
async function takeGraphOf(services: Services, p: UpscalePayload, lane: string, workDir: string) {
  const t = { ep: p.ep, pass: p.pass, shot: p.shot, take: p.take };
  const sidecar = await readSidecarNow(t);
  if (!sidecar || typeof sidecar.target !== "string") {
    throw new Error(`${p.stem}'s sidecar does not say which target rendered it`);
  }
  const { job } = await engineJobFor({
    services,
    t,
    payload: {
      ...t,
      stem: p.stem,
      target: sidecar.target,
      backend: lane,
      chain: null,
      first_frame: null,
      save_frames: false,
      save_latent: false,
    },
    sidecar,
    entry: await frozenEntry(t),
    vi: null,
    workDir,
  });
  if (!job.graph) throw new Error(`${sidecar.target} renders no ComfyUI graph to continue from`);
  return job.graph;
}

const fitOf = (plan: PlannedUpscale) => (plan.deliver ? plan.fit : null);

/** The first graph of a plan: its method on the source. */
async function firstGraph(
  services: Services,
  p: UpscalePayload,
  lane: string,
  source: SourceVideo,
  workDir: string,
): Promise<BuiltGraph> {
  const plan = p.plan;
  const prefix = `studio/${p.stem}.up`;
  // Without a `then` step the first graph delivers the planned size; with one it delivers what the re-sample makes.
  const first = plan.then_pixel
    ? { width: plan.then_pixel.from[0], height: plan.then_pixel.from[1], fit: null }
    : { width: plan.width, height: plan.height, fit: fitOf(plan) };
  if (plan.method === "pixel") {
    return upscaleGraph({ method: "pixel", model: plan.pixel_model ?? "", source, out: first, prefix });
  }
  if (plan.method === "seedvr2") {
    return upscaleGraph({
      method: "seedvr2",
      model: plan.seedvr2_model ?? "7b",
      seed: derivedSeed(plan.seed),
      source,
      out: first,
      prefix,
    });
  }
  if (plan.method !== "latent") throw new Error(`the ${plan.method} method does not run on ComfyUI`);
  const mode = plan.mode === "second_stage" || plan.mode === "pixel_refine" ? plan.mode : "resample";
  const latentFile = path.join(path.dirname(source.file), `${p.stem}.latent.safetensors`);
  return upscaleGraph({
    method: "latent",
    mode,
    take_graph: mode === "second_stage" ? await takeGraphOf(services, p, lane, workDir) : {},
    start_step: plan.start_step ?? 0,
    seed: BigInt(plan.seed ?? 0),
    route: plan.route === "latent" ? "latent" : "vae",
    latent_file: plan.route === "latent" ? latentFile : null,
    upscaler: plan.pixel_model,
    source,
    out: first,
    prefix,
  });
}

/** The `then` step's graph on the re-sample's frames. */
function thenGraph(p: UpscalePayload, source: SourceVideo): BuiltGraph {
  const plan = p.plan;
  const then = plan.then_pixel;
  if (!then) throw new Error("no then step");
  const out = { width: plan.width, height: plan.height, fit: fitOf(plan) };
  const prefix = `studio/${p.stem}.up.then`;
  return then.method === "seedvr2"
    ? upscaleGraph({
        method: "seedvr2",
        model: then.model,
        seed: derivedSeed(plan.seed),
        source,
        out,
        prefix,
      })
    : upscaleGraph({ method: "pixel", model: then.model, source, out, prefix });
}

/** The engine job of one step: the plan's size and seed, the step's source as its input. */
function stepJob(p: UpscalePayload, built: BuiltGraph, source: SourceVideo, workDir: string): EngineJob {
  return {
    kind: "video",
    target: p.plan.target ?? "upscale",
    ep: p.ep,
    pass: p.pass,
    subject: p.shot,
    take: p.take,
    stem: `${p.stem}.up`,
    width: p.plan.width,
    height: p.plan.height,
    fps: source.fps,
    frames: source.frames,
    seed: BigInt(p.plan.seed ?? 0),
    prompt: "",
    negative: null,
    entry: {},
    inputs: { take: source.file },
    workDir,
    graph: built.graph,
  };
}

/** The planned upscale made on `engine`: the video of its last step (inside `workDir`) and the graphs' notes. */
export async function comfyUpscale(
  services: Services,
  engine: Engine,
  p: UpscalePayload,
  source: SourceVideo,
  workDir: string,
  hooks: GraphStepHooks,
): Promise<{ video: string; notes: string[] }> {
  const built = await firstGraph(services, p, engine.backend, source, workDir);
  const thenStep = p.plan.then_pixel !== null;
  const first = await runFinishGraph(engine, stepJob(p, built, source, workDir), built, hooks, {
    kind: "upscale",
    step: p.plan.mode,
    share: [0, thenStep ? 0.45 : 0.9],
  });
  if (!thenStep) return first;
  const middle = await sourceVideo(services, first.video);
  const then = thenGraph(p, middle);
  const second = await runFinishGraph(engine, stepJob(p, then, middle, workDir), then, hooks, {
    kind: "upscale",
    step: p.plan.then_pixel?.method ?? "pixel",
    share: [0.45, 0.9],
  });
  return { video: second.video, notes: [...first.notes, ...second.notes] };
}
