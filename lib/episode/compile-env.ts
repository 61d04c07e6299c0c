// What every in-memory compile of an episode needs: the loaded series config, the parsed story,
// the machine default video target and the targets the show can use.
import { defaultVideoTarget, readSettings } from "../config/settings.ts";
import type { Services } from "../context.ts";
import { parseScript } from "../script/parse.ts";
import type { Diagnostic, Story } from "../script/types.ts";
import { loadSeries } from "../series/load.ts";
import type { SeriesConfig } from "../series/types.ts";
import { type TargetRegistryView, targetsForShow } from "../targets/registry.ts";

export interface CompileEnv {
  defaultTarget: string;
  targets: TargetRegistryView;
}

export async function compileEnv(
  services: Pick<Services, "home">,
  showDir: string | null,
): Promise<CompileEnv> {
  const [settings, targets] = await Promise.all([readSettings(services), targetsForShow(showDir)]);
  return { defaultTarget: defaultVideoTarget(settings), targets };
}

export interface Prepared {
  series: SeriesConfig;
  story: Story;
  parseWarnings: Diagnostic[];
}

/** Load the series config, then parse the script against it; throws JsonSyntaxError, SeriesError or ScriptError. */
export function prepare(seriesText: string, scriptText: string): Prepared {
  const series = loadSeries(seriesText);
  const { story, warnings } = parseScript(scriptText, series);
  return { series, story, parseWarnings: warnings };
}
