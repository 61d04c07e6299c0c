// The series.json loader: parse, drop comments, resolve variants, validate what the parser and every build
// need (script format 3.1). Pure: the caller reads the file.

import { parsePyFloat } from "../script/rounding.ts";
import type { SeriesInfo } from "../script/types.ts";
import { hasText, isObject, oneOf } from "../store/json-guards.ts";
import { JsonSyntaxError, SeriesError } from "./errors.ts";
import type { Location, SeriesConfig, Subject, SubjectKind } from "./types.ts";

type Obj = Record<string, unknown>;

export interface Lora {
  name: string;
  strength: number;
}

export interface Profile {
  target?: string;
  model?: string;
  loras?: Lora[];
  steps?: number;
}

const KINDS: readonly SubjectKind[] = ["character", "prop", "vehicle"];
const PROFILE_KEYS = ["target", "model", "loras", "steps"];
const NO_LORA = new Set(["none", "off", "-"]);

const isComment = (key: string): boolean => key.startsWith("_");

/** Parse series.json text (a leading BOM is ignored) and load it; an already-parsed value is loaded as is. */
export function loadSeries(input: unknown): SeriesConfig {
  const raw = typeof input === "string" ? parseSeriesJson(input) : input;
  if (!isObject(raw)) throw new SeriesError("series.json must be a JSON object", null);
  const declared = entries(raw.subjects);
  const declaredLocations = entries(raw.locations);
  if (Object.keys(declared).length === 0)
    throw new SeriesError("series.json has no `subjects` block", "subjects");
  checkKinds(declared);
  const resolved = resolveVariants(declared);
  const { series, look, subjects, locations } = checkRequired(raw, resolved.subjects, declaredLocations);
  const { variants } = resolved;
  checkGroups(subjects);
  checkAngles(locations);
  checkContinuous(raw.continuous);
  return {
    raw,
    series,
    proxy: isObject(raw.proxy) ? raw.proxy : undefined,
    look,
    subjects,
    locations,
    characters: Object.keys(subjects).filter((id) => subjects[id].kind === "character"),
    variants,
  };
}

// ---------------------------------------------------------------------------------------------- JSON text

/** JSON.parse with the failure position as 1-based line/column (Node's messages do not always carry it). */
export function parseSeriesJson(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch {
    const { pos, reason } = locateJsonError(body);
    const { line, col } = lineCol(body, pos);
    throw new JsonSyntaxError(
      `series.json is not valid JSON: ${reason} at line ${line} column ${col}`,
      line,
      col,
    );
  }
}

function lineCol(text: string, pos: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < pos; i = text.indexOf("\n", i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, col: pos - start + 1 };
}

class JsonFault {
  readonly pos: number;
  readonly reason: string;
  constructor(pos: number, reason: string) {
    this.pos = pos;
    this.reason = reason;
  }
}

const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(["\\", "/", '"', "b", "f", "n", "r", "t"]);
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** Where a strict JSON reader first fails, and why (run only after JSON.parse has failed). */
function locateJsonError(text: string): JsonFault {
  let i = 0;
  const fault = (reason: string, at = i) => new JsonFault(at, reason);
  const space = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r"))
      i++;
  };
  const string = () => {
    const start = i++;
    for (;;) {
      const c = text[i];
      if (c === undefined) throw fault("unterminated string", start);
      if (c === '"') {
        i++;
        return;
      }
      if (c === "\\") {
        const e = text[i + 1];
        if (e === "u") {
          if (!HEX4.test(text.slice(i + 2, i + 6))) throw fault("invalid \\u escape");
          i += 6;
        } else if (e !== undefined && ESCAPES.has(e)) i += 2;
        else throw fault("invalid escape");
      } else if (c < " ") throw fault("invalid control character in a string");
      else i++;
    }
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === "{" || c === "[") {
      container(c === "{" ? "}" : "]", c === "{");
      return;
    }
    if (c === '"') {
      string();
      return;
    }
    for (const word of ["true", "false", "null"]) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    JSON_NUMBER.lastIndex = i;
    if (JSON_NUMBER.test(text)) {
      i = JSON_NUMBER.lastIndex;
      return;
    }
    throw fault("expecting a value");
  };
  const container = (end: string, isObj: boolean) => {
    i++;
    space();
    if (text[i] === end) {
      i++;
      return;
    }
    for (;;) {
      if (isObj) {
        space();
        if (text[i] !== '"') throw fault("expecting a property name in double quotes");
        string();
        space();
        if (text[i] !== ":") throw fault("expecting ':'");
        i++;
      }
      value();
      space();
      if (text[i] === ",") i++;
      else if (text[i] === end) {
        i++;
        return;
      } else throw fault(`expecting ',' or '${end}'`);
    }
  };
  try {
    value();
    space();
    if (i < text.length) throw fault("extra data after the JSON value");
  } catch (e) {
    if (e instanceof JsonFault) return e;
    throw e;
  }
  // JSON.parse failed where this reader did not (it should not happen): point at the end.
  return new JsonFault(text.length, "invalid JSON");
}

// ---------------------------------------------------------------------------------------------- blocks

/** A subjects/locations block without `_` comments and non-object entries (entries shallow-copied). */
function entries(block: unknown): Record<string, Obj> {
  const out: Record<string, Obj> = {};
  if (!isObject(block)) return out;
  for (const [k, v] of Object.entries(block)) if (!isComment(k) && isObject(v)) out[k] = { ...v };
  return out;
}

// The kinds were checked first: an entry names one of them or none.
function kindOf(s: Obj): SubjectKind {
  return oneOf(KINDS, s.kind) ? s.kind : "character";
}

function checkKinds(subjects: Record<string, Obj>): void {
  for (const [id, s] of Object.entries(subjects)) {
    if (s.kind !== undefined && !oneOf(KINDS, s.kind)) {
      throw new SeriesError(
        `subject ${id}: kind ${JSON.stringify(s.kind)} is not one of ${KINDS.join(", ")}`,
        `subjects.${id}`,
      );
    }
  }
}

/**
 * Materialise every variant into a complete entry (script format 3.5.3); returns the resolved subjects and
 * variant → base.
 */
function resolveVariants(declared: Record<string, Obj>): {
  subjects: Record<string, Obj>;
  variants: Record<string, string>;
} {
  const subjects: Record<string, Obj> = {};
  const variants: Record<string, string> = {};
  for (const [id, s] of Object.entries(declared)) {
    if (s.of === undefined || s.of === null) {
      subjects[id] = { ...s, kind: kindOf(s) };
      continue;
    }
    const key = `subjects.${id}`;
    const base = s.of;
    if (typeof base !== "string" || base === "")
      throw new SeriesError(`subject ${id}: \`of\` must name a subject`, key);
    if (base === id) throw new SeriesError(`subject ${id}: \`of\` names itself`, key);
    const baseEntry = Object.hasOwn(declared, base) ? declared[base] : undefined;
    if (!baseEntry) throw new SeriesError(`subject ${id}: \`of: ${base}\` is not a subject`, key);
    if (baseEntry.of !== undefined && baseEntry.of !== null) {
      throw new SeriesError(
        `subject ${id}: \`of: ${base}\` is itself a variant (of ${String(baseEntry.of)}); variants of variants are not allowed`,
        key,
      );
    }
    if (!hasText(s.design)) throw new SeriesError(`subject ${id}: a variant needs its own \`design\``, key);
    const kind = kindOf(baseEntry);
    if (s.kind !== undefined && s.kind !== kind) {
      throw new SeriesError(
        `subject ${id}: kind ${String(s.kind)} differs from its base ${base} (${kind})`,
        key,
      );
    }
    const { sheet: baseSheet, ...inherited } = baseEntry;
    const resolved: Obj = { ...inherited, ...s, kind, of: base };
    resolved.sheet = hasText(s.sheet) ? s.sheet : derivedSheet(id, base, baseSheet);
    subjects[id] = resolved;
    variants[id] = base;
  }
  return { subjects, variants };
}

/** `refs/gina/gina_sheet_4panel.png` → `refs/gina/gina_towel_sheet_4panel.png`: the first base id in the name. */
function derivedSheet(id: string, base: string, baseSheet: unknown): string {
  const sheet = typeof baseSheet === "string" ? baseSheet : "";
  const cut = Math.max(sheet.lastIndexOf("/"), sheet.lastIndexOf("\\")) + 1;
  const name = sheet.slice(cut);
  const at = name.indexOf(base);
  if (sheet === "" || at === -1) {
    const why =
      sheet === ""
        ? `${base} has no sheet`
        : `the file name of ${base}'s sheet (${sheet}) does not contain '${base}'`;
    throw new SeriesError(
      `subject ${id}: cannot derive its sheet: ${why}; give it an explicit \`sheet\``,
      `subjects.${id}`,
    );
  }
  return sheet.slice(0, cut) + name.slice(0, at) + id + name.slice(at + base.length);
}

/** The blocks every build needs, checked; answers them typed. */
function checkRequired(
  raw: Obj,
  declaredSubjects: Record<string, Obj>,
  declaredLocations: Record<string, Obj>,
): { series: Obj; look: string; subjects: Record<string, Subject>; locations: Record<string, Location> } {
  const series = raw.series;
  if (!isObject(series))
    throw new SeriesError("series.json needs a `series` object (id, title, …)", "series");
  const style = raw.style;
  if (!isObject(style) || !hasText(style.look)) {
    throw new SeriesError(
      "series.json needs `style.look`: the sentence that opens every prompt",
      "style.look",
    );
  }
  const subjects: Record<string, Subject> = {};
  for (const [id, s] of Object.entries(declaredSubjects)) {
    const key = `subjects.${id}`;
    if (!hasText(s.name)) throw new SeriesError(`subject ${id} needs a non-empty \`name\``, key);
    if (!hasText(s.design) && !hasText(s.voice)) {
      throw new SeriesError(
        `subject ${id} needs a \`design\` (or a \`voice\`, for a character who is only heard)`,
        key,
      );
    }
    subjects[id] = { ...s, kind: kindOf(s), name: s.name };
  }
  const locations: Record<string, Location> = {};
  for (const [id, loc] of Object.entries(declaredLocations)) {
    if (!hasText(loc.description)) {
      throw new SeriesError(`location ${id} needs a non-empty \`description\``, `locations.${id}`);
    }
    locations[id] = { ...loc, description: loc.description };
  }
  return { series, look: style.look, subjects, locations };
}

function checkGroups(subjects: Record<string, Subject>): void {
  for (const [id, s] of Object.entries(subjects)) {
    if (s.members === undefined) continue;
    const key = `subjects.${id}`;
    const n: unknown = s.members;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 2 || n > 12) {
      throw new SeriesError(`subject ${id}: \`members\` must be a whole number from 2 to 12`, key);
    }
    if (s.kind !== "character") {
      throw new SeriesError(
        `subject ${id}: only a character can be a group (\`members\`), not a ${s.kind}`,
        key,
      );
    }
    if (s.sheet_panels !== undefined && s.sheet_panels !== 1) {
      throw new SeriesError(
        `subject ${id}: a group's sheet is one picture, so \`sheet_panels\` must be 1`,
        key,
      );
    }
    s.sheet_panels = 1;
  }
}

function checkAngles(locations: Record<string, Location>): void {
  for (const [id, loc] of Object.entries(locations)) {
    if (loc.of === undefined) continue;
    const key = `locations.${id}`;
    const master = loc.of;
    if (typeof master !== "string" || master.trim() === "") {
      throw new SeriesError(`location ${id}: \`of\` must name a location`, key);
    }
    if (master === id) throw new SeriesError(`location ${id}: \`of\` names itself`, key);
    const entry = Object.hasOwn(locations, master) ? locations[master] : undefined;
    if (!entry) throw new SeriesError(`location ${id}: \`of: ${master}\` is not a location`, key);
    if (entry.of !== undefined) {
      throw new SeriesError(
        `location ${id}: \`of: ${master}\` is itself an angle; name its master location`,
        key,
      );
    }
  }
}

function isOverlap(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= 360;
}

function checkContinuous(block: unknown): void {
  if (block === undefined || block === null) return;
  if (!isObject(block)) {
    throw new SeriesError('series.json `continuous` must be an object like {"overlap": 39}', "continuous");
  }
  for (const k of Object.keys(block)) {
    if (k !== "overlap" && !isComment(k)) {
      throw new SeriesError(
        `series.json \`continuous\` has an unknown key '${k}' (only overlap)`,
        "continuous",
      );
    }
  }
  if (block.overlap !== undefined && !isOverlap(block.overlap)) {
    throw new SeriesError(
      "series.json `continuous.overlap` must be a whole number of frames from 1 to 360",
      "continuous.overlap",
    );
  }
}

// ---------------------------------------------------------------------------------------------- helpers for the build

function infoNumber(v: unknown, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v === "number") return v;
  if (typeof v === "string") return parsePyFloat(v) ?? (v as unknown as number);
  // Unconvertible values pass through unchanged, as the reference does.
  return v as number;
}

/**
 * `series_info` from the whole series.json object: `{fps, width, height}` of its `series` block,
 * defaults 24/1344/768, numeric strings converted (an integral float is simply an integer in JavaScript).
 */
export function seriesInfo(raw: Record<string, unknown>): SeriesInfo {
  const block = isObject(raw.series) ? raw.series : {};
  return {
    fps: infoNumber(block.fps, 24),
    width: infoNumber(block.width, 1344),
    height: infoNumber(block.height, 768),
  };
}

function loraItem(item: unknown): Lora | null {
  if (typeof item === "string") {
    const text = item.trim();
    if (NO_LORA.has(text.toLowerCase())) return null;
    const cut = text.lastIndexOf(":");
    const strength = cut >= 0 ? parsePyFloat(text.slice(cut + 1)) : null;
    const name = strength === null ? text : text.slice(0, cut).trim();
    if (name === "") throw new SeriesError(`LoRA '${item}' has no name`);
    return { name, strength: strength ?? 1 };
  }
  if (isObject(item)) {
    if (!hasText(item.name)) throw new SeriesError("a LoRA object needs a non-empty `name`");
    const s = item.strength;
    const strength =
      s === undefined ? 1 : typeof s === "number" ? s : typeof s === "string" ? parsePyFloat(s) : null;
    if (strength === null || !Number.isFinite(strength)) {
      throw new SeriesError(`LoRA '${item.name}': strength ${JSON.stringify(s)} is not a number`);
    }
    return { name: item.name.trim(), strength };
  }
  throw new SeriesError('a LoRA is "name", "name:0.6", {"name", "strength"} or "none"');
}

/** The LoRA grammar: a string or a list of `name`, `name:0.6`, `{name, strength}`; `none`/`off`/`-` drop. */
export function parseLoras(value: unknown): Lora[] {
  const items = typeof value === "string" ? [value] : Array.isArray(value) ? value : null;
  if (items === null) throw new SeriesError("`loras` must be a string or a list");
  const out: Lora[] = [];
  for (const item of items) {
    const lora = loraItem(item);
    if (lora) out.push(lora);
  }
  return out;
}

function profileString(name: string, field: string, v: unknown): string {
  if (!hasText(v)) {
    throw new SeriesError(`profile '${name}': \`${field}\` must be a non-empty string`, `profiles.${name}`);
  }
  return v.trim();
}

function checkProfile(name: string, p: unknown): Profile {
  const key = `profiles.${name}`;
  if (!isObject(p)) throw new SeriesError(`profile '${name}' must be an object`, key);
  for (const k of Object.keys(p)) {
    if (!isComment(k) && !PROFILE_KEYS.includes(k)) {
      throw new SeriesError(
        `profile '${name}': unknown key '${k}' (allowed: ${PROFILE_KEYS.join(", ")})`,
        key,
      );
    }
  }
  const out: Profile = {};
  if (p.target !== undefined) out.target = profileString(name, "target", p.target);
  if (p.model !== undefined) out.model = profileString(name, "model", p.model);
  if (p.loras !== undefined) {
    try {
      out.loras = parseLoras(p.loras);
    } catch (e) {
      if (e instanceof SeriesError) throw new SeriesError(`profile '${name}': ${e.message}`, key);
      throw e;
    }
  }
  if (p.steps !== undefined) {
    if (typeof p.steps !== "number" || !Number.isInteger(p.steps) || p.steps < 1) {
      throw new SeriesError(`profile '${name}': \`steps\` must be a whole number of at least 1`, key);
    }
    out.steps = p.steps;
  }
  return out;
}

/** The `profiles` block of series.json, normalised; `_` names are comments (script format 3.8). */
export function validateProfiles(raw: Record<string, unknown>): Record<string, Profile> {
  const block = raw.profiles;
  const out: Record<string, Profile> = {};
  if (block === undefined || block === null) return out;
  if (!isObject(block)) throw new SeriesError("series.json `profiles` must be an object", "profiles");
  for (const [name, p] of Object.entries(block)) if (!isComment(name)) out[name] = checkProfile(name, p);
  return out;
}
