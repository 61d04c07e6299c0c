// How every shot of an episode renders (target, and per pass model, LoRAs and steps), computed from the files
// in memory: promote compares it before and after its edits.
import { BuildError, buildEpisode, type Entry, type Pass, shotError } from "../../compile/build.ts";
import { resolveSeriesTarget } from "../../compile/choose.ts";
import { compileTarget } from "../../compile/compile.ts";
import { makeContext } from "../../compile/context.ts";
import { checkDesigns } from "../../compile/slots.ts";
import { badRequest } from "../../errors.ts";
import { ScriptError } from "../../script/errors.ts";
import { parseScript } from "../../script/parse.ts";
import { allShots } from "../../script/story.ts";
import type { Story } from "../../script/types.ts";
import { JsonSyntaxError, SeriesError } from "../../series/errors.ts";
import { type Lora, loadSeries, parseLoras, validateProfiles } from "../../series/load.ts";
import type { SeriesConfig } from "../../series/types.ts";
import { isObject, num, str } from "../../store/json-guards.ts";
import { locateBuildError, ScriptIndex } from "../locate.ts";
import { type OverridesFile, type PassOverride, targetBlock } from "../overrides-file.ts";
import type { CompileEnv } from "../prepare.ts";
import { shotTarget } from "../target-choice.ts";
import type { Inputs, PassRender, Setting, ShotRender, View } from "./types.ts";

/**
 * What every shot renders with at the next render: target (the override, else the script's, else the
 * episode's), then per pass the model, LoRAs and steps with the overrides of that target layered over the built
 * entry and the shot list defaults.
 */
export function renderView(
  seriesInput: unknown,
  scriptText: string,
  overrides: OverridesFile,
  env: CompileEnv,
): View {
  const series = loadSeries(seriesInput);
  const { story } = parseScript(scriptText, series);
  const profiles = validateProfiles(series.raw);
  const results = {
    final: buildEpisode({ story, series, pass: "final", ...env }),
    proxy: buildEpisode({ story, series, pass: "proxy", ...env }),
  };
  const declared = series.series?.target;
  const inputs = {
    overrides,
    seriesTarget: typeof declared === "string" ? declared : null,
    defaultTarget: env.defaultTarget,
    profiles,
  };
  const shots = new Map<string, ShotRender>();
  for (const ref of allShots(story)) {
    const id = ref.shot.id;
    const built = { id, target: results.final.shotTargets[id] };
    const target = shotTarget(built, story, inputs).target;
    const onPass = (pass: Pass): PassRender => {
      const result = results[pass];
      let compiled: { entry: Entry; defaults: Record<string, unknown> };
      if (result.shotTargets[id] === target) {
        const doc = result.docs[target];
        compiled = { entry: doc.shots.find((e) => e.id === id)!, defaults: doc.defaults };
      } else {
        try {
          compiled = compileOn(story, series, id, pass, target, env);
        } catch (err) {
          if (!(err instanceof BuildError)) throw err;
          return { model: null, loras: [], steps: null, error: err.message };
        }
      }
      return effective(compiled.entry, compiled.defaults, targetBlock(overrides, id, target)?.[pass]);
    };
    shots.set(id, { target, final: onPass("final"), proxy: onPass("proxy") });
  }
  return { story, series, shots };
}

/** The shot compiled for a target other than the one it was built for, as a render on that target would. */
function compileOn(
  story: Story,
  series: SeriesConfig,
  id: string,
  pass: Pass,
  target: string,
  env: CompileEnv,
): { entry: Entry; defaults: Record<string, unknown> } {
  const ctx = makeContext({ story, series, pass, ...env });
  const sc = ctx.byId.get(id)!;
  const spec = ctx.targets.get(target);
  if (spec?.kind !== "video") {
    throw shotError(
      id,
      `target '${target}' is not a video target (known: ${ctx.targets.ids("video").join(", ")})`,
    );
  }
  checkDesigns(ctx, sc.shot);
  const doc = compileTarget(ctx, spec, [sc], resolveSeriesTarget(ctx)).doc;
  return { entry: doc.shots[0], defaults: doc.defaults };
}

function normalLoras(value: unknown): Lora[] {
  let list: unknown[];
  try {
    list = typeof value === "string" ? parseLoras(value) : Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
  const out: Lora[] = [];
  for (const item of list) {
    if (typeof item === "string") out.push(...normalLoras(item));
    else if (isObject(item) && typeof item.name === "string") {
      const l: Lora & { stage?: unknown } = { name: item.name, strength: Number(item.strength ?? 1) };
      if (item.stage !== undefined) l.stage = item.stage;
      out.push(l);
    }
  }
  return out;
}

function effective(
  entry: Entry,
  defaults: Record<string, unknown>,
  ov: PassOverride | undefined,
): PassRender {
  const model = str(ov?.model) ?? str(entry.model) ?? str(defaults.model) ?? null;
  let loras: Lora[];
  if (ov?.loras !== undefined) loras = normalLoras(ov.loras);
  else if (entry.lora !== undefined) loras = normalLoras(entry.lora);
  else if (entry.loras !== undefined) loras = normalLoras(entry.loras);
  else if (Array.isArray(defaults.loras)) loras = normalLoras(defaults.loras);
  else loras = normalLoras(defaults.lora ?? []);
  const steps = num(ov?.steps) ?? num(entry.steps) ?? num(defaults.steps) ?? null;
  return { model, loras, steps };
}

/** Load, parse and build; a failure is the 400 of the plan, naming the file and line. */
export function viewOrRefuse(inputs: Inputs): View {
  try {
    return renderView(inputs.series.text, inputs.script.text, inputs.overrides, inputs.env);
  } catch (err) {
    throw badRequest(
      `the episode does not build, so nothing can be promoted: ${describeFailure(err, inputs)}`,
    );
  }
}

export function describeFailure(
  err: unknown,
  inputs: { script: { text: string }; series: { text: string } },
): string {
  if (err instanceof ScriptError) return err.line ? `script line ${err.line}: ${err.message}` : err.message;
  if (err instanceof JsonSyntaxError) return err.message;
  if (err instanceof SeriesError)
    return err.message.startsWith("series") ? err.message : `series.json: ${err.message}`;
  if (err instanceof BuildError) {
    try {
      const series = loadSeries(inputs.series.text);
      const { story } = parseScript(inputs.script.text, series);
      const where = locateBuildError(err, new ScriptIndex(story, inputs.script.text), inputs.series.text);
      const file = where.file === "series" ? "series.json" : "script";
      return where.line ? `${file} line ${where.line}: ${err.message}` : err.message;
    } catch {
      return err.message;
    }
  }
  throw err;
}

export const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A setting's value as a person reads it (LoRAs as their script line, else listed). */
export function showValue(v: PassRender[Setting]): string {
  if (Array.isArray(v)) return loraLine(v) ?? v.map((l) => `${l.name}:${l.strength}`).join(", ");
  return v === null || v === undefined ? "nothing" : String(v);
}

/** The `lora:` value for a list of at most one LoRA; null for two or more. */
export function loraLine(list: Lora[]): string | null {
  if (list.length === 0) return "none";
  if (list.length > 1) return null;
  const l = list[0];
  return l.strength === 1 ? l.name : `${l.name}:${l.strength}`;
}
