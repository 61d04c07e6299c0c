// Render settings: the pass size and preset layering, then each shot's layers (script format 4.5, 4.7).
import { type Lora, parseLoras } from "../series/load.ts";
import { hasText, textOf } from "../store/json-guards.ts";
import { checkStrictSize, fitSize, targetFps } from "../targets/grid.ts";
import type { LoraItem, Preset, TargetSpec } from "../targets/registry.ts";
import type { BuildCtx } from "./context.ts";
import { type ShotCtx, sequenceError, seriesError, shotError } from "./types.ts";

export interface PassSettings {
  spec: TargetSpec;
  isSeriesTarget: boolean;
  fps: number;
  width: number;
  height: number;
  steps: number;
  model: string | null;
  lora: string | null;
  /** The preset's LoRA list (Wan stage pairs, …), dropped when the series block sets `lora`. */
  loras: LoraItem[] | undefined;
  /** The pass preset, for its extra values (negative, encoders, sampler, …). */
  preset: Preset;
  warnings: string[];
}

/** Keys of a preset that are not "extras" (targets 1.8), and `dur: model` keys that never reach a shot list. */
const KNOWN_PRESET_KEYS = new Set(["model", "lora", "loras", "steps", "width", "height", "base"]);
const DURATION_KEYS = new Set(["default_seconds", "min_seconds", "max_seconds"]);

export function presetExtras(preset: Preset): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(preset)) {
    if (!KNOWN_PRESET_KEYS.has(k) && !DURATION_KEYS.has(k) && !k.startsWith("_")) out[k] = v;
  }
  return out;
}

export function passPreset(spec: TargetSpec, pass: "final" | "proxy"): Preset {
  return spec.presets[pass] ?? spec.presets.final ?? spec.presets.proxy ?? {};
}

function blockNumber(value: unknown, key: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n) || !Number.isInteger(n) || n <= 0) {
    throw seriesError(`series.json ${key} ${JSON.stringify(value)} must be a positive whole number`, key);
  }
  return n;
}

export function passSettings(ctx: BuildCtx, spec: TargetSpec, seriesTarget: string): PassSettings {
  const pass = ctx.pass;
  const blockName = pass === "final" ? "series" : "proxy";
  const preset = passPreset(spec, pass);
  const finalPreset = spec.presets.final ?? preset;
  const isSeriesTarget = spec.id === seriesTarget;
  const block = ctx.passBlock ?? {};
  const series = ctx.series.series ?? {};
  const warnings: string[] = [];

  const sizeFrom = spec.template.size_from ?? "pass";
  const useBlockSize = sizeFrom === "pass" || (sizeFrom === "series_target" && isSeriesTarget);
  let width =
    (useBlockSize ? blockNumber(block.width, `${blockName}.width`) : undefined) ?? preset.width ?? 0;
  let height =
    (useBlockSize ? blockNumber(block.height, `${blockName}.height`) : undefined) ?? preset.height ?? 0;

  const multiple = spec.template.size_multiple ?? 1;
  if (spec.template.size_fit === "snap") {
    const fit = fitSize(width, height, spec.template);
    if (fit.changed) {
      warnings.push(
        `the ${pass} size ${width}x${height} is not legal on ${spec.short}: it renders at ${fit.width}x${fit.height}`,
      );
      width = fit.width;
      height = fit.height;
    }
  } else {
    const problem = checkStrictSize(width, height, multiple, spec.template);
    if (problem) {
      const axis = problem.startsWith("height") ? "height" : "width";
      throw seriesError(
        `series.json: the ${pass} size ${width}x${height} is not legal on ${spec.short} (${spec.id}): ${problem}`,
        `${blockName}.${axis}`,
      );
    }
  }

  let steps = preset.steps ?? finalPreset.steps ?? 1;
  let lora: string | null = preset.lora ?? null;
  let loras = preset.loras;
  let model: string | null;
  if (isSeriesTarget) {
    const s = blockNumber(block.steps, `${blockName}.steps`);
    if (s !== undefined) steps = s;
    if (typeof block.lora === "string") {
      lora = block.lora;
      loras = undefined;
    }
  }
  if (pass === "final") {
    model = (isSeriesTarget ? textOf(series.model) : undefined) ?? preset.model ?? null;
  } else {
    const fromSeries = isSeriesTarget ? (textOf(ctx.series.proxy?.model) ?? textOf(series.model)) : undefined;
    model = fromSeries ?? preset.model ?? finalPreset.model ?? null;
  }
  return {
    spec,
    isSeriesTarget,
    fps: targetFps(spec.template, ctx.story.series.fps),
    width,
    height,
    steps,
    model,
    lora,
    loras,
    preset,
    warnings,
  };
}

export interface ShotSettings {
  model?: string;
  lora?: string;
  loras?: Lora[];
  steps: number;
  /** True when a layer (profile or line) set the steps. */
  stepsSet: boolean;
  profile?: string;
  warnings: string[];
}

const loraText = (l: Lora) => `${l.name}@${l.strength}`;
const STEP_WORD = /(\d+)[_-]?steps?/i;

function stepMismatch(names: string[], steps: number): string | null {
  for (const name of names) {
    const m = STEP_WORD.exec(name);
    if (m && Number(m[1]) !== steps)
      return `LoRA ${name} is made for ${m[1]} steps but renders with ${steps}`;
  }
  return null;
}

/** A warning when the pass's own LoRA is a turbo LoRA for another step count (reported once per target). */
export function passStepWarning(ps: PassSettings, pass: "final" | "proxy"): string | null {
  if (ps.spec.recipe.fixed_steps) return null;
  const names = ps.loras ? ps.loras.map((l) => l.name) : ps.lora ? [ps.lora] : [];
  const why = stepMismatch(names, ps.steps);
  return why ? `${ps.spec.short} ${pass} pass: ${why}` : null;
}

/** The script's layers, weakest first: sequence profile and lines, shot profile and lines (script format 4.5). */
export function shotSettings(ctx: BuildCtx, sc: ShotCtx, ps: PassSettings): ShotSettings {
  const { shot, sequence } = sc;
  if (shot.unparsed?.steps !== undefined) {
    throw shotError(shot.id, `steps '${shot.unparsed.steps}' must be a whole number`, "steps");
  }
  if (sequence.unparsed?.steps !== undefined) {
    throw sequenceError(sequence.id, `steps '${sequence.unparsed.steps}' must be a whole number`, "steps");
  }
  const shotProfile = shot.profile !== undefined ? ctx.profiles[shot.profile] : undefined;
  const seqProfile = sequence.profile !== undefined ? ctx.profiles[sequence.profile] : undefined;
  // Strongest first.
  const layers = [
    { model: shot.overrides.model, lora: shot.overrides.lora, loras: undefined, steps: shot.overrides.steps },
    { model: shotProfile?.model, lora: undefined, loras: shotProfile?.loras, steps: shotProfile?.steps },
    {
      model: sequence.overrides.model,
      lora: sequence.overrides.lora,
      loras: undefined,
      steps: sequence.overrides.steps,
    },
    { model: seqProfile?.model, lora: undefined, loras: seqProfile?.loras, steps: seqProfile?.steps },
  ];
  const out: ShotSettings = { steps: ps.steps, stepsSet: false, warnings: [] };
  const id = shot.id;
  for (const l of layers) {
    if (hasText(l.model)) {
      out.model = l.model.trim();
      break;
    }
  }
  for (const l of layers) {
    if (typeof l.steps === "number") {
      out.steps = l.steps;
      out.stepsSet = true;
      break;
    }
  }
  for (const l of layers) {
    if (hasText(l.lora)) {
      out.lora = l.lora.trim();
      break;
    }
    if (l.loras !== undefined) {
      out.loras = l.loras.map((x) => ({ ...x }));
      break;
    }
  }
  const icLora = ps.spec.recipe.ic_lora;
  if (icLora && (out.lora !== undefined || out.loras !== undefined)) {
    // The ingredients IC-LoRA is what makes the sheet work: a LoRA line may add to it, never remove it.
    const list: Lora[] = out.loras ?? parseLoras(out.lora!);
    const own = list.find((x) => x.name === icLora) ?? { name: icLora, strength: 1 };
    out.loras = [own, ...list.filter((x) => x.name !== icLora)];
    out.lora = undefined;
  }
  const profile = shot.profile ?? sequence.profile;
  if (profile !== undefined) out.profile = profile;

  if (out.model !== undefined) out.warnings.push(`${id} overrides model: ${out.model}`);
  if (out.lora !== undefined) out.warnings.push(`${id} overrides lora: ${out.lora}`);
  if (out.loras !== undefined)
    out.warnings.push(`${id} overrides loras: ${out.loras.map(loraText).join(", ") || "none"}`);
  if (out.stepsSet && out.steps !== ps.steps) {
    if (ps.spec.recipe.fixed_steps) {
      out.warnings.push(
        `${id} overrides steps: ${out.steps} (recorded only: ${ps.spec.short} runs a fixed schedule)`,
      );
    } else {
      out.warnings.push(`${id} overrides steps: ${out.steps}`);
    }
  }
  if (!ps.spec.recipe.fixed_steps && (out.stepsSet || out.lora !== undefined || out.loras !== undefined)) {
    const names =
      out.loras !== undefined
        ? out.loras.map((x) => x.name)
        : out.lora !== undefined
          ? [out.lora]
          : ps.loras
            ? ps.loras.map((x) => x.name)
            : ps.lora
              ? [ps.lora]
              : [];
    const why = stepMismatch(names, out.steps);
    if (why) out.warnings.push(`${id}: ${why}`);
  }
  return out;
}
