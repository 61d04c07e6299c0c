// Which video target a shot's next render uses and why (request, shot override, script, episode override,
// series config, machine default: contract rendering rule 11), and the episode default.
import type { Sequence, Shot, Story } from "../script/types.ts";
import type { Profile } from "../series/load.ts";
import { episodeTarget, type OverridesFile } from "./overrides-file.ts";
import type { BuiltShot } from "./shotlists.ts";

export type ShotTargetSource = "request" | "override" | "script" | "episode" | "series" | "default";
export type EpisodeTargetSource = "editor" | "series" | "default";

export interface TargetInputs {
  overrides: OverridesFile;
  /** `series.target` of the series config, or null. */
  seriesTarget: string | null;
  /** The machine default (settings' default video target, else `animatic`). */
  defaultTarget: string;
  profiles: Record<string, Profile>;
}

/** The episode default now in force: the editor's episode target, else the series config's, else the machine's. */
export function episodeDefault(inputs: TargetInputs): { target: string; source: EpisodeTargetSource } {
  const editor = episodeTarget(inputs.overrides);
  if (editor) return { target: editor, source: "editor" };
  if (inputs.seriesTarget) return { target: inputs.seriesTarget, source: "series" };
  return { target: inputs.defaultTarget, source: "default" };
}

/** Whether the script itself (a `target:` line or a profile, on the shot or its sequence) names a target. */
export function scriptNamesTarget(
  shot: Shot,
  sequence: Sequence,
  profiles: Record<string, Profile>,
): boolean {
  const viaProfile = (name: string | undefined) => (name !== undefined ? profiles[name]?.target : undefined);
  return Boolean(shot.target ?? viaProfile(shot.profile) ?? sequence.target ?? viaProfile(sequence.profile));
}

/**
 * The target the next render of `built` uses: the request, the shot's override, the script (including a
 * continuation partner the build switched to), the episode target, the series config, the machine default.
 */
export function shotTarget(
  built: Pick<BuiltShot, "id" | "target">,
  story: Story | null,
  inputs: TargetInputs,
  requested?: string | null,
): { target: string; source: ShotTargetSource } {
  if (requested) return { target: requested, source: "request" };
  const retarget = inputs.overrides.shots?.[built.id]?.target;
  if (typeof retarget === "string" && retarget) return { target: retarget, source: "override" };
  const fallback = episodeDefault(inputs);
  const buildDefault = inputs.seriesTarget ?? inputs.defaultTarget;
  if (built.target !== buildDefault) return { target: built.target, source: "script" };
  const place = story ? findShot(story, built.id) : null;
  if (place && scriptNamesTarget(place.shot, place.sequence, inputs.profiles)) {
    return { target: built.target, source: "script" };
  }
  return { target: fallback.target, source: fallback.source === "editor" ? "episode" : fallback.source };
}

function findShot(story: Story, id: string): { shot: Shot; sequence: Sequence } | null {
  for (const sequence of story.sequences) {
    const shot = sequence.shots.find((s) => s.id === id);
    if (shot) return { shot, sequence };
  }
  return null;
}
