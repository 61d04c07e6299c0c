// The default video target of a show, and why: the settings' chosen default, else the target of the show's last
// build (so a show folder opens unchanged), else the engine's detected default, else the built-in animatic.
import path from "node:path";
import type { Settings } from "../config/settings.ts";
import { episodeFence, readShowJson } from "../paths/guarded.ts";
import type { WithCaches } from "../store/caches.ts";
import { isObject } from "../store/json-guards.ts";
import { UNNAMED_TARGET } from "./shotlists.ts";

export type DefaultSource = "settings" | "last_build" | "detected" | "builtin";

export interface ShowDefault {
  target: string;
  source: DefaultSource;
  /** One sentence for the build report. */
  why: string;
}

/**
 * The target the show's last build made its shot lists for (final pass, else proxy); null when never built. Only
 * the main shot list is read (through the JSON cache, no folder listing), since every status read asks this too.
 */
export async function lastBuiltTarget(services: WithCaches, ep: string): Promise<string | null> {
  for (const name of ["shotlist.json", "shotlist_proxy.json"]) {
    const doc = await readShowJson(
      services,
      episodeFence(ep),
      path.join(ep, "shotlist", name),
      `shotlist/${name}`,
    );
    if (isObject(doc)) return typeof doc.target === "string" && doc.target ? doc.target : UNNAMED_TARGET;
  }
  return null;
}

/** Pure choice; `isVideo` says whether a target named by the settings or the last build is a video target here. */
export function chooseShowDefault(
  settings: Pick<Settings, "default_targets" | "detected_targets">,
  lastBuilt: string | null,
  isVideo: (id: string) => boolean,
): ShowDefault {
  // A settings id that is no video target here (another version's file, or edited by hand) is passed over, named.
  const usable = (id: string | undefined) => (id && isVideo(id) ? id : null);
  const skipped = [settings.default_targets?.video, settings.detected_targets?.video].filter(
    (id): id is string => !!id && !isVideo(id),
  );
  const chosen = usable(settings.default_targets?.video);
  if (chosen) {
    return {
      target: chosen,
      source: "settings",
      why: "the settings' default video target (default_targets.video)",
    };
  }
  const named = skipped.map((id) => `'${id}'`).join(" and ");
  let gone = named
    ? `; ${named} in the settings ${skipped.length > 1 ? "are" : "is"} not a video target here`
    : "";
  if (lastBuilt && isVideo(lastBuilt)) {
    return {
      target: lastBuilt,
      source: "last_build",
      why: "the target of this show's last build (shotlist/shotlist.json); set a default in the settings or series.target to change it",
    };
  }
  if (lastBuilt) gone += `; the last build's target '${lastBuilt}' is not a video target here`;
  const detected = usable(settings.detected_targets?.video);
  if (detected) {
    return {
      target: detected,
      source: "detected",
      why: `the engine's detected default (detected_targets.video): no default in the settings${lastBuilt ? "" : " and no earlier build"}${gone}`,
    };
  }
  return {
    target: "animatic",
    source: "builtin",
    why: `the built-in animatic: no default in the settings, none detected${lastBuilt ? "" : ", no earlier build"}${gone}`,
  };
}
