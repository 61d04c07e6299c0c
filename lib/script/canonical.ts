// Python-compatible JSON text: the canonical form the story/preset hashes are taken of (script format 4.17,
// open point 2), and the indented form of shots.json. JavaScript cannot tell 3.0 from 3, so the writer is
// told which keys hold Python floats and prints those with Python's float repr (`3.0`, `1e-05`, `1e+16`).
import { isObject } from "../store/json-guards.ts";
import { sha1Hex } from "../text/digest.ts";

/**
 * Keys whose numbers the reference writes as floats in compiled entries and presets: timing seconds
 * (`audio_in`, `audio_out`, `duration`, `seconds`), the `dur: model` clamp (`min`, `max`) and its prediction
 * range (`min_seconds`, `max_seconds`), LoRA `strength`, and `fps` (prose targets' defaults).
 * An array under one of these keys has its numbers printed as floats too.
 */
export const FLOAT_KEYS: ReadonlySet<string> = new Set([
  "audio_in",
  "audio_out",
  "duration",
  "seconds",
  "min",
  "max",
  "strength",
  "min_seconds",
  "max_seconds",
  "fps",
]);

/** Float keys of the story IR (shots.json); `fps` there is series_info's, which the reference makes an int. */
export const STORY_FLOAT_KEYS: ReadonlySet<string> = new Set([
  "audio_in",
  "audio_out",
  "seconds",
  "min",
  "max",
]);

/** Python's `repr(float)`: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Number.POSITIVE_INFINITY) return "Infinity";
  if (x === Number.NEGATIVE_INFINITY) return "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  // toExponential() without an argument gives the same shortest round-trip digits Python uses.
  const [mantissa, expText] = Math.abs(x).toExponential().split("e");
  const exp = Number(expText);
  const digits = mantissa.replace(".", "");
  const point = exp + 1;
  if (point <= -4 || point > 16) {
    const m = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    return `${sign}${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

export interface PyJsonOptions {
  /** Spaces per level; absent = the compact `(",", ":")` form. */
  indent?: number;
  sortKeys?: boolean;
  floatKeys?: ReadonlySet<string>;
}

function numberText(n: number, asFloat: boolean): string {
  if (asFloat || !Number.isInteger(n)) return pyFloatRepr(n);
  return Math.abs(n) < 1e21 ? String(n) : BigInt(n).toString();
}

function isSkipped(v: unknown): boolean {
  return v === undefined || typeof v === "function" || typeof v === "symbol";
}

/** `json.dumps(value, ensure_ascii=False, ...)` as Python writes it; bigint becomes an integer literal. */
export function pyJson(value: unknown, options: PyJsonOptions = {}): string {
  const indent = options.indent;
  const sortKeys = options.sortKeys ?? false;
  const floatKeys = options.floatKeys ?? FLOAT_KEYS;
  const colon = indent === undefined ? ":" : ": ";

  const write = (v: unknown, asFloat: boolean, depth: number): string => {
    if (v === null || isSkipped(v)) return "null";
    switch (typeof v) {
      case "string":
        // JSON.stringify escapes exactly the characters Python escapes with ensure_ascii=False.
        return JSON.stringify(v);
      case "number":
        return numberText(v, asFloat);
      case "bigint":
        return v.toString();
      case "boolean":
        return v ? "true" : "false";
    }
    const open = indent === undefined ? "" : `\n${" ".repeat(indent * (depth + 1))}`;
    const close = indent === undefined ? "" : `\n${" ".repeat(indent * depth)}`;
    if (Array.isArray(v)) {
      if (v.length === 0) return "[]";
      const items = v.map((item) => write(item, asFloat, depth + 1));
      return `[${open}${items.join(`,${open}`)}${close}]`;
    }
    // What is left is an object: functions, symbols and undefined were skipped above.
    const obj = isObject(v) ? v : {};
    const keys = Object.keys(obj).filter((k) => !isSkipped(obj[k]));
    if (sortKeys) keys.sort();
    if (keys.length === 0) return "{}";
    const items = keys.map(
      (k) => `${JSON.stringify(k)}${colon}${write(obj[k], floatKeys.has(k), depth + 1)}`,
    );
    return `{${open}${items.join(`,${open}`)}${close}}`;
  };
  return write(value, false, 0);
}

/** `json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)`: the text hashes are taken of. */
export function canonicalJson(value: unknown, floatKeys: ReadonlySet<string> = FLOAT_KEYS): string {
  return pyJson(value, { sortKeys: true, floatKeys });
}

/** Render settings: they change how a take looks, not what the story asks, so they do not make it stale. */
const SETTINGS_KEYS = ["model", "lora", "steps", "loras", "profile"];

/** Staleness of a take for reason `script`: SHA-1 of the compiled entry without its render settings. */
export function storyHash(entry: Record<string, unknown>): string {
  const story: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(entry)) if (!SETTINGS_KEYS.includes(k)) story[k] = v;
  return sha1Hex(canonicalJson(story));
}

const orNull = (v: unknown): unknown => (v === undefined ? null : v);

/** Staleness of a take for reason `preset`: the pass defaults and the entry's own settings. */
export function presetHash(defaults: Record<string, unknown>, shot: Record<string, unknown>): string {
  const d: Record<string, unknown> = {
    model: orNull(defaults.model),
    lora: orNull(defaults.lora),
    steps: orNull(defaults.steps),
    width: orNull(defaults.width),
    height: orNull(defaults.height),
  };
  if (defaults.model_low !== undefined) d.model_low = defaults.model_low;
  if (defaults.loras !== undefined) d.loras = defaults.loras;
  const s: Record<string, unknown> = {
    model: orNull(shot.model),
    lora: orNull(shot.lora),
    steps: orNull(shot.steps),
  };
  if (shot.loras !== undefined) s.loras = shot.loras;
  if (shot.profile !== undefined) s.profile = shot.profile;
  return sha1Hex(canonicalJson({ defaults: d, shot: s }));
}
