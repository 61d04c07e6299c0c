// Whether a draft target may render: a target saved as a draft (a show's own target proposed from a user's
// workflow, or one shipped as a draft) renders only once enabled, by settings `enabled_drafts` or its flag cleared.
import { effectiveSettings } from "../config/settings-store.ts";
import type { Services } from "../context.ts";
import type { TargetSpec } from "./registry.ts";

/** True when the target is a draft the settings have not enabled. */
export function heldDraft(spec: TargetSpec, enabledDrafts: readonly string[]): boolean {
  return spec.draft === true && !enabledDrafts.includes(spec.id);
}

/** Why a shot cannot render on a draft target, or null when it can. */
export async function draftProblem(
  services: Pick<Services, "home" | "caches"> & { env?: Services["env"] },
  spec: TargetSpec,
): Promise<string | null> {
  if (spec.draft !== true) return null;
  const s = await effectiveSettings({ ...services, env: services.env ?? {} });
  if (!heldDraft(spec, s.enabled_drafts)) return null;
  const how = spec.custom
    ? "enable it (PUT /studio/targets/custom with draft: false, or settings enabled_drafts)"
    : "enable it in settings enabled_drafts";
  return `target '${spec.id}' is a draft and is not rendered until enabled: ${how}`;
}
