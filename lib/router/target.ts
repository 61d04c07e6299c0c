// A hosted model as a video target, and the provider task a take sends. A router target is a target.json with
// `backend: "router"` and a `router` block (the model id and what the model takes), saved like any custom target;
// the task is built from the take's size, length, prompt and keyframes by the one function the engine and the
// dry run share, so the dry run shows exactly what a render sends.
import { readFile } from "node:fs/promises";
import type { EngineJob } from "../engines/types.ts";
import { isObject, num, str } from "../store/json-guards.ts";
import type { TargetSpec } from "../targets/registry.ts";
import type { RouterInputs, RouterModel } from "./provider.ts";

/** Resolution at which a final is made from a draft (contract rendering rule 9). */
export const FINAL_FROM_DRAFT = "1080p";

/** The `router` block of a router target. */
export interface RouterBlock {
  model: string;
  fps: number;
  inputs: RouterInputs;
  draft: { resolution: string; days: number } | null;
  price_per_run: number;
  currency: string;
}

/** Whether a target renders on the router backend. */
export const isRouterTarget = (spec: TargetSpec | undefined): boolean =>
  spec?.backend === "router" && isObject(spec.router);

/** The router block of a router target (read loosely; a hand-edited file may lack fields). */
export function routerBlock(spec: TargetSpec): RouterBlock {
  const r = isObject(spec.router) ? spec.router : {};
  const inputs = isObject(r.inputs) ? r.inputs : {};
  const list = (v: unknown) => (Array.isArray(v) ? v : []);
  const draft = isObject(r.draft) ? r.draft : null;
  return {
    model: str(r.model) ?? "",
    fps: num(r.fps) ?? 24,
    inputs: {
      prompt: inputs.prompt !== false,
      negative: inputs.negative === true,
      first_image: inputs.first_image === true,
      last_image: inputs.last_image === true,
      durations: list(inputs.durations).filter((d): d is number => typeof d === "number" && d > 0),
      resolutions: list(inputs.resolutions).filter((d): d is string => typeof d === "string"),
      aspect_ratios: list(inputs.aspect_ratios).filter((d): d is string => typeof d === "string"),
    },
    draft: draft ? { resolution: str(draft.resolution) ?? "480p", days: num(draft.days) ?? 7 } : null,
    price_per_run: num(r.price_per_run) ?? 0,
    currency: str(r.currency) ?? "USD",
  };
}

/** Lines of a resolution name (`720p` → 720); null for a name without them. */
export function resolutionLines(name: string): number | null {
  const m = /^(\d+)p$/i.exec(name.trim());
  return m ? Number(m[1]) : null;
}

/** The 16:9 picture of a resolution name (even widths). */
export function resolutionSize(name: string): { width: number; height: number } | null {
  const h = resolutionLines(name);
  if (h === null) return null;
  return { width: Math.round((h * 16) / 9 / 2) * 2, height: h };
}

/** `router_<provider>_<name>` from a model id, in the characters a target id may hold. */
export function routerTargetId(model: string): string {
  const slug = model
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return `router_${slug || "model"}`.slice(0, 64);
}

/** The proposed target of a hosted model (POST /studio/targets/router-inspect). */
export function proposeTarget(m: RouterModel): Record<string, unknown> {
  const durations = m.inputs.durations;
  const longest = durations.length ? durations[durations.length - 1] : null;
  const sizes = m.inputs.resolutions.map(resolutionSize).filter((s) => s !== null);
  const biggest = sizes.length ? sizes[sizes.length - 1] : { width: 1920, height: 1080 };
  const smallest = m.draft
    ? (resolutionSize(m.draft.resolution) ?? sizes[0] ?? biggest)
    : (sizes[0] ?? biggest);
  const keyframes: string[] = [];
  if (m.inputs.first_image) keyframes.push("first");
  if (m.inputs.last_image) keyframes.push("last");
  return {
    id: routerTargetId(m.id),
    kind: "video",
    label: `${m.label} (hosted by ${m.provider})`,
    short: m.label,
    backend: "router",
    code: "builtin:video_prose",
    router: {
      model: m.id,
      fps: m.fps,
      inputs: m.inputs,
      draft: m.draft,
      price_per_run: m.price_per_run,
      currency: m.currency,
    },
    capabilities: {
      duration: "script",
      audio: "none",
      negative_prompt: m.inputs.negative,
      ...(longest !== null ? { max_seconds: longest } : {}),
      drafts: m.draft !== null,
    },
    template: {
      fps: m.fps,
      frames: { step: 1, base: 1, max: Math.round((longest ?? 10) * m.fps) },
      size_multiple: 2,
      size_fit: "snap",
      max_size: { long_side: biggest.width, pixels: biggest.width * biggest.height },
      size_from: "preset",
    },
    recipe: {
      policies: ["generate"],
      ...(keyframes.length ? { keyframes, keyframe_path: "refs/shots/{shot}/{end}.png" } : {}),
    },
    presets: {
      final: { width: biggest.width, height: biggest.height },
      proxy: { width: smallest.width, height: smallest.height },
    },
  };
}

/** What of a take the task is made from: the engine job's values (a dry run builds them alike). */
export type TaskSource = Pick<
  EngineJob,
  "pass" | "width" | "height" | "fps" | "frames" | "seed" | "prompt" | "negative" | "inputs"
> & {
  /** A final made from a draft: the draft's task id. */
  fromDraft?: string | null;
};

/** The shortest duration choice that holds `seconds`, else the longest; the seconds themselves without choices. */
export function pickDuration(durations: readonly number[], seconds: number): number {
  if (!durations.length) return Math.max(1, Math.ceil(seconds));
  return durations.find((d) => d >= seconds - 1e-6) ?? durations[durations.length - 1];
}

/** The smallest resolution that covers the picture's short side, else the biggest. */
export function pickResolution(resolutions: readonly string[], width: number, height: number): string {
  const short = Math.min(width, height);
  const known = resolutions
    .map((r) => ({ r, lines: resolutionLines(r) }))
    .filter((x): x is { r: string; lines: number } => x.lines !== null)
    .sort((a, b) => a.lines - b.lines);
  if (!known.length) return resolutions[0] ?? `${short}p`;
  return (known.find((x) => x.lines >= short) ?? known[known.length - 1]).r;
}

/** The aspect ratio choice nearest the picture's. */
export function pickAspect(ratios: readonly string[], width: number, height: number): string | null {
  let best: string | null = null;
  let gap = Number.POSITIVE_INFINITY;
  for (const r of ratios) {
    const m = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(r);
    if (!m) continue;
    const d = Math.abs(Math.log(Number(m[1]) / Number(m[2]) / (width / height)));
    if (d < gap) {
      gap = d;
      best = r;
    }
  }
  return best;
}

/** Whether a take on this target is made as a draft: a proxy on a model that makes drafts. */
export const makesDraft = (block: RouterBlock, pass: string): boolean =>
  pass === "proxy" && block.draft !== null;

async function picture(file: string): Promise<{ content_type: string; data_base64: string }> {
  const bytes = await readFile(file);
  const type = /\.jpe?g$/i.test(file) ? "image/jpeg" : /\.webp$/i.test(file) ? "image/webp" : "image/png";
  return { content_type: type, data_base64: bytes.toString("base64") };
}

/** The JSON body of `POST /tasks` for a take, and the notes on what was chosen. */
export async function routerTask(
  spec: TargetSpec,
  src: TaskSource,
): Promise<{ body: Record<string, unknown>; notes: string[] }> {
  const block = routerBlock(spec);
  if (!block.model) throw new Error(`target ${spec.id} names no hosted model (router.model)`);
  if (src.fromDraft) {
    return {
      body: { model: block.model, from_draft: src.fromDraft, resolution: FINAL_FROM_DRAFT },
      notes: [`made by the provider from draft task ${src.fromDraft} at ${FINAL_FROM_DRAFT}`],
    };
  }
  const notes: string[] = [];
  const seconds = src.frames / (src.fps || block.fps);
  const duration = pickDuration(block.inputs.durations, seconds);
  if (duration > seconds + 0.05)
    notes.push(`${block.model} renders ${duration} s clips; the shot needs ${seconds.toFixed(2)} s`);
  const draft = makesDraft(block, src.pass);
  const resolution =
    draft && block.draft
      ? block.draft.resolution
      : pickResolution(block.inputs.resolutions, src.width, src.height);
  const prompt = Array.isArray(src.prompt) ? src.prompt.join("\n") : src.prompt;
  const body: Record<string, unknown> = { model: block.model, prompt, duration, resolution };
  const aspect = pickAspect(block.inputs.aspect_ratios, src.width, src.height);
  if (aspect) body.aspect_ratio = aspect;
  body.seed = src.seed.toString();
  if (block.inputs.negative && src.negative) body.negative_prompt = src.negative;
  if (src.inputs.first && block.inputs.first_image) body.first_image = await picture(src.inputs.first);
  if (src.inputs.last && block.inputs.last_image) body.last_image = await picture(src.inputs.last);
  if (draft) {
    body.draft = true;
    notes.push(`a draft at ${resolution}: the provider keeps it ${block.draft?.days ?? 7} days for a final`);
  }
  return { body, notes };
}

/** The draft task a final is made from (its sidecar's `from_draft.task`), or null. */
export function draftTaskOf(fromDraft: unknown): string | null {
  return isObject(fromDraft) ? str(fromDraft.task) : null;
}

/** Why a shot on `spec` cannot run on `lane` (a router target off the router, or another target on it), or null. */
export function routerLaneProblem(spec: TargetSpec, lane: string): string | null {
  const hosted = isRouterTarget(spec);
  if (hosted && lane !== "router")
    return `${spec.short} is a hosted model: it renders only on the router backend, not ${lane}`;
  if (!hosted && lane === "router")
    return `the router backend renders only hosted-model targets (backend router); ${spec.short} is not one`;
  return null;
}
