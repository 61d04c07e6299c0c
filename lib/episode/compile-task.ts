// The compile thread's task module (lib/episode/compile-pool.ts): build, check and preview of texts, with the
// show's own targets and the settings' read from their folders, and the matching of a recording's words to the
// script's lines, so nothing CPU-bound runs on the event loop of the API.
import { type MatchInput, type MatchResult, matchScriptWindows } from "../align/match.ts";
import { shippedRegistry } from "../targets/registry.ts";
import { targetsForShow } from "../targets/target-tree.ts";
import { type CheckInput, type CheckResult, checkSources } from "./check.ts";
import { type Compiled, compileTexts } from "./compile-texts.ts";
import type { CompileEnv } from "./prepare.ts";
import { type PreviewAnswer, previewShot } from "./preview.ts";

export interface EnvInput {
  /** The show folder whose own targets join the shipped ones; null: the shipped targets only. */
  showDir: string | null;
  /** The folder whose settings' targets every show shares (settingsTargetsRoot); null: none. */
  settingsDir: string | null;
  defaultTarget: string;
}

// The thread's own view of the shipped targets, checked once when the thread starts: a thread shares no objects
// with the process that started it, and the view is never changed.
const shipped = shippedRegistry();

async function env(input: EnvInput): Promise<CompileEnv> {
  return {
    defaultTarget: input.defaultTarget,
    targets: await targetsForShow(shipped, input.showDir, input.settingsDir),
  };
}

export async function compileBoth(
  input: EnvInput & { seriesText: string; scriptText: string },
): Promise<Compiled> {
  return compileTexts(input, await env(input));
}

export async function check(input: EnvInput & CheckInput): Promise<CheckResult> {
  return checkSources(input, await env(input));
}

export async function preview(input: EnvInput & Parameters<typeof previewShot>[0]): Promise<PreviewAnswer> {
  return previewShot(input, await env(input));
}

/** Where each dialogue line was heard and each shot's window: seconds of work for an hour of dialogue. */
export async function matchWindows(input: MatchInput): Promise<MatchResult> {
  return matchScriptWindows(input);
}
