// An episode's compile inputs as they are on disk: its script and series config texts, the show folder whose own
// targets it may use, and the machine's default video target. What the compile routes read when a request names
// an episode instead of carrying the texts.

import { defaultVideoTarget, readSettings } from "../config/settings.ts";
import type { Services } from "../context.ts";
import { resolveEpisode } from "../paths/episode.ts";
import type { TargetRegistryView } from "../targets/registry.ts";
import { targetsForShow } from "../targets/target-tree.ts";
import { readSources } from "./sources.ts";

export interface EpisodeTexts {
  /** The episode folder, resolved and checked inside a root. */
  ep: string;
  /** The folder of the series config in force (its `targets/` holds the show's own), or null. */
  showDir: string | null;
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
  const [sources, settings] = await Promise.all([readSources(dir), readSettings(services)]);
  return {
    ep: dir,
    showDir: sources.showDir,
    scriptText: sources.script?.text ?? null,
    seriesText: sources.series?.text ?? null,
    defaultTarget: defaultVideoTarget(settings),
    targets: () => targetsForShow(services.targets, sources.showDir),
  };
}
