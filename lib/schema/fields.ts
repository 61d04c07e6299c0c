// Zod fragments shared by request schemas, each with a one-line description for the API document: the episode,
// pass, shot, take and target fields, sizes, seeds, query-string booleans, and JSON values of bounded depth.
import { z } from "zod";
import { shown } from "../errors.ts";

/** Longest shot id a request may name; the file names made from it must stay well under a file system's limit. */
export const MAX_SHOT_ID = 64;
/** Longest job id a request may name (the store makes `j_` and 12 hex digits). */
export const MAX_JOB_ID = 64;
/** Longest lane name: `deployment:` and a target id. */
export const MAX_LANE = 128;
/** Deepest nesting accepted inside a free-form JSON value (limits, overrides): deeper is never a real setting. */
export const MAX_VALUE_DEPTH = 16;

export const SHOT_ID_RULE = `must be a shot id (like sh010): one word of at most ${MAX_SHOT_ID} characters`;
export const TARGET_ID_RULE = "must be a target id (letters, digits, _ . -)";

// A shot id is the first word of its script header, so it holds no space, control or invisible format character.
const SHOT_ID = /^[^\s\p{C}]+$/u;
const TARGET_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

export function isTargetId(value: unknown): value is string {
  return typeof value === "string" && TARGET_ID.test(value);
}

export const shotId = z
  .string()
  .max(MAX_SHOT_ID, SHOT_ID_RULE)
  .regex(SHOT_ID, SHOT_ID_RULE)
  .describe("A shot id as the script's shot header names it, like sh010");

export const targetId = z
  .string()
  .regex(TARGET_ID, TARGET_ID_RULE)
  .describe("A target id (a model adapter), like ltx2 or animatic");

/** Where a custom target is kept; checked by the route so a wrong word is named in the answer. */
export const customScope = z
  .string()
  .max(20)
  .optional()
  .describe(
    "show (the default: kept in the show of `ep`) or settings (kept beside settings.json, every show's; no ep)",
  );

/** A workflow's name among the engine's saved workflows; checked further by the route (it ends in .json). */
export const savedWorkflowName = z.string().max(200);

/** A target id, or blank text meaning "not set". */
export const targetIdOrBlank = z
  .string()
  .refine((v) => v.trim() === "" || isTargetId(v), `${TARGET_ID_RULE}, or blank`)
  .describe("A target id (a model adapter), like ltx2; blank: not set");

/** The episode a request is about. */
export const ep = z.string().describe("The episode folder: an absolute path inside one of the roots");

export const PASSES = ["final", "proxy"] as const;
export type PassName = (typeof PASSES)[number];

/** A pass that must be given. */
export const passName = z.enum(PASSES).describe('A pass: "final" or "proxy"');

/**
 * A pass that may be left out, null or blank, meaning `fallback`: `proxy` on most routes, `final` where the
 * contract says the work is for the final pass (upscale, post, master).
 */
export const passOr = (fallback: PassName) =>
  z
    .enum(PASSES)
    .or(z.literal(""))
    .nullish()
    .transform((v): PassName => v || fallback)
    .describe(`The pass: "final" or "proxy"; left out or blank: ${fallback}`);

/** The pass of most routes: proxy unless given. */
export const pass = passOr("proxy");

/** A pass that narrows a listing: left out or blank means both passes (null). */
export const passFilter = z
  .enum(PASSES)
  .or(z.literal(""))
  .nullish()
  .transform((v): PassName | null => v || null)
  .describe('Only this pass: "final" or "proxy"; left out or blank: both passes');

/** A take number: takes are counted from 1 within a shot and pass. */
export const take = z.int().min(1).describe("A take number, counted from 1 within a shot and pass");

/** A take number written as digits (a query string holds only text): "x", "1.5" or "0x10" are refused. */
const takeDigits = z
  .string()
  .regex(/^\d+$/, { error: (issue) => `must be a whole number (got ${shown(issue.input)})` })
  .transform(Number)
  .pipe(take);

/** A take number in a query string. */
export const queryTake = takeDigits.describe("The take number, as digits");

/** A take number in a JSON body: a number, or its digits as text. */
export const takeOrDigits = z.union([take, takeDigits]).describe("A take number (digits as text also do)");

/** Which source file of the episode: its script or its series config. */
export const sourceFile = z
  .enum(["script", "series"])
  .describe('Which file: "script" (the episode script) or "series" (its series.json)');

/** A picture size as text; its limits depend on the use (an encoder's, a model's), so the route checks them. */
export const sizeText = z.string().describe("A size in pixels as WxH, like 1344x768");

/** A yes/no in a query string: 1 or true, else 0, false, blank or left out; anything else is refused. */
export const queryFlag = z
  .enum(["1", "true", "0", "false", ""], {
    error: (issue) =>
      issue.input === undefined ? undefined : `must be 1 or 0, true or false (got ${shown(issue.input)})`,
  })
  .optional()
  .transform((v) => v === "1" || v === "true");

const MAX_SEED = (1n << 64n) - 1n;

/** A seed: digit text (spaces trimmed) or a safe whole number, 0 to 2^64-1; null, left out or blank: not set. */
export const seed = z
  .union([z.string(), z.number()], {
    error: (issue) => `must be a string of digits (got ${shown(issue.input)})`,
  })
  .nullish()
  .transform((v, ctx): bigint | null => {
    if (v === undefined || v === null) return null;
    const refuse = (message: string) => {
      ctx.addIssue({ code: "custom", message, input: v });
      return z.NEVER;
    };
    if (typeof v === "number") {
      if (Number.isSafeInteger(v) && v >= 0) return BigInt(v);
      return refuse(
        `must be a string of digits (got ${v}; a seed past 2^53 loses digits as a number: send it as text)`,
      );
    }
    const t = v.trim();
    if (t === "") return null;
    if (!/^\d+$/.test(t)) return refuse(`must be a string of digits (got ${shown(v)})`);
    const n = BigInt(t);
    return n > MAX_SEED ? refuse(`must be between 0 and 2^64-1 (got ${t})`) : n;
  })
  .describe(
    "A seed as a string of digits, 0 to 2^64-1 (a whole number under 2^53 also does); blank: not set",
  );

/** How deeply `value` nests arrays and objects, counted without recursion so any depth is safe to measure. */
export function depthOf(value: unknown, stopAt = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const top = stack.pop();
    if (!top) break;
    const [v, d] = top;
    if (v === null || typeof v !== "object") continue;
    if (d + 1 > deepest) deepest = d + 1;
    if (deepest > stopAt) return deepest;
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return deepest;
}

/** Any JSON value nesting at most MAX_VALUE_DEPTH levels. */
export const boundedJson = z
  .unknown()
  .refine(
    (v) => depthOf(v, MAX_VALUE_DEPTH) <= MAX_VALUE_DEPTH,
    `must nest at most ${MAX_VALUE_DEPTH} levels of arrays and objects`,
  );
