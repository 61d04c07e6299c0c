// The LTX patches (targets 3.12.3–3.12.4): ltx2's keyframes (first frame in place, last frame as a guide), its
// reference sheet through the ingredients IC-LoRA, its sampling profiles and the duration head; ltx2_ingredients'
// sheet (or, without one, a text-only graph).
import { isObject } from "../../store/json-guards.ts";
import {
  type ApiGraph,
  addNode,
  type Ctx,
  consumers,
  deleteWithConsumers,
  freshId,
  GraphError,
  isLink,
  type Link,
  nodesOf,
  type PatchInputs,
  type PatchValues,
  repoint,
  setParam,
  spliceOut,
} from "../graph.ts";
import { globMatch } from "../modelid.ts";
import { baseName } from "../models.ts";
import type { TargetSpec } from "../registry.ts";

interface LtxStage {
  sampler: string;
  guider: string;
  concat: string;
  separate: string | null;
}

/** Node classes each optional LTX feature adds, so the readiness check and the tests see them. */
export const LTX_SHEET_CLASSES = [
  "LoadImage",
  "LTXICLoRALoaderModelOnly",
  "ResizeAndPadImage",
  "RepeatImageBatch",
  "LTXAddVideoICLoRAGuide",
  "LTXVCropGuides",
];

function singleReader(g: ApiGraph, id: string, slot: number, cls: string): string | null {
  const r = consumers(g, id, slot).filter((c) => g[c.node].class_type === cls);
  return r.length ? r[0].node : null;
}

function ltxStages(ctx: Ctx): LtxStage[] {
  const { g, spec } = ctx;
  const samplers = nodesOf(g, "SamplerCustomAdvanced");
  const ups = nodesOf(g, "LTXVLatentUpsampler");
  if (ups.length > 1)
    throw new GraphError(spec.id, `keyframes: ${ups.length} LTXVLatentUpsampler nodes, expected at most one`);
  const describeStage = (sampler: string): LtxStage => {
    const n = g[sampler].inputs;
    const guider = isLink(n.guider) ? n.guider[0] : null;
    const concat = isLink(n.latent_image) ? n.latent_image[0] : null;
    if (!guider || !concat || g[concat]?.class_type !== "LTXVConcatAVLatent") {
      throw new GraphError(
        spec.id,
        `keyframes: sampler ${sampler} must read a guider and an LTXVConcatAVLatent latent_image`,
      );
    }
    return { sampler, guider, concat, separate: singleReader(g, sampler, 0, "LTXVSeparateAVLatent") };
  };
  if (ups.length === 0) {
    if (samplers.length !== 1) {
      throw new GraphError(
        spec.id,
        `keyframes: ${samplers.length} SamplerCustomAdvanced nodes in a one-stage graph`,
      );
    }
    return [describeStage(samplers[0])];
  }
  // Stage 1 is the sampler whose separated video (possibly through a crop) feeds the upsampler.
  const upSrc = g[ups[0]].inputs.samples;
  let src = isLink(upSrc) ? upSrc[0] : null;
  if (src && g[src]?.class_type === "LTXVCropGuides") {
    const l = g[src].inputs.latent;
    src = isLink(l) ? l[0] : null;
  }
  const sepIn = src && g[src]?.class_type === "LTXVSeparateAVLatent" ? g[src].inputs.av_latent : null;
  const first = isLink(sepIn) ? sepIn[0] : null;
  if (!first || !samplers.includes(first) || samplers.length !== 2) {
    throw new GraphError(
      spec.id,
      "keyframes: cannot tell the two stages apart (the upsampler must read stage 1's separated video latent)",
    );
  }
  return [describeStage(first), describeStage(samplers.find((s) => s !== first)!)];
}

function strengthOf(spec: TargetSpec, key: string, fallback: number): number {
  const ks = spec.recipe.keyframe_strength;
  const v = isObject(ks) ? ks[key] : undefined;
  return typeof v === "number" ? v : fallback;
}

/** The video VAE the graph decodes with, for the guides that encode pictures. */
function videoVae(ctx: Ctx, what: string): Link {
  const { g, spec } = ctx;
  for (const cls of ["VAEDecodeTiled", "VAEDecode", "LTXVLatentUpsampler", "LTXVImgToVideoInplace"]) {
    for (const id of nodesOf(g, cls)) {
      const vae = g[id].inputs.vae;
      if (isLink(vae)) return vae;
    }
  }
  throw new GraphError(spec.id, `${what}: no video VAE found (VAEDecodeTiled.vae)`);
}

function ltxFirstFrame(ctx: Ctx, first: string | null | undefined): void {
  const { g, spec } = ctx;
  const i2v = nodesOf(g, "LTXVImgToVideoInplace");
  if (!first) {
    for (const id of i2v) spliceOut(g, id, "latent");
    return;
  }
  const loads = nodesOf(g, "LoadImage");
  if (loads.length !== 1) {
    throw new GraphError(
      spec.id,
      `first frame: LoadImage matched ${loads.length} nodes, expected exactly one`,
    );
  }
  if (i2v.length === 0)
    throw new GraphError(spec.id, "first frame: the workflow has no LTXVImgToVideoInplace");
  g[loads[0]].inputs.image = first;
  for (const id of i2v) {
    const lat = g[id].inputs.latent;
    const base = isLink(lat) && g[lat[0]]?.class_type === "EmptyLTXVLatentVideo";
    g[id].inputs.bypass = false;
    g[id].inputs.strength = base ? strengthOf(spec, "first", 0.7) : strengthOf(spec, "first_refine", 1.0);
  }
}

/**
 * A guide on stage `i` (0-based): `make` builds it from the guider's conditioning and the concat's video latent; it
 * then feeds both, and the stage's crop-guides node (reused if present, else added after the separator) takes its
 * conditioning so the guide frames riding at the end of the latent are cut before the upsampler or the decoder.
 */
function addStageGuide(
  ctx: Ctx,
  st: LtxStage,
  i: number,
  make: (positive: unknown, negative: unknown, latent: unknown) => string,
): void {
  const { g } = ctx;
  const guider = g[st.guider].inputs;
  const concat = g[st.concat].inputs;
  const guide = make(guider.positive, guider.negative, concat.video_latent);
  guider.positive = [guide, 0];
  guider.negative = [guide, 1];
  concat.video_latent = [guide, 2];
  if (!st.separate) return;
  const existing = consumers(g, st.separate, 0).find((c) => g[c.node].class_type === "LTXVCropGuides");
  let crop = existing?.node;
  if (!crop) {
    crop = addNode(
      g,
      freshId(g, `h3_crop${i + 1}_`),
      "LTXVCropGuides",
      { latent: [st.separate, 0] },
      `crop guides, stage ${i + 1} (h3pipe)`,
    );
    repoint(g, [st.separate, 0], [crop, 2], new Set([crop]));
  }
  g[crop].inputs.positive = [guide, 0];
  g[crop].inputs.negative = [guide, 1];
}

function ltxLastFrame(ctx: Ctx, stages: LtxStage[], last: string): void {
  const { g, spec } = ctx;
  const vae = videoVae(ctx, "last frame");
  const load = addNode(g, "h3_last_load1", "LoadImage", { image: last }, "last frame (h3pipe)");
  const pre = addNode(
    g,
    freshId(g, "h3_last_pre"),
    "LTXVPreprocess",
    { image: [load, 0], img_compression: 18 },
    "last frame preprocess (h3pipe)",
  );
  const strength = strengthOf(spec, "last", 1.0);
  stages.forEach((st, i) => {
    addStageGuide(ctx, st, i, (positive, negative, latent) =>
      addNode(
        g,
        freshId(g, `h3_guide${i + 1}_`),
        "LTXVAddGuide",
        { positive, negative, vae, latent, image: [pre, 0], frame_idx: -1, strength },
        `last frame guide, stage ${i + 1} (h3pipe)`,
      ),
    );
  });
}

const num = (v: unknown, fallback: number) => (typeof v === "number" && Number.isFinite(v) ? v : fallback);

/**
 * ltx2's reference sheet: the sheet picture, the ingredients IC-LoRA on the model of the first guided stage (the
 * stages of `reference_sheet.stages`, 1-based) and per guided stage the sheet padded to that stage's size, repeated
 * for every frame and added as an IC-LoRA guide. Answers the `RepeatImageBatch` nodes (their amount is a length).
 */
function ltxSheet(ctx: Ctx, stages: LtxStage[], sheet: string, lora: string): string[] {
  const { g, spec } = ctx;
  const layout = isObject(spec.recipe.reference_sheet) ? spec.recipe.reference_sheet : {};
  const wanted = Array.isArray(layout.stages) ? layout.stages.filter((s) => typeof s === "number") : [1];
  const guided = stages.filter((_, i) => wanted.includes(i + 1));
  if (guided.length === 0) {
    throw new GraphError(
      spec.id,
      `reference sheet: stages ${JSON.stringify(wanted)} name no stage of the graph`,
    );
  }
  const empty = nodesOf(g, "EmptyLTXVLatentVideo");
  if (empty.length !== 1) {
    throw new GraphError(
      spec.id,
      `reference sheet: EmptyLTXVLatentVideo matched ${empty.length} nodes, expected one`,
    );
  }
  const base = g[empty[0]].inputs;
  const vae = videoVae(ctx, "reference sheet");
  const load = addNode(g, "h3_sheet_load1", "LoadImage", { image: sheet }, "reference sheet (h3pipe)");
  const first = g[guided[0].guider].inputs;
  const ic = addNode(
    g,
    "h3_iclora1",
    "LTXICLoRALoaderModelOnly",
    { model: first.model, lora_name: lora, strength_model: num(layout.strength, 1) },
    "reference sheet IC-LoRA (h3pipe)",
  );
  for (const st of guided) g[st.guider].inputs.model = [ic, 0];
  const repeats: string[] = [];
  for (const st of guided) {
    const i = stages.indexOf(st);
    // The base stage renders at the empty latent's size; the refine stage after the x2 upsampler at twice that.
    const scale = i === 0 ? 1 : 2;
    const pad = addNode(
      g,
      freshId(g, `h3_sheet_pad${i + 1}_`),
      "ResizeAndPadImage",
      {
        image: [load, 0],
        target_width: num(base.width, 512) * scale,
        target_height: num(base.height, 512) * scale,
        padding_color: layout.background === "white" ? "white" : "black",
        interpolation: "lanczos",
      },
      `reference sheet, stage ${i + 1} size (h3pipe)`,
    );
    const repeat = addNode(
      g,
      freshId(g, `h3_sheet_frames${i + 1}_`),
      "RepeatImageBatch",
      { image: [pad, 0], amount: base.length },
      `reference sheet, every frame, stage ${i + 1} (h3pipe)`,
    );
    repeats.push(repeat);
    addStageGuide(ctx, st, i, (positive, negative, latent) =>
      addNode(
        g,
        freshId(g, `h3_sheet_guide${i + 1}_`),
        "LTXAddVideoICLoRAGuide",
        {
          positive,
          negative,
          vae,
          latent,
          image: [repeat, 0],
          frame_idx: 0,
          strength: num(layout.guide_strength, 1),
          latent_downscale_factor: [ic, 1],
          crop: "disabled",
          use_tiled_encode: false,
          tile_size: 256,
          tile_overlap: 64,
        },
        `reference sheet guide, stage ${i + 1} (h3pipe)`,
      ),
    );
  }
  return repeats;
}

interface Profile {
  name: string;
  label: string;
  raw: Record<string, unknown>;
}

/** The sampling profile whose `match` globs fit the model file's name, else the recipe's default. */
export function samplingProfile(spec: TargetSpec, model: unknown): Profile | null {
  const sampling = spec.recipe.sampling;
  if (!isObject(sampling) || !isObject(sampling.profiles)) return null;
  const profiles = sampling.profiles;
  const file = typeof model === "string" ? baseName(model) : "";
  let name: string | null = null;
  if (file) {
    for (const [n, p] of Object.entries(profiles)) {
      const match = isObject(p) && Array.isArray(p.match) ? p.match : [];
      if (match.some((m) => typeof m === "string" && globMatch(m, file))) {
        name = n;
        break;
      }
    }
  }
  name ??= typeof sampling.default === "string" ? sampling.default : null;
  const raw = name ? profiles[name] : undefined;
  if (!name || !isObject(raw)) return null;
  return { name, label: typeof raw.label === "string" ? raw.label : `the ${name} profile`, raw };
}

/** The node `input` of `node` reads, cloned for this node alone when another node shares it. */
function ownSource(ctx: Ctx, node: string, input: string, stem: string): string | null {
  const { g } = ctx;
  const src = g[node].inputs[input];
  if (!isLink(src) || !g[src[0]]) return null;
  if (consumers(g, src[0]).every((c) => c.node === node)) return src[0];
  const id = freshId(g, stem);
  g[id] = structuredClone(g[src[0]]);
  g[node].inputs[input] = [id, src[1]];
  return id;
}

/**
 * The `dev` kind of profile: stage 1 gets an `LTXVScheduler` (fed the stage's video latent when `latent`), stage 2
 * the refine sigmas, each stage its sampler and its guider's video/audio cfg. A profile without a scheduler (the
 * distilled one) keeps the workflow's fixed schedule.
 */
function applyProfile(ctx: Ctx, stages: LtxStage[], values: PatchValues, sheet: boolean): void {
  const { g, spec, notes } = ctx;
  const profile = samplingProfile(spec, values.model);
  if (!profile) return;
  const p =
    sheet && isObject(profile.raw.with_sheet) ? { ...profile.raw, ...profile.raw.with_sheet } : profile.raw;
  const scheduler = isObject(p.scheduler) ? p.scheduler : null;
  if (!scheduler) return;
  const cls = typeof scheduler.class === "string" ? scheduler.class : "LTXVScheduler";
  const steps =
    values.steps_set === true && typeof values.steps === "number" ? values.steps : num(p.steps, 30);
  const stage1 = stages[0];
  const sched: Record<string, unknown> = {
    steps,
    max_shift: num(scheduler.max_shift, 2.05),
    base_shift: num(scheduler.base_shift, 0.95),
    stretch: scheduler.stretch !== false,
    terminal: num(scheduler.terminal, 0.1),
  };
  if (scheduler.latent === true) sched.latent = g[stage1.concat].inputs.video_latent;
  const id = addNode(g, "h3_sched1", cls, sched, `${profile.name} schedule, stage 1 (h3pipe)`);
  g[stage1.sampler].inputs.sigmas = [id, 0];
  const cfg = (st: LtxStage, src: Record<string, unknown>) => {
    if (typeof src.video_cfg === "number") g[st.guider].inputs.video_cfg = src.video_cfg;
    if (typeof src.audio_cfg === "number") g[st.guider].inputs.audio_cfg = src.audio_cfg;
    const sel = typeof src.sampler === "string" ? ownSource(ctx, st.sampler, "sampler", "h3_sampler") : null;
    if (sel) g[sel].inputs.sampler_name = src.sampler;
  };
  cfg(stage1, p);
  const refine = isObject(p.refine) ? p.refine : null;
  const stage2 = stages[1];
  if (stage2 && refine) {
    if (typeof refine.sigmas === "string") {
      const sig = ownSource(ctx, stage2.sampler, "sigmas", "h3_sigmas");
      if (sig && g[sig].class_type === "ManualSigmas") g[sig].inputs.sigmas = refine.sigmas;
      else {
        const m = addNode(
          g,
          "h3_sigmas2",
          "ManualSigmas",
          { sigmas: refine.sigmas },
          "refine sigmas (h3pipe)",
        );
        g[stage2.sampler].inputs.sigmas = [m, 0];
      }
    }
    cfg(stage2, refine);
  }
  notes.push(
    `sampling: ${profile.label}, ${steps} steps with ${cls}${sheet ? " (reference sheet settings)" : ""}`,
  );
}

/** Why a `dur: model` shot renders its estimate, or null when the duration head can run. */
function durationBlocker(values: PatchValues, known: ReadonlySet<string> | null | undefined): string | null {
  if (values.duration_head === undefined) return "the preset names no duration head";
  if (typeof values.duration_head !== "string" || !values.duration_head)
    return "the duration head file is missing on ComfyUI";
  const missing = ["ModelPatchLoader", "LTXVDurationPredictor"].filter((c) => known && !known.has(c));
  if (missing.length) return `ComfyUI lacks the node${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`;
  return null;
}

/**
 * The duration head (targets 3.12.4): `ModelPatchLoader` + `LTXVDurationPredictor` on the model and positive prompt
 * the binding's `duration_predictor` taps; the taps are read before other patches move the guider's model.
 */
function durationNodes(ctx: Ctx, values: PatchValues): string | null {
  const { g, spec, notes } = ctx;
  const predict = values.duration_predict;
  if (!predict) return null;
  const why = durationBlocker(values, ctx.known);
  if (why) {
    notes.push(`dur: model renders the estimate (${values.length ?? "?"} frames): ${why}`);
    return null;
  }
  const dp = isObject(spec.binding.duration_predictor) ? spec.binding.duration_predictor : {};
  const tap = (key: string): unknown => {
    const t = dp[key];
    if (!isObject(t) || typeof t.class_type !== "string" || typeof t.input !== "string")
      throw new GraphError(spec.id, `binding.duration_predictor.${key} names no class_type and input`);
    const ids = nodesOf(g, t.class_type);
    const v = ids.length ? g[ids[0]].inputs[t.input] : undefined;
    if (!isLink(v)) throw new GraphError(spec.id, `duration: ${t.class_type}.${t.input} is not wired`);
    return [v[0], v[1]];
  };
  const range = isObject(predict) ? predict : {};
  const head = addNode(
    g,
    "h3_duration_head",
    "ModelPatchLoader",
    { name: values.duration_head },
    "duration head (h3pipe)",
  );
  addNode(
    g,
    "h3_duration",
    "LTXVDurationPredictor",
    {
      model: tap("model"),
      positive: tap("positive"),
      duration_head: [head, 0],
      frame_rate: num(values.fps, 24),
      min_seconds: num(range.min_seconds, num(values.min_seconds, 1)),
      max_seconds: num(range.max_seconds, num(values.max_seconds, 20)),
    },
    "duration predictor (h3pipe)",
  );
  return "h3_duration";
}

/** Every length widget (the binding's, and the sheet's repeat counts) reads the predicted frame count. */
function linkLength(ctx: Ctx, duration: string, repeats: string[]): void {
  setParam(ctx, "length", [duration, 0]);
  for (const id of repeats) ctx.g[id].inputs.amount = [duration, 0];
  ctx.lengthSource = "predicted";
  ctx.notes.push("length: predicted by the duration head at render time");
}

/** ltx2 (targets 3.12.3): keyframes, the reference sheet, the sampling profile and the duration head. */
export function ltx2Patch(ctx: Ctx, inputs: PatchInputs, values: PatchValues): void {
  const { notes, spec } = ctx;
  const duration = durationNodes(ctx, values);
  ltxFirstFrame(ctx, inputs.first);
  const profile = samplingProfile(spec, values.model);
  const needsStages = Boolean(inputs.last || inputs.sheet || isObject(profile?.raw.scheduler));
  const stages = needsStages ? ltxStages(ctx) : [];
  if (inputs.last) ltxLastFrame(ctx, stages, inputs.last);
  let repeats: string[] = [];
  const lora =
    typeof values.reference_lora === "string" && values.reference_lora ? values.reference_lora : null;
  if (inputs.sheet) {
    if (values.reference_sheet === false)
      notes.push("reference sheet off: the shot's LoRA line says none; it renders from the prompt alone");
    else if (!lora)
      notes.push(
        "reference sheet unused: its IC-LoRA (reference_lora) is not installed, so reference sheets are off",
      );
    else repeats = ltxSheet(ctx, stages, inputs.sheet, lora);
  }
  applyProfile(ctx, stages, values, repeats.length > 0);
  if (duration) linkLength(ctx, duration, repeats);
}

/** The `LoadImage` a sheet input reads, walking up through picture nodes (ResizeAndPadImage and the like). */
function sheetLoad(g: ApiGraph, from: string): string | null {
  let id: string | null = from;
  const seen = new Set<string>();
  while (id && g[id] && !seen.has(id)) {
    seen.add(id);
    if (g[id].class_type === "LoadImage") return id;
    const image: unknown = g[id].inputs.image;
    id = isLink(image) ? image[0] : null;
  }
  return null;
}

/** A LoRA file that is this target's ingredients IC-LoRA (the recipe's file or the `loras` family's patterns). */
function isIcLora(spec: TargetSpec, name: unknown): boolean {
  if (typeof name !== "string") return false;
  if (name === spec.recipe.ic_lora) return true;
  const loras = spec.models?.loras;
  const patterns = isObject(loras) && Array.isArray(loras.patterns) ? loras.patterns : [];
  return patterns.some((p) => typeof p === "string" && globMatch(p, baseName(name)));
}

/** Remove a guide node whose three outputs (positive, negative, latent) pass through to its own inputs. */
function spliceGuide(g: ApiGraph, id: string): void {
  const ins = ["positive", "negative", "latent"];
  for (const c of consumers(g, id)) {
    const link = g[c.node].inputs[c.input];
    const slot = isLink(link) ? link[1] : -1;
    const src = g[id].inputs[ins[slot] ?? ""];
    if (isLink(src)) g[c.node].inputs[c.input] = [src[0], src[1]];
  }
  const left = consumers(g, id);
  if (left.length) deleteWithConsumers(g, id);
  else delete g[id];
}

/**
 * ltx2_ingredients (targets 3.12.3): the sheet into the `LoadImage` feeding `RepeatImageBatch`, the IC-LoRA put
 * back when the job's LoRAs lost it; without a sheet every guide, crop and IC-LoRA loader is spliced out and the
 * shot renders from the prompt alone, unless panel pictures are on disk and were not staged (refused).
 */
export function ltx2IngredientsPatch(ctx: Ctx, inputs: PatchInputs): void {
  const { g, spec, notes } = ctx;
  if (inputs.first || inputs.last)
    notes.push(`${spec.short} reads no keyframes: its reference sheet leads; the keyframes are unused`);
  const repeats = nodesOf(g, "RepeatImageBatch");
  const icLoaders = nodesOf(g, "LoraLoaderModelOnly").filter((id) => isIcLora(spec, g[id].inputs.lora_name));
  if (!inputs.sheet) {
    const panels = inputs.panels ?? 0;
    if (panels > 0) {
      throw new GraphError(
        spec.id,
        `reference sheet: ${panels} panel picture${panels === 1 ? "" : "s"} on disk but no sheet was staged for the job`,
      );
    }
    for (const id of nodesOf(g, "LTXVAddGuide")) spliceGuide(g, id);
    for (const id of nodesOf(g, "LTXVCropGuides")) spliceGuide(g, id);
    for (const id of icLoaders) spliceOut(g, id, "model");
    notes.push("no reference pictures: the shot renders from the prompt alone (no sheet, no IC-LoRA)");
    return;
  }
  const loads = [...new Set(repeats.map((id) => sheetLoad(g, id)).filter((x): x is string => x !== null))];
  if (loads.length !== 1) {
    throw new GraphError(
      spec.id,
      `reference sheet: ${loads.length} LoadImage nodes feed RepeatImageBatch, expected exactly one`,
    );
  }
  g[loads[0]].inputs.image = inputs.sheet;
  const active = icLoaders.filter((id) => g[id].inputs.strength_model !== 0);
  if (active.length > 0) return;
  const lora = typeof spec.recipe.ic_lora === "string" ? spec.recipe.ic_lora : null;
  if (!lora) throw new GraphError(spec.id, "reference sheet: the recipe names no ic_lora to guide it");
  const idle = nodesOf(g, "LoraLoaderModelOnly").find((id) => g[id].inputs.strength_model === 0);
  if (idle) Object.assign(g[idle].inputs, { lora_name: lora, strength_model: 1 });
  else {
    const ckpt = nodesOf(g, "CheckpointLoaderSimple");
    if (ckpt.length !== 1)
      throw new GraphError(spec.id, `reference sheet: CheckpointLoaderSimple matched ${ckpt.length} nodes`);
    const id = freshId(g, "h3_iclora");
    addNode(
      g,
      id,
      "LoraLoaderModelOnly",
      { model: [ckpt[0], 0], lora_name: lora, strength_model: 1 },
      "IC-LoRA ingredients (h3pipe)",
    );
    repoint(g, [ckpt[0], 0], [id, 0], new Set([id]));
  }
  notes.push(`the reference sheet needs its IC-LoRA: ${lora} put back at strength 1`);
}
