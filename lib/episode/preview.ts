// One shot compiled in memory from edited text: its target, size, length, prompt and pacing (script format 5.3).
import { compileOneShot } from "../compile/build.ts";
import { gridOf } from "../compile/length.ts";
import { BuildError, type Pass } from "../compile/types.ts";
import { ScriptError } from "../script/errors.ts";
import {
  CEILING,
  dialogueSyllables,
  fitsSeconds,
  forcedRate,
  isPace,
  type Pace,
  paceRate,
  verdict,
} from "../script/pacing.ts";
import { allShots } from "../script/story.ts";
import { JsonSyntaxError, SeriesError } from "../series/errors.ts";
import { isObject } from "../store/json-guards.ts";
import { snapFrames } from "../targets/grid.ts";
import { describeLoadError } from "./load-error.ts";
import { locateBuildError, ScriptIndex } from "./locate.ts";
import { type CompileEnv, prepare } from "./prepare.ts";

export type PreviewAnswer =
  | ({ ok: true } & Record<string, unknown>)
  | { ok: false; error: string; line: number | null };

const HEADER = /^= \S/m;
const BLOCK_END = /^#{1,2} /;

/**
 * The script to compile: `text` itself when it is a whole script (it has an `= ` header), else the shot's
 * block in `diskScript` replaced by `text`. `offset` turns a line of the result into a line of `text`.
 */
/** Whether `text` is a whole script (it has an `= ` header) rather than one shot's block. */
export const wholeScript = (text: string): boolean => HEADER.test(text);

export function mergeShotText(
  diskScript: string,
  shot: string,
  text: string,
): { script: string; offset: number } {
  if (wholeScript(text)) return { script: text, offset: 0 };
  const lines = diskScript.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  const header = new RegExp(`^## ${shot.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\s|$)`);
  const start = lines.findIndex((l) => header.test(l));
  if (start === -1) return { script: text, offset: 0 };
  let end = start + 1;
  while (end < lines.length && !BLOCK_END.test(lines[end])) end++;
  const block = text
    .replace(/\r\n|\r/g, "\n")
    .replace(/\n+$/, "")
    .split("\n");
  const own = /^## \S/.test(block[0] ?? "");
  const merged = [
    ...lines.slice(0, start),
    ...(own ? [] : [lines[start]]),
    ...block,
    "",
    ...lines.slice(end),
  ];
  return { script: merged.join("\n"), offset: start + (own ? 0 : 1) };
}

export function previewShot(
  input: {
    seriesText: string;
    scriptText: string;
    shot: string;
    pass: Pass;
    target?: string;
    offset?: number;
  },
  env: CompileEnv,
): PreviewAnswer {
  const offset = input.offset ?? 0;
  const toTextLine = (line: number | null) =>
    line === null ? null : line - offset >= 1 ? line - offset : line;
  let prepared: ReturnType<typeof prepare>;
  try {
    prepared = prepare(input.seriesText, input.scriptText);
  } catch (err) {
    if (err instanceof ScriptError) return { ok: false, error: err.message, line: toTextLine(err.line) };
    if (err instanceof JsonSyntaxError || err instanceof SeriesError) {
      return { ok: false, error: describeLoadError(err), line: null };
    }
    throw err;
  }
  const { story, series } = prepared;
  const found = allShots(story).find((s) => s.shot.id === input.shot);
  if (!found) return { ok: false, error: `shot ${input.shot} is not in the script`, line: null };
  let one: ReturnType<typeof compileOneShot>;
  try {
    one = compileOneShot(story, series, input.shot, input.pass, { ...env, target: input.target });
  } catch (err) {
    if (!(err instanceof BuildError)) throw err;
    const where = locateBuildError(err, new ScriptIndex(story, input.scriptText), input.seriesText);
    return { ok: false, error: err.message, line: where.file === "script" ? toTextLine(where.line) : null };
  }
  const spec = env.targets.get(one.target);
  const entry = one.entry;
  const frames = Number(entry.length);
  const seconds = Math.round((frames / one.fps) * 1000) / 1000;
  const dialogue = found.shot.dialogue;
  const paceText = (found.shot.pace ?? speechPace(series.raw) ?? "normal").toLowerCase();
  const pace: Pace = isPace(paceText) ? paceText : "normal";
  const grid = spec ? gridOf(spec) : { step: 1, base: 1, max: 2 ** 30 };
  const pacing =
    dialogue.length === 0
      ? null
      : {
          held: seconds,
          syllables: dialogueSyllables(dialogue),
          rate: round3(forcedRate(dialogue, frames / one.fps)),
          fits: round3(fitsSeconds(dialogue, pace, one.fps, (f) => snapFrames(f, grid))),
          verdict: verdict(dialogue, frames / one.fps, pace),
          pace,
          pace_rate: paceRate(pace),
          ceiling: CEILING,
        };
  return {
    ok: true,
    shot: input.shot,
    target: one.target,
    target_label: spec?.label ?? one.target,
    prompt: entry.prompt,
    negative: typeof entry.negative === "string" && entry.negative !== "" ? entry.negative : null,
    frames,
    fps: one.fps,
    seconds,
    width: one.width,
    height: one.height,
    audio_policy: entry.audio_policy,
    subjects: entry.subjects,
    background: entry.background,
    pacing,
    warnings: one.warnings,
  };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

function speechPace(raw: Record<string, unknown>): string | null {
  const speech = raw.speech;
  return isObject(speech) && typeof speech.pace === "string" ? speech.pace : null;
}
