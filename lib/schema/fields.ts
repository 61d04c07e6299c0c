// Zod fragments shared by request schemas: ids with a length and shape limit, and JSON values of bounded depth.
import { z } from "zod";

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

export const shotId = z.string().max(MAX_SHOT_ID, SHOT_ID_RULE).regex(SHOT_ID, SHOT_ID_RULE);

export const targetId = z.string().regex(TARGET_ID, TARGET_ID_RULE);

/** A target id, or blank text meaning "not set". */
export const targetIdOrBlank = z
  .string()
  .refine((v) => v.trim() === "" || isTargetId(v), `${TARGET_ID_RULE}, or blank`);

/** How deeply `value` nests arrays and objects, counted without recursion so any depth is safe to measure. */
export function depthOf(value: unknown, stopAt = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop() as [unknown, number];
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
