// Promote's edits, in memory: script key lines set or inserted in each shot's span, series config keys set,
// the promoted overrides dropped from copies of the override files. Nothing is read or written here.
import { allShots } from "../../script/story.ts";
import { isObject, type JsonObject, objectOr } from "../../store/json-guards.ts";
import { jsonKeyLines, lineOfKey } from "../json-lines.ts";
import type { OverridesFile } from "../overrides-file.ts";
import type { Candidate, Inputs, RefOverridesFile, ScriptEdit, View } from "./types.ts";

const KEY_LINE = /^([a-z_]+)\s*:\s*(.*)$/;
const KNOWN_KEYS = new Set(
  (
    "who cast with props size audio dur duration camera sound music policy continuous text pace plate " +
    "retention model lora steps extras target profile first last overlap"
  ).split(" "),
);

export interface EditState {
  scriptText: string;
  seriesText: string;
  overrides: OverridesFile;
  refs: RefOverridesFile;
  /** Candidate id → 1-based line in the edited file. */
  lines: Map<string, number>;
}

/** Apply `chosen` to copies of the inputs; nothing is read or written. */
export function applyEdits(inputs: Inputs, before: View, chosen: Candidate[]): EditState {
  const lines = inputs.script.text.split("\n");
  // 0-based [start, end] of each shot's span, moved as lines are inserted.
  const spans = new Map(
    allShots(before.story).map((r) => [
      r.shot.id,
      { start: r.shot.source.line - 1, end: r.shot.source.end_line - 1 },
    ]),
  );
  const overrides = structuredClone(inputs.overrides);
  const refs = structuredClone(inputs.refs);
  let raw: JsonObject | null = null;
  for (const c of chosen) {
    c.remove(overrides, refs);
    if (c.edit.kind === "script") editScript(lines, spans, c.edit);
    else {
      raw ??= objectOr(JSON.parse(inputs.series.text));
      setPath(raw, c.edit.keyPath, c.edit.value);
    }
  }
  const scriptText = lines.join("\n");
  const seriesText = raw === null ? inputs.series.text : serializeSeries(raw, inputs.series.text);
  const at = new Map<string, number>();
  const seriesLines = raw === null ? null : jsonKeyLines(seriesText);
  for (const c of chosen) {
    if (c.edit.kind === "script") {
      const span = spans.get(c.edit.shot)!;
      const i = lastKeyLine(lines, span, c.edit.key);
      if (i >= 0) at.set(c.item.id, i + 1);
    } else if (seriesLines) {
      const line = lineOfKey(seriesLines, c.edit.keyPath.join("."));
      if (line !== null) at.set(c.item.id, line);
    }
  }
  return { scriptText, seriesText, overrides, refs, lines: at };
}

function isKey(line: string, key?: string): boolean {
  const m = KEY_LINE.exec(line.trimEnd());
  return m !== null && KNOWN_KEYS.has(m[1]) && (key === undefined || m[1] === key);
}

function lastKeyLine(lines: string[], span: { start: number; end: number }, key: string): number {
  for (let i = span.end; i > span.start; i--) if (isKey(lines[i], key)) return i;
  return -1;
}

/**
 * Replace the last `key:` line of the shot's own span (the one the parser keeps), else insert after the run of
 * key lines that opens the shot (directly after `##` when there is none), never below dialogue or action.
 */
function editScript(
  lines: string[],
  spans: Map<string, { start: number; end: number }>,
  edit: ScriptEdit,
): void {
  const span = spans.get(edit.shot)!;
  const text = `${edit.key}: ${edit.text}`;
  const existing = lastKeyLine(lines, span, edit.key);
  if (existing >= 0) {
    lines[existing] = text;
    return;
  }
  let at = span.start;
  for (let j = span.start + 1; j <= span.end; j++) {
    const t = lines[j].trim();
    if (t === "" || t.startsWith("//")) continue;
    if (!isKey(lines[j])) break;
    at = j;
  }
  lines.splice(at + 1, 0, text);
  for (const s of spans.values()) {
    if (s.start > at) s.start++;
    if (s.end >= at) s.end++;
  }
}

function setPath(raw: JsonObject, keyPath: string[], value: unknown): void {
  let node = raw;
  for (const key of keyPath.slice(0, -1)) {
    const next = node[key];
    if (isObject(next)) node = next;
    else {
      const made: JsonObject = {};
      node[key] = made;
      node = made;
    }
  }
  node[keyPath[keyPath.length - 1]] = value;
}

/** series.json as the editor writes it: 2-space indent, key order kept, non-ASCII raw, final newline only if there was one. */
export function serializeSeries(raw: unknown, oldText: string): string {
  return JSON.stringify(raw, null, 2) + (oldText.endsWith("\n") ? "\n" : "");
}
