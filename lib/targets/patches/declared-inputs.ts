// Keyframes for a target without a patch of its own (a custom target proposed from a user's workflow): the
// binding's `inputs` name which loader receives each uploaded picture and what to disconnect when a shot has none.
import { z } from "zod";
import { isObject } from "../../store/json-guards.ts";
import { type ApiGraph, GraphError, isLink, type PatchInputs } from "../graph.ts";
import type { TargetSpec } from "../registry.ts";

const declared = z.looseObject({
  class_type: z.string().min(1),
  field: z.string().min(1).optional(),
  title: z.string().optional(),
  /** Inputs that read the loader and may go unfed (`start_image`): removed with the loader when there is no picture. */
  disconnect: z.array(z.looseObject({ class_type: z.string().min(1), input: z.string().min(1) })).optional(),
});

/** Whether the target's keyframes are wired by its binding's `inputs` block. */
export const hasDeclaredInputs = (spec: TargetSpec) => isObject(spec.binding.inputs);

/** Put each uploaded keyframe into its loader; without one, disconnect the loader's readers and drop it. */
export function declaredInputs(g: ApiGraph, spec: TargetSpec, inputs: PatchInputs, notes: string[]): void {
  const block = isObject(spec.binding.inputs) ? spec.binding.inputs : {};
  for (const role of ["first", "last"] as const) {
    const raw = block[role];
    if (raw === undefined) {
      if (inputs[role]) notes.push(`${spec.short} reads no ${role} frame; the shot renders without it`);
      continue;
    }
    const parsed = declared.safeParse(raw);
    if (!parsed.success) throw new GraphError(spec.id, `binding.inputs.${role} needs a class_type`);
    const d = parsed.data;
    const ids = Object.keys(g).filter(
      (id) => g[id].class_type === d.class_type && (d.title === undefined || g[id]._meta?.title === d.title),
    );
    if (ids.length !== 1) {
      throw new GraphError(
        spec.id,
        `binding.inputs.${role}: ${d.class_type}${d.title ? ` titled "${d.title}"` : ""} matched ${ids.length} nodes, expected exactly one`,
      );
    }
    const loader = ids[0];
    const picture = inputs[role];
    if (picture) {
      g[loader].inputs[d.field ?? "image"] = picture;
      continue;
    }
    // No picture: the readers that may go unfed lose the input; a reader that must have it cannot run.
    for (const n of Object.values(g)) {
      for (const [k, v] of Object.entries(n.inputs)) {
        if (!isLink(v) || v[0] !== loader) continue;
        const may = (d.disconnect ?? []).some((x) => x.class_type === n.class_type && x.input === k);
        if (!may) {
          throw new GraphError(
            spec.id,
            `${n.class_type}.${k} needs the shot's ${role} frame; give the shot one (refs/shots/<shot>/${role}.png)`,
          );
        }
        delete n.inputs[k];
      }
    }
    delete g[loader];
  }
}
