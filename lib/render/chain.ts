// Latent chains (contract rendering rule 8): at job start the take the cut plays before a `continuous: latent`
// shot is found, its kept latent (else its video, re-encoded through the target's VAE) staged for upload, and the
// target's hold node spliced in front of the sampler, so the new render starts from the end of the previous one.
import { copyFile } from "node:fs/promises";
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { readCutList } from "../episode/cut.ts";
import type { Build } from "../episode/shotlists.ts";
import { shotFolder } from "../episode/takes.ts";
import type { Job, JobStore } from "../jobs/types.ts";
import { episodeFence, fileInside, mkdirShow } from "../paths/guarded.ts";
import { isObject, num } from "../store/json-guards.ts";
import { type ApiGraph, GraphError, isLink, type Link, nodesOf } from "../targets/graph.ts";
import type { TargetSpec } from "../targets/registry.ts";
import { playing, previousInCut } from "./continuity.ts";
import type { RenderPayload } from "./payload.ts";

const two = (n: number) => String(n).padStart(2, "0");

/** What a chained take holds of the take before it. */
export interface HoldSource {
  shot: string;
  take: number;
  pass: Pass;
  /** `latent`: the kept latent file; `frames`: the take's video, re-encoded. */
  via: "latent" | "frames";
  /** The file held (absolute, inside the episode). */
  file: string;
  /** Frames of the previous take (null when its sidecar does not say). */
  frames: number | null;
}

/** The grid a target's frame counts lie on (`base + k·step`), as its template declares it. */
function frameGrid(spec: TargetSpec): { step: number; base: number } | null {
  const f = spec.template.frames;
  if (!isObject(f)) return null;
  const step = num(f.step);
  const base = num(f.base);
  return step !== null && base !== null && step > 0 ? { step, base } : null;
}

/** The frames held: the build's `hold` for the shot, else the target's overlap (default 39) rounded up to its frame grid, no more than the previous take has. */
export function holdFrames(spec: TargetSpec, previous: number | null, built?: number | null): number {
  const asked = built ?? num(spec.continuous?.latent?.overlap) ?? 39;
  const grid = frameGrid(spec);
  let frames = asked;
  if (grid && asked > grid.base) frames = grid.base + Math.ceil((asked - grid.base) / grid.step) * grid.step;
  if (previous !== null && previous > 0 && frames > previous) frames = previous;
  return Math.max(1, frames);
}

/**
 * Latent steps `frames` make on the target's grid: H3's `17k+5` clips are `5k+2` steps; grids of `1 + k·step`
 * (LTX's 8k+1) are `k+1`; null for any other grid.
 */
export function videoSteps(spec: TargetSpec, frames: number): number | null {
  const grid = frameGrid(spec);
  if (!grid) return null;
  if (grid.step === 17 && grid.base === 5) return frames > 5 ? Math.floor((frames - 5) / 17) * 5 + 2 : 2;
  if (grid.base === 1) return Math.floor((frames - 1) / grid.step) + 1;
  return null;
}

/** Whether the target holds its sound too (`continuous.latent.hold_audio`, default true). */
const holdsAudio = (spec: TargetSpec) => spec.continuous?.latent?.hold_audio !== false;

/** The sidecar's `hold` (frames held) and `continued_from` for a hold. */
export function holdRecord(
  spec: TargetSpec,
  src: HoldSource,
  fps: number,
  built?: number | null,
): { hold: number; continued_from: Record<string, unknown> } {
  const overlap = holdFrames(spec, src.frames, built);
  const continued: Record<string, unknown> = {
    shot: src.shot,
    take: src.take,
    pass: src.pass,
    via: src.via,
    overlap,
  };
  const steps = videoSteps(spec, overlap);
  if (steps !== null) continued.video_steps = steps;
  // Sound latents run at 40 steps a second on the targets that hold sound (39 frames at 24 fps = 65).
  if (holdsAudio(spec)) continued.audio_steps = Math.round((overlap / fps) * 40);
  return { hold: overlap, continued_from: continued };
}

/**
 * The take the cut plays before `shot` now and the file to hold of it: its kept latent, else its video. Null when
 * the shot leads the cut (nothing to continue); an error naming the problem when the shot before it has nothing.
 */
export async function findHold(
  services: Pick<Services, "caches">,
  ep: string,
  pass: Pass,
  build: Build,
  shot: string,
): Promise<HoldSource | { error: string } | null> {
  const cut = await readCutList(services, ep, pass);
  const prev = previousInCut(cut, build, shot);
  if (!prev) return null;
  const pick = await playing(services, ep, pass, prev);
  const lead = `${shot} continues ${prev.shot} (continuous: latent)`;
  if (!pick.take || pick.number === null || !pick.usable) {
    const which = pick.number !== null ? ` (the cut plays t${two(pick.number)}, which is not usable)` : "";
    return {
      error: `${lead} but ${prev.shot} has no finished take to hold${which}: render ${prev.shot} first, or both in one request`,
    };
  }
  const fence = episodeFence(ep);
  const folder = shotFolder(ep, pick.pass, prev.shot);
  const sc = pick.take.sidecar;
  const frames = num(sc?.frames) ?? num(sc?.length);
  const base = { shot: prev.shot, take: pick.number, pass: pick.pass, frames };
  const latentName =
    typeof sc?.latent === "string" && sc.latent ? sc.latent : `${pick.take.stem}.latent.safetensors`;
  const latent = await fileInside(fence, path.join(folder, path.basename(latentName)));
  if (latent) return { ...base, via: "latent", file: latent };
  const mp4 = typeof sc?.mp4 === "string" && sc.mp4 ? sc.mp4 : `${pick.take.stem}.mp4`;
  const video = await fileInside(fence, path.join(folder, path.basename(mp4)));
  if (video) return { ...base, via: "frames", file: video };
  return {
    error: `${lead} but ${prev.shot} t${two(pick.number)} has neither a kept latent nor a video to hold`,
  };
}

/**
 * The file the engine uploads for a hold. ComfyUI's `LoadLatent` reads only `.latent` files (safetensors inside),
 * so a kept `<stem>.latent.safetensors` is staged in the work folder under a `.latent` name; a video goes as it is.
 */
export async function stageHold(src: HoldSource, workDir: string): Promise<string> {
  if (src.via !== "latent") return src.file;
  const staged = path.join(
    workDir,
    `${path.basename(src.file).replace(/\.latent\.safetensors$|\.safetensors$/, "")}.latent`,
  );
  await copyFile(src.file, staged);
  return staged;
}

/** What the engine job needs to hold the previous take: the staged file and the hold's size. */
export interface ChainHold {
  via: "latent" | "frames";
  /** Absolute path the engine uploads (its uploaded name replaces it in the graph). */
  file: string;
  /** The shot held and its pass (the hold node's own record). */
  shot: string;
  pass: Pass;
  overlap: number;
  fps: number;
}

const nextId = (g: ApiGraph) => {
  let n = 1;
  for (const id of Object.keys(g)) {
    const v = Number(id);
    if (Number.isInteger(v) && v >= n) n = v + 1;
  }
  return () => String(n++);
};

/** Whether node `id` reads (through any links) a node of `cls` other than itself. */
function downstreamOf(g: ApiGraph, id: string, cls: string): boolean {
  const seen = new Set<string>();
  const stack = Object.values(g[id].inputs)
    .filter(isLink)
    .map((l) => l[0]);
  while (stack.length) {
    const n = stack.pop() as string;
    if (seen.has(n) || !g[n]) continue;
    seen.add(n);
    if (n !== id && g[n].class_type === cls) return true;
    for (const v of Object.values(g[n].inputs)) if (isLink(v)) stack.push(v[0]);
  }
  return false;
}

/**
 * Splice the target's hold node (`continuous.latent.node`, default the project pack's `H3ChainLatent`) between the
 * first sampler's latent input (`continuous.latent.sampler`) and its source, fed the previous take's latent through
 * core `LoadLatent`, or its frames through core `LoadVideo` → `GetVideoComponents` → `VAEEncode` with the target's
 * video VAE (`continuous.latent.video_vae`: class, output, and a title when the class is not alone). `file` is the absolute path the engine swaps for the uploaded name.
 */
export function holdInGraph(spec: TargetSpec, graph: ApiGraph, hold: ChainHold): ApiGraph {
  const g = structuredClone(graph);
  const lat = isObject(spec.continuous?.latent) ? spec.continuous.latent : {};
  const sampler = isObject(lat.sampler) ? lat.sampler : {};
  const cls = typeof sampler.class === "string" ? sampler.class : "SamplerCustomAdvanced";
  const input = typeof sampler.input === "string" ? sampler.input : "latent_image";
  const node = typeof lat.node === "string" ? lat.node : "H3ChainLatent";
  // The first stage's sampler: the one no other sampler of its class feeds.
  const firsts = nodesOf(g, cls).filter((id) => isLink(g[id].inputs[input]) && !downstreamOf(g, id, cls));
  if (firsts.length !== 1) {
    throw new GraphError(
      spec.id,
      `continuous.latent.sampler: ${firsts.length} first-stage ${cls} nodes with a linked ${input} (want one)`,
    );
  }
  const at = firsts[0];
  const id = nextId(g);
  let previous: Link;
  if (hold.via === "latent") {
    const load = id();
    g[load] = {
      class_type: "LoadLatent",
      inputs: { latent: hold.file },
      _meta: { title: "previous take's latent (studio)" },
    };
    previous = [load, 0];
  } else {
    const vaeSpec = isObject(lat.video_vae) ? lat.video_vae : null;
    const vaeClass = typeof vaeSpec?.class_type === "string" ? vaeSpec.class_type : null;
    const title = typeof vaeSpec?.title === "string" ? vaeSpec.title : null;
    const vaes = (vaeClass ? nodesOf(g, vaeClass) : []).filter((v) => !title || g[v]._meta?.title === title);
    if (!vaeSpec || vaes.length !== 1) {
      throw new GraphError(
        spec.id,
        `continuous.latent.video_vae: ${vaeClass ? `${vaes.length} ${vaeClass} nodes${title ? ` titled "${title}"` : ""} (want one)` : "not declared"}, so the previous take's frames cannot be encoded`,
      );
    }
    const load = id();
    g[load] = {
      class_type: "LoadVideo",
      inputs: { file: hold.file },
      _meta: { title: "previous take's video (studio)" },
    };
    const parts = id();
    g[parts] = { class_type: "GetVideoComponents", inputs: { video: [load, 0] } };
    const encode = id();
    g[encode] = {
      class_type: "VAEEncode",
      inputs: { pixels: [parts, 0], vae: [vaes[0], num(vaeSpec.output) ?? 0] },
      _meta: { title: "previous take's frames encoded (studio)" },
    };
    previous = [encode, 0];
  }
  const holder = id();
  g[holder] = {
    class_type: node,
    inputs: {
      latent: g[at].inputs[input],
      project_root: "",
      shot: hold.shot,
      pass_: hold.pass,
      previous_latent: previous,
      overlap: hold.overlap,
      hold_audio: holdsAudio(spec),
      fps: hold.fps,
    },
    _meta: { title: "chain hold (studio)" },
  };
  g[at].inputs[input] = [holder, 0];
  return g;
}

/** What a chained job holds at its start, and what its sidecar records of it. */
export interface HoldAtStart {
  hold: ChainHold;
  record: { hold: number; continued_from: Record<string, unknown> };
}

/**
 * At job start of a `continuous: latent` take: the job it waited on must have ended well (a canceled or failed
 * predecessor breaks the chain: this take fails too, and retrying that one queues the rest again), then the take
 * the cut plays before it is held. Null when the shot leads the cut. Throws the reason when there is nothing to hold.
 */
export async function holdAtStart(input: {
  services: Pick<Services, "caches">;
  store: Pick<JobStore, "get">;
  after: string | null;
  ep: string;
  pass: Pass;
  shot: string;
  build: Build;
  spec: TargetSpec;
  fps: number;
  /** The hold the build wrote into the shot's entry (`hold`), when it did. */
  built?: number | null;
  workDir: string;
}): Promise<HoldAtStart | null> {
  const { services, ep, pass, shot, spec, fps } = input;
  if (input.after) {
    const before = await input.store.get(input.after);
    if (before && (before.status === "failed" || before.status === "canceled")) {
      const what = before.status === "canceled" ? "was canceled" : "failed";
      throw new Error(
        `${CHAIN_BROKEN}: ${shot} continues ${before.title}, which ${what}; retry that take to queue the chain again`,
      );
    }
  }
  const src = await findHold(services, ep, pass, input.build, shot);
  if (src === null) return null;
  if ("error" in src) throw new Error(src.error);
  await mkdirShow(episodeFence(ep), input.workDir);
  const file = await stageHold(src, input.workDir);
  const record = holdRecord(spec, src, fps, input.built);
  return {
    hold: { via: src.via, file, shot: src.shot, pass: src.pass, overlap: record.hold, fps },
    record,
  };
}

/** How a take of a broken chain starts its reason (a retry of the take before it re-queues such takes). */
export const CHAIN_BROKEN = "chain broken";

const LIVE = new Set(["queued", "running"]);

/** The job a retried chained take waits on: the old job's predecessor while it is still queued or running. */
export async function retryAfter(
  store: Pick<JobStore, "get">,
  old: Job<RenderPayload>,
): Promise<string | null> {
  if (old.payload.chain !== "latent" || !old.after) return null;
  const before = await store.get(old.after);
  return before && LIVE.has(before.status) ? before.id : null;
}

/**
 * The upscale record's `chain_hold` for a take that held the take before it (its sidecar's `continued_from`): the
 * upscale graphs keep no latent of their own (no `<stem>.up.latent.safetensors`) and splice no hold node, so the
 * re-sample holds nothing of the previous upscale, and the record says so. Empty for any other take.
 */
export function upscaleChainHold(sidecar: Record<string, unknown> | null): Record<string, unknown> {
  const from = sidecar?.continued_from;
  if (!isObject(from) || typeof from.shot !== "string") return {};
  const take = typeof from.take === "number" ? ` t${two(from.take)}` : "";
  return {
    chain_hold: {
      file: null,
      held: 0,
      video_steps: 0,
      why: `not held: the upscale graphs keep no latent and have no hold node, so this upscale starts from the take alone, without the tail of ${from.shot}${take}'s upscale`,
    },
  };
}

/** The node classes a hold may splice in (the target's hold node, and the loaders of either route). */
export function holdClasses(spec: TargetSpec): string[] {
  const lat = isObject(spec.continuous?.latent) ? spec.continuous.latent : {};
  const node = typeof lat.node === "string" ? lat.node : "H3ChainLatent";
  return [node, "LoadLatent", "LoadVideo", "GetVideoComponents", "VAEEncode"];
}
