// The targets a preset may name: the installed ones, plus an episode's show's own when the request names one.
import type { Services } from "../context.ts";
import { resolveEpisode } from "../paths/episode.ts";
import { showDirOf } from "../targets/listing.ts";
import type { TargetRegistryView } from "../targets/registry.ts";
import { settingsTargetsRoot, targetsForShow } from "../targets/target-tree.ts";

export async function presetTargets(
  services: Pick<Services, "home" | "env" | "caches" | "targets">,
  ep: string | undefined,
): Promise<{ registry: TargetRegistryView; show: string | null }> {
  if (!ep)
    return {
      registry: await targetsForShow(services.targets, null, settingsTargetsRoot(services)),
      show: null,
    };
  const show = await showDirOf(services, await resolveEpisode(ep, services));
  return { registry: await targetsForShow(services.targets, show, settingsTargetsRoot(services)), show };
}
