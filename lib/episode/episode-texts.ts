// An episode's compile inputs as they are on disk: its script and series config texts, the show folder whose own
// targets it may use, and its default video target (settings, last build, detected, animatic). What the compile routes read when a request names
// an episode instead of carrying the texts.

import { readSettings } from "../config/settings.ts";
import type { Services } from "../context.ts";
import { resolveEpisode } from "../paths/episode.ts";
import type { TargetRegistryView } from "../targets/registry.ts";
import { settingsTargetsRoot, targetsForShow } from "../targets/target-tree.ts";
import { chooseShowDefault, lastBuiltTarget } from "./show-default.ts";
import { readSources } from "./sources.ts";

export interface EpisodeTexts {
  /** The episode folder, resolved and checked inside a root. */
  ep: string;
  /** The folder of the series config in force (its `targets/` holds the show's own), or null. */
  showDir: string | null;
  /** The folder whose targets/ every show shares (beside settings.json), or null. */
  settingsDir: string | null;
  scriptText: string | null;
  seriesText: string | null;
  defaultTarget: string;
  /** The shipped targets plus the show's own (read when asked for). */
  targets(): Promise<TargetRegistryView>;
}

/** How a process reads an episode's compile inputs (absent where there are no show folders). */
export type EpisodeReader = (ep: string) => Promise<EpisodeTexts>;

export async function readEpisodeTexts(services: Services, ep: string): Promise<EpisodeTexts> {
  const dir = await resolveEpisode(ep, services);
  const [sources, settings, lastBuilt] = await Promise.all([
    readSources(dir),
    readSettings(services),
    lastBuiltTarget(services, dir),
  ]);
  const settingsDir = settingsTargetsRoot(services);
  const targets = () => targetsForShow(services.targets, sources.showDir, settingsDir);
  // The show's own targets are read only when its last build used one that is not shipped.
  const known =
    lastBuilt && services.targets.get(lastBuilt) === undefined ? await targets() : services.targets;
  const isVideo = (id: string) => known.get(id)?.kind === "video";
  return {
    ep: dir,
    showDir: sources.showDir,
    settingsDir,
    scriptText: sources.script?.text ?? null,
    seriesText: sources.series?.text ?? null,
    defaultTarget: chooseShowDefault(settings, lastBuilt, isVideo).target,
    targets,
  };
}
