// Audio policy and retention: what the script asks, and what the target renders (script format 4.10).
import type { Shot } from "../script/types.ts";
import { oneOf } from "../store/json-guards.ts";
import type { TargetSpec } from "../targets/registry.ts";
import type { BuildCtx } from "./context.ts";
import { seriesError, shotError } from "./types.ts";

/** Policies a script or series may ask for (open point 7: anything else is an error on every target). */
export const POLICIES = ["generate", "dub", "dub_keep_foley", "clone"] as const;
export const RETENTIONS = ["fully_copy", "partially_copy", "reference"] as const;
const FROM_PRESERVE: Record<string, string> = {
  strict: "fully_copy",
  loose: "partially_copy",
  style: "reference",
};
const GENERATE_MODES = new Set(["generate", "generated", "generated_audio"]);

const isDub = (p: string) => p === "dub" || p === "dub_keep_foley";

/** The intent for a shot and pass (script format 4.10 steps 1–4). */
export function audioIntent(ctx: BuildCtx, shot: Shot): string {
  if (shot.audio !== null && shot.audio !== undefined) {
    const p = shot.audio.trim().toLowerCase();
    if (!oneOf(POLICIES, p)) {
      throw shotError(shot.id, `policy '${shot.audio}' is not one of ${POLICIES.join(", ")}`, "policy");
    }
    return p;
  }
  if (shot.dialogue.length === 0) return "generate";
  const forced = ctx.audio.defaultPolicy;
  if (forced !== null) {
    const p = forced.toLowerCase();
    if (!oneOf(POLICIES, p)) {
      throw seriesError(
        `series.json audio.default_policy '${forced}' is not one of ${POLICIES.join(", ")}`,
        "audio.default_policy",
      );
    }
    return p;
  }
  const mode = ctx.audio.mode.toLowerCase();
  if (mode === "source_track") return "dub_keep_foley";
  if (GENERATE_MODES.has(mode)) return "generate";
  return "clone";
}

export interface AudioOutcome {
  policy: string;
  /** Set when a fallback changed the policy. */
  intent?: string;
  note?: string;
  /** H3 Ref2VA: `fully_copy` | `partially_copy` | `reference` | `""`. */
  retention?: string;
  warnings: string[];
}

/** The shot's `retention:` as a retention word; an unknown word is an error on every target. */
function shotRetention(shot: Shot): string | null {
  const unknown = shot.unparsed?.preserve;
  if (unknown !== undefined) {
    throw shotError(shot.id, `retention '${unknown}' is not one of ${RETENTIONS.join(", ")}`, "retention");
  }
  return shot.preserve ? (FROM_PRESERVE[shot.preserve] ?? null) : null;
}

/** What the target renders for the intent (script format 4.10, "Rendering the intent"). */
export function renderAudio(
  ctx: BuildCtx,
  spec: TargetSpec,
  shot: Shot,
  intent: string,
  window: boolean,
): AudioOutcome {
  const id = shot.id;
  const own = shotRetention(shot);
  const warnings: string[] = [];
  if (spec.capabilities.audio === "none") return { policy: "silent", warnings };
  const policies = spec.recipe.policies ?? ["generate"];
  if (!oneOf(policies, intent)) {
    const fb = spec.recipe.policy_fallback;
    if (!fb || !oneOf(policies, fb.to)) {
      throw shotError(
        id,
        `${spec.short} (${spec.id}) cannot render audio policy '${intent}' and has no fallback`,
        "policy",
      );
    }
    const why = fb.why ?? `${spec.short} does not support ${intent}`;
    return {
      policy: fb.to,
      intent,
      note: `asked for ${intent}; ${spec.short} renders ${fb.to}: ${why}`,
      warnings,
    };
  }
  if (!spec.recipe.retention) return { policy: intent, warnings };

  // H3 Ref2VA: the recording in Audio 1 is copied according to the retention.
  if (isDub(intent)) {
    if (!window) {
      const hint =
        ctx.audio.mode === "source_track" && shot.audio === null
          ? ` (series.json audio.mode is source_track: for generated voices set "audio": {"mode": "generate"})`
          : "";
      throw shotError(id, `policy ${intent} needs an \`audio:\` window on the recording${hint}`, "policy");
    }
    let retention = own;
    if (retention === null && ctx.audio.retention !== null) {
      if (!oneOf(RETENTIONS, ctx.audio.retention)) {
        throw seriesError(
          `series.json audio.retention '${ctx.audio.retention}' is not one of ${RETENTIONS.join(", ")}`,
          "audio.retention",
        );
      }
      retention = ctx.audio.retention;
    }
    retention ??=
      spec.recipe.retention.default?.[intent] ?? (intent === "dub" ? "fully_copy" : "partially_copy");
    if (retention === "fully_copy" && intent === "dub_keep_foley" && shot.sound) {
      warnings.push(`${id}: retention fully_copy keeps only the recording: its sound: line adds no foley`);
    }
    return { policy: intent, retention, warnings };
  }
  if (own !== null && own !== "reference") {
    throw shotError(
      id,
      `retention ${own} copies a recording, but policy ${intent} has none to copy (only reference is allowed)`,
      "retention",
    );
  }
  return { policy: intent, retention: intent === "clone" ? "reference" : "", warnings };
}

/** `defaults.audio_policy`: generate when supported, else the first policy, else silent. */
export function defaultPolicy(spec: TargetSpec): string {
  if (spec.capabilities.audio === "none") return "silent";
  const policies = spec.recipe.policies ?? ["generate"];
  return policies.includes("generate") ? "generate" : (policies[0] ?? "silent");
}
