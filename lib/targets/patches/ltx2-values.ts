// What a take tells the LTX patches beyond the bound params: `lora: none` (the sheet off), whether the shot set its
// own steps (they outrank a sampling profile's), and `dur: model` with the duration head as resolution found it.
import { isObject, num } from "../../store/json-guards.ts";
import type { PatchValues } from "../graph.ts";
import type { Preset, TargetSpec } from "../registry.ts";

export interface TakeFacts {
  /** The frozen shot-list entry the take renders. */
  entry: Record<string, unknown>;
  /** The take's steps as queued. */
  steps: unknown;
  /** The pass preset the take renders with. */
  preset: Preset;
  /** Model files as the queue resolved them (resolved ones only). */
  files: Record<string, string>;
}

export function ltxTakeValues(spec: TargetSpec, take: TakeFacts): PatchValues {
  const out: PatchValues = {};
  const { entry, preset, files } = take;
  // The shot's own LoRA line wrote an empty list: `lora: none`.
  if (Array.isArray(entry.loras) && entry.loras.length === 0) out.reference_sheet = false;
  const steps = num(take.steps);
  if (steps !== null && steps !== num(preset.steps)) out.steps_set = true;
  if (isObject(entry.duration_predict)) out.duration_predict = entry.duration_predict;
  if (spec.models?.duration_head !== undefined) {
    // Named by the preset but not resolved on the engine: the file is missing (null); not named at all: undefined.
    if (files.duration_head) out.duration_head = files.duration_head;
    else if (typeof preset.duration_head === "string") out.duration_head = null;
  }
  return out;
}
