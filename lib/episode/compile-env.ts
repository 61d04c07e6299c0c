// The compile environment of a show on disk: the machine's default video target (settings) and the shipped
// targets plus the show's own.
import { defaultVideoTarget, readSettings } from "../config/settings.ts";
import type { Services } from "../context.ts";
import { targetsForShow } from "../targets/target-tree.ts";
import type { CompileEnv } from "./prepare.ts";

export async function compileEnv(
  services: Parameters<typeof readSettings>[0] & Pick<Services, "targets">,
  showDir: string | null,
): Promise<CompileEnv> {
  const [settings, targets] = await Promise.all([
    readSettings(services),
    targetsForShow(services.targets, showDir),
  ]);
  return { defaultTarget: defaultVideoTarget(settings), targets };
}
