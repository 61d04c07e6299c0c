// The compile environment of a show on disk: its default video target (the settings' choice, the last build's, the
// detected one or animatic, with the reason) and the shipped targets plus the show's own.
import { readSettings } from "../config/settings.ts";
import type { Services } from "../context.ts";
import { settingsTargetsRoot, targetsForShow } from "../targets/target-tree.ts";
import type { CompileEnv } from "./prepare.ts";
import { chooseShowDefault, lastBuiltTarget, type ShowDefault } from "./show-default.ts";

export interface ShowEnv extends CompileEnv {
  /** Which default video target and why. */
  defaultChoice: ShowDefault;
}

/** `ep`: the episode whose last build the default follows; without it the show is taken as never built. */
export async function compileEnv(
  services: Parameters<typeof readSettings>[0] & Pick<Services, "targets">,
  showDir: string | null,
  ep?: string,
): Promise<ShowEnv> {
  const [settings, targets, lastBuilt] = await Promise.all([
    readSettings(services),
    targetsForShow(services.targets, showDir, settingsTargetsRoot(services)),
    ep ? lastBuiltTarget(services, ep) : null,
  ]);
  const defaultChoice = chooseShowDefault(settings, lastBuilt, (id) => targets.get(id)?.kind === "video");
  return { defaultTarget: defaultChoice.target, targets, defaultChoice };
}
