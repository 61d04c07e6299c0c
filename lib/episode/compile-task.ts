// The CPU-bound part of build, check and preview, run on a compile thread (lib/episode/compile-pool.ts):
// texts in, plain data out, so nothing here touches the event loop of the API.
import { buildEpisode } from "../compile/build.ts";
import { BuildError, type BuildResult, type Pass } from "../compile/types.ts";
import { storyToJson } from "../script/story.ts";
import { targetsForShow } from "../targets/registry.ts";
import { type CheckInput, type CheckResult, checkSources } from "./check.ts";
import { type CompileEnv, type Prepared, prepare } from "./compile-env.ts";
import { describeLoadError } from "./load-error.ts";
import { locateBuildError, ScriptIndex } from "./locate.ts";
import { type PreviewAnswer, previewShot } from "./preview.ts";

export interface EnvInput {
  showDir: string | null;
  defaultTarget: string;
}

async function env(input: EnvInput): Promise<CompileEnv> {
  return { defaultTarget: input.defaultTarget, targets: await targetsForShow(input.showDir) };
}

export type PassOutcome = { ok: true; result: BuildResult } | { ok: false; error: string };

export interface Compiled {
  /** Set when the series config or the script does not load or parse: both passes fail with it. */
  loadError: string | null;
  storyJson: string;
  parseWarnings: string[];
  passes: Partial<Record<Pass, PassOutcome>>;
}

const PASSES: readonly Pass[] = ["final", "proxy"];

/** Parse once, then compile final and proxy; a build error names the file and line it is about. */
export async function compileBoth(
  input: EnvInput & { seriesText: string; scriptText: string },
): Promise<Compiled> {
  const e = await env(input);
  let prepared: Prepared;
  try {
    prepared = prepare(input.seriesText, input.scriptText);
  } catch (err) {
    return { loadError: describeLoadError(err), storyJson: "", parseWarnings: [], passes: {} };
  }
  const index = new ScriptIndex(prepared.story, input.scriptText);
  const passes: Partial<Record<Pass, PassOutcome>> = {};
  for (const pass of PASSES) {
    try {
      passes[pass] = {
        ok: true,
        result: buildEpisode({ story: prepared.story, series: prepared.series, pass, ...e }),
      };
    } catch (err) {
      if (!(err instanceof BuildError)) throw err;
      const where = locateBuildError(err, index, input.seriesText);
      const file = where.file === "series" ? "series.json" : "script";
      passes[pass] = {
        ok: false,
        error: where.line ? `${file} line ${where.line}: ${err.message}` : err.message,
      };
    }
  }
  return {
    loadError: null,
    storyJson: storyToJson(prepared.story),
    parseWarnings: prepared.parseWarnings.map((w) => (w.line ? `line ${w.line}: ${w.message}` : w.message)),
    passes,
  };
}

export async function check(input: EnvInput & CheckInput): Promise<CheckResult> {
  return checkSources(input, await env(input));
}

export async function preview(input: EnvInput & Parameters<typeof previewShot>[0]): Promise<PreviewAnswer> {
  return previewShot(input, await env(input));
}
