// What every in-memory compile of an episode starts from: the series config loaded, the script parsed against it,
// and the environment it compiles in (the default video target and the targets the show can use). Pure: texts in.
import { parseScript } from "../script/parse.ts";
import type { Diagnostic, Story } from "../script/types.ts";
import { loadSeries } from "../series/load.ts";
import type { SeriesConfig } from "../series/types.ts";
import type { TargetRegistryView } from "../targets/registry.ts";

export interface CompileEnv {
  defaultTarget: string;
  targets: TargetRegistryView;
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
