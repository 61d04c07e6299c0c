// The ComfyUI graph of one take: the target's workflow patched with the take's
// values, model files as the queue resolved them (sidecar `resolved`) and keyframes as absolute input paths.
import { passPreset, presetExtras } from "../compile/settings.ts";
import type { EngineJob } from "../engines/types.ts";
import { isObject, num } from "../store/json-guards.ts";
import { type ApiGraph, type PatchOptions, type PatchValues, patchGraph } from "../targets/graph.ts";
import { coreUploads } from "../targets/patches/h3-core.ts";
import { shotListOptions } from "../targets/patches/h3-shotlist.ts";
import { ltxTakeValues } from "../targets/patches/ltx2-values.ts";
import type { LoraItem, TargetSpec } from "../targets/registry.ts";
import { resolveWorkflow } from "../targets/workflow.ts";
import type { Sidecar } from "./sidecar.ts";

function lorasOf(v: unknown): LoraItem[] | null {
  if (!Array.isArray(v)) return null;
  return v
    .filter((l): l is Record<string, unknown> => isObject(l) && typeof l.name === "string")
    .map((l) => ({
      name: String(l.name),
      strength: num(l.strength) ?? 1,
      ...(typeof l.stage === "string" ? { stage: l.stage } : {}),
    }));
}

/** The file each model param renders with: the resolved one, else (a folder ComfyUI did not list) the wanted one. */
export function resolvedFiles(sidecar: Sidecar): Record<string, string> {
  const out: Record<string, string> = {};
  const resolved = isObject(sidecar.resolved) ? sidecar.resolved : {};
  for (const [param, r] of Object.entries(resolved)) {
    if (!isObject(r) || param.startsWith("loras")) continue;
    if (r.how === "off" || r.how === "missing") continue;
    const file =
      typeof r.using === "string" && r.using ? r.using : typeof r.want === "string" ? r.want : null;
    if (file) out[param] = file;
  }
  return out;
}

/**
 * The patched API graph for `job` on `spec`, and what the patch had to say. `chosen` is the workflow resolved when
 * the take was queued (once per target per request); a payload from before that carried none, and then the
 * workflow is resolved here.
 */
export async function takeGraph(
  spec: TargetSpec,
  sidecar: Sidecar,
  job: EngineJob,
  env: Record<string, string | undefined>,
  chosen?: ApiGraph | null,
  options: PatchOptions = {},
): Promise<{ graph: ApiGraph; saver: string; notes: string[]; length_source?: "predicted" }> {
  let workflow: ApiGraph;
  if (chosen && typeof chosen === "object") workflow = structuredClone(chosen);
  else {
    const wf = await resolveWorkflow(spec, { env });
    if (!wf.ok) throw new Error(wf.error);
    workflow = wf.graph;
  }
  const files = resolvedFiles(sidecar);
  const values: PatchValues = {
    ...files,
    prompt: job.prompt,
    negative: job.negative,
    seed: job.seed,
    width: job.width,
    height: job.height,
    length: job.frames,
    fps: job.fps,
    model: files.model ?? (typeof sidecar.model === "string" ? sidecar.model : null),
    loras: lorasOf(job.entry.loras) ?? lorasOf(sidecar.loras),
    prefix: job.stem,
    base: sidecar.base === true,
  };
  // Accelerator files missing: the base preset's other values (cfg, sampler, …) replace the target
  // preset's; the take's own values above (request and overrides, which outrank presets) are kept.
  if (sidecar.base === true && isObject(sidecar.base_values)) {
    for (const [k, v] of Object.entries(sidecar.base_values)) {
      if (k === "steps" || (values[k] !== undefined && values[k] !== null)) continue;
      values[k] = v;
    }
  }
  // The pass preset's other values (cfg, sampler, shift, the Wan stage split, …) where nothing above set them;
  // model files only ever come from resolution, and the negative from the job.
  for (const [k, v] of Object.entries(presetExtras(passPreset(spec, job.pass)))) {
    if (k === "negative" || k in (spec.models ?? {})) continue;
    if (values[k] === undefined || values[k] === null) values[k] = v;
  }
  const steps = num(sidecar.steps);
  if (steps !== null) values.steps = steps;
  // The LTX features: `lora: none`, the shot's own steps, `dur: model` and the duration head as resolved.
  Object.assign(
    values,
    ltxTakeValues(spec, {
      entry: job.entry,
      steps: sidecar.steps,
      preset: passPreset(spec, job.pass),
      files,
    }),
  );
  const patched = patchGraph(
    spec,
    workflow,
    values,
    {
      first: job.inputs.first ?? null,
      last: job.inputs.last ?? null,
      references: job.inputs.reference ? [job.inputs.reference] : [],
      sheet: job.inputs.sheet ?? null,
      audio: job.inputs.audio ?? null,
      ...coreUploads(job.inputs),
    },
    shotListOptions(spec, job, options),
  );
  return {
    graph: patched.graph,
    saver: patched.saver,
    notes: patched.notes,
    ...(patched.length_source ? { length_source: patched.length_source } : {}),
  };
}
