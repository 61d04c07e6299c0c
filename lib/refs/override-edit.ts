// PUT / DELETE /studio/refs/override and PUT /studio/refs/defaults: the checked change written under the right
// lock (the ref home's for `refs/_overrides.json`, the episode's for `overrides.json`), and their answers.
import type { Services } from "../context.ts";
import { episodeName } from "../episode/cut.ts";
import { type EpisodeTargets, readOverrides, writeOverrides } from "../episode/overrides-file.ts";
import { badRequest } from "../errors.ts";
import { withLock } from "../store/lock.ts";
import type { TargetRegistryView } from "../targets/registry.ts";
import {
  boundParams,
  builtPromptOf,
  DEFAULT_KEYS,
  type DefaultKey,
  defaultKeyOf,
  hasViews,
  type RefDefaults,
  type RefFacts,
  readRefSettings,
  takesNegativePrompt,
  targetKindOf,
} from "./effective.ts";
import type { CharacterView, RefId } from "./ids.ts";
import {
  checkForRef,
  checkRefOverrideFields,
  deleteChange,
  overrideAnswer,
  overrideView,
  putChange,
  updateRefOverrides,
} from "./overrides.ts";
import type { RefsPlace } from "./place.ts";

type EditServices = Pick<Services, "home" | "env" | "caches" | "locks" | "targets">;

export interface RefOverrideAnswer {
  override: Record<string, unknown>;
  /** Params the target does not take, skipped. */
  notes?: string[];
}

/** The answer's override of the ref or the view as the file now stands. */
function answerFor(
  entry: Parameters<typeof overrideView>[0],
  facts: RefFacts,
  view: string | null,
): Record<string, unknown> {
  return overrideAnswer(overrideView(entry, view, builtPromptOf(facts, view), facts.built_prompt));
}

export function putRefOverride(
  services: EditServices,
  place: RefsPlace,
  ref: RefId,
  facts: RefFacts,
  view: CharacterView | null,
  fields: Record<string, unknown>,
): Promise<RefOverrideAnswer> {
  const change = checkRefOverrideFields(fields);
  return updateRefOverrides(services, place, ref, async (file) => {
    const { defaults, registry } = await readRefSettings(services, place);
    const entry = file.refs[ref.id];
    const stored = (view ? entry?.views?.[view]?.target : null) ?? entry?.target ?? null;
    const target = (change.target !== undefined ? change.target : stored) ?? defaults[defaultKeyOf(facts)];
    const spec = registry.get(target);
    const kind = targetKindOf(facts);
    const notes = checkForRef(change, {
      ref,
      hasViews: hasViews(facts),
      view,
      targetKind: kind,
      targetIds: registry.ids(kind),
      target,
      targetShort: spec?.short ?? target,
      takesNegative: takesNegativePrompt(spec),
      params: boundParams(spec),
    });
    putChange(file, ref.id, view, change, builtPromptOf(facts, view));
    const override = answerFor(file.refs[ref.id], facts, view);
    return notes.length ? { override, notes } : { override };
  });
}

export function deleteRefOverride(
  services: EditServices,
  place: RefsPlace,
  ref: RefId,
  facts: RefFacts,
  view: CharacterView | null,
): Promise<RefOverrideAnswer> {
  if (view !== null && !hasViews(facts)) {
    throw badRequest(
      `${ref.id} has no views: its override is cleared on the reference itself (leave view out)`,
    );
  }
  return updateRefOverrides(services, place, ref, (file) => {
    deleteChange(file, ref.id, view);
    return { override: answerFor(file.refs[ref.id], facts, view) };
  });
}

// ------------------------------------------------------------------------------------------------ the defaults

/** A change of PUT /refs/defaults: a key left out is kept, null clears it. */
export type DefaultsChange = Partial<Record<DefaultKey, string | null>>;

/** Each key's target must be an image target (voices: an audio target) of the show. */
export function checkDefaults(change: DefaultsChange, registry: TargetRegistryView): void {
  const keys = Object.keys(change) as DefaultKey[];
  if (keys.length === 0) {
    throw badRequest("give target, keyframe_target or voice_target (null clears one)");
  }
  for (const key of keys) {
    const id = change[key];
    if (id === null || id === undefined) continue;
    const kind = key === "voice_target" ? "audio" : "image";
    if (registry.get(id)?.kind !== kind) {
      throw badRequest(
        `${key}: '${id}' is not an ${kind} target (known: ${registry.ids(kind).join(", ") || "none"})`,
      );
    }
  }
}

/**
 * Stores `episode.refs_target` / `keyframe_target` / `voice_target` in overrides.json, keeping the episode
 * block's other keys; the block goes back to the plain episode name when nothing is left in it.
 */
export function setRefDefaults(
  services: EditServices,
  place: RefsPlace,
  change: DefaultsChange,
): Promise<{ defaults: RefDefaults }> {
  const ep = place.ep;
  return withLock(services, ep, async () => {
    const { registry } = await readRefSettings(services, place);
    checkDefaults(change, registry);
    const file = await readOverrides(services, ep);
    const stored = file.episode;
    const block: EpisodeTargets =
      typeof stored === "object" && stored !== null
        ? { ...stored }
        : { id: typeof stored === "string" && stored ? stored : await episodeName(services, ep) };
    if (!block.id) block.id = await episodeName(services, ep);
    for (const [key, id] of Object.entries(change) as [DefaultKey, string | null][]) {
      const field = DEFAULT_KEYS[key];
      if (id === null) delete block[field];
      else block[field] = id;
    }
    const others = Object.entries(block).filter(([k, v]) => k !== "id" && v !== null && v !== undefined);
    file.episode = others.length ? block : block.id;
    await writeOverrides(services, ep, file);
    const settings = await readRefSettings(services, place);
    return { defaults: settings.defaults };
  });
}
