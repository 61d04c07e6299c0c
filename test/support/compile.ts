// Compiling a script in memory for the build tests: series S (patched as a test needs), one pass, given targets.
import { BuildError, type BuildResult, buildEpisode } from "../../lib/compile/build.ts";
import { parseScript } from "../../lib/script/index.ts";
import { loadSeries } from "../../lib/series/index.ts";
import type { TargetRegistryView } from "../../lib/targets/registry.ts";
import { seriesS } from "./series-s.ts";

// biome-ignore lint/suspicious/noExplicitAny: series configs and entries are test data read loosely
export type Raw = Record<string, any>;

export interface CompileOptions {
  /** Changes to a fresh copy of series S before it is loaded. */
  patch?: (raw: Raw) => void;
  pass?: "final" | "proxy";
  /** The machine's default video target (default: H3 Ref2VA). */
  target?: string;
}

/** Series S (patched) loaded, and `text` parsed against it. */
export function prepare(text: string, opts: CompileOptions = {}) {
  const raw = seriesS();
  opts.patch?.(raw);
  const series = loadSeries(raw);
  const { story } = parseScript(text, series);
  return { series, story };
}

/** One pass of `text` built with `targets`. */
export function compileText(
  targets: TargetRegistryView,
  text: string,
  opts: CompileOptions = {},
): BuildResult {
  const { series, story } = prepare(text, opts);
  return buildEpisode({
    story,
    series,
    pass: opts.pass ?? "final",
    defaultTarget: opts.target ?? "minimax_h3_ref2va",
    targets,
  });
}

/** The built entry of shot `id`, whichever target's document holds it. */
export function entryOf(r: BuildResult, id: string): Raw {
  for (const doc of Object.values(r.docs)) {
    const e = doc.shots.find((s) => s.id === id);
    if (e) return e as Raw;
  }
  throw new Error(`no entry ${id}`);
}

/** The BuildError `fn` throws; anything else fails the test. */
export function buildError(fn: () => unknown): BuildError {
  try {
    fn();
  } catch (err) {
    if (err instanceof BuildError) return err;
    throw err;
  }
  throw new Error("the build did not fail");
}
