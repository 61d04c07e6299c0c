// What the settings schema cannot see: each target id a settings update names is a shipped target, of the kind
// its field asks for. Checked before the settings store writes, which knows nothing of targets.
import type { SettingsUpdate } from "../config/settings-schema.ts";
import { badRequest } from "../errors.ts";
import { TARGET_KINDS, type TargetKind, type TargetRegistryView } from "./registry.ts";

type TargetFields = Pick<SettingsUpdate, "default_targets" | "detected_targets" | "deployments">;

/** A 400 naming the first field whose target id is unknown or of the wrong kind among the shipped `targets`. */
export function checkSettingsTargets(update: TargetFields, targets: TargetRegistryView): void {
  if (!update.default_targets && !update.detected_targets && !update.deployments) return;
  for (const field of ["default_targets", "detected_targets"] as const) {
    for (const kind of TARGET_KINDS) {
      const id = update[field]?.[kind];
      if (id) checkTarget(`${field}.${kind}`, id, kind, targets);
    }
  }
  for (const id of Object.keys(update.deployments ?? {})) checkTarget(`deployments.${id}`, id, null, targets);
}

function checkTarget(field: string, id: string, kind: TargetKind | null, targets: TargetRegistryView): void {
  const spec = targets.get(id);
  const what = kind ? `${kind} target` : "target";
  if (!spec) {
    throw badRequest(
      `${field}: "${id}" is not a known ${what} (known: ${targets.ids(kind ?? undefined).join(", ")})`,
    );
  }
  if (kind && spec.kind !== kind)
    throw badRequest(`${field}: "${id}" is ${an(spec.kind)} target, not ${an(kind)} target`);
}

const an = (kind: string) => (/^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`);
