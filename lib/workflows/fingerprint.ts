// Whether a workflow really differs from the shipped copy: both graphs with everything a job patches blanked (bound
// widgets, the loader's and the saver's own inputs) reduced to their sorted classes and widget values, ignoring ids,
// titles and layout, so a saved copy that only moved nodes or changed a prompt does not count.
import { isObject } from "../store/json-guards.ts";
import { type ApiGraph, isLink } from "../targets/graph.ts";
import type { TargetSpec } from "../targets/registry.ts";

/** Class → input names a job sets on every node of that class. */
function patchedInputs(spec: TargetSpec): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const add = (cls: unknown, field: unknown) => {
    if (typeof cls !== "string" || typeof field !== "string") return;
    const set = out.get(cls) ?? new Set<string>();
    set.add(field);
    out.set(cls, set);
  };
  const b = spec.binding;
  const params = isObject(b.params) ? b.params : {};
  for (const raw of Object.values(params)) {
    for (const s of Array.isArray(raw) ? raw : [raw]) {
      if (!isObject(s)) continue;
      add(s.class_type, s.field);
      for (const k of ["name", "strength", "strength_clip"]) add(s.class_type, s[k]);
    }
  }
  const every = (cls: unknown, inputs: unknown) => {
    if (isObject(inputs)) for (const k of Object.keys(inputs)) add(cls, k);
  };
  if (isObject(b.loader)) every(b.loader.class_type, b.loader.inputs);
  if (isObject(b.saver)) {
    every(b.saver.class_type, b.saver.inputs);
    if (isObject(b.saver.core)) every(b.saver.core.class_type, b.saver.core.inputs);
    if (isObject(b.saver.replace)) every(b.saver.replace.class_type, b.saver.replace.inputs);
  }
  if (isObject(b.inputs))
    for (const d of Object.values(b.inputs)) if (isObject(d)) add(d.class_type, d.field ?? "image");
  return out;
}

/** The graph's fingerprint for `spec`: one line per node (class and its unpatched widget values), sorted. */
export function graphFingerprint(spec: TargetSpec, graph: ApiGraph): string {
  const patched = patchedInputs(spec);
  const lines = Object.values(graph).map((n) => {
    const skip = patched.get(n.class_type) ?? new Set<string>();
    const widgets = Object.entries(n.inputs)
      .filter(([k, v]) => !isLink(v) && !skip.has(k))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    return `${n.class_type}(${widgets.join(",")})`;
  });
  return lines.sort().join("\n");
}
