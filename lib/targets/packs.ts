// The node packs a target names for the classes ComfyUI does not ship (`{class, pack}` entries in its recipe,
// binding, upscale or `nodes`), so a refusal can say which pack to install rather than only which classes lack.
import { isObject } from "../store/json-guards.ts";
import type { TargetSpec } from "./registry.ts";

/** Class → pack, as the target's own files name them. */
export function packsOf(spec: TargetSpec): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (value: unknown, depth: number) => {
    if (depth > 6 || !isObject(value)) return;
    if (typeof value.pack === "string" && typeof value.class === "string") {
      out.set(value.class, value.pack);
      return;
    }
    for (const v of Object.values(value)) visit(v, depth + 1);
  };
  for (const part of [spec.recipe, spec.binding, spec.upscale]) visit(part, 0);
  // `nodes` as an object: `{class: {tier, pack?}}`.
  if (isObject(spec.nodes)) {
    for (const [cls, v] of Object.entries(spec.nodes))
      if (isObject(v) && typeof v.pack === "string") out.set(cls, v.pack);
  }
  return out;
}

/** Why a shot cannot render for lack of `classes`: each named pack with its classes, then how to fix it. */
export function missingNodesReason(spec: TargetSpec, classes: readonly string[]): string {
  const known = packsOf(spec);
  const byPack = new Map<string, string[]>();
  for (const cls of classes) {
    const pack = known.get(cls);
    if (pack) byPack.set(pack, [...(byPack.get(pack) ?? []), cls]);
  }
  const packs = [...byPack].map(([pack, cls]) => `the ${pack} node pack brings ${cls.join(", ")}; `).join("");
  return `missing node classes: ${classes.join(", ")} (${packs}install the custom nodes that provide them, or update ComfyUI)`;
}
