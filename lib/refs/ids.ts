// Reference ids (`subject:<id>`, `location:<id>`, `voice:<id>`, `shot:<shot>:first|last`), their folder keys,
// and the view names a reference take may carry.
import { z } from "zod";
import { badRequest, shown } from "../errors.ts";

/** A character's four views, in sheet order (left to right on the stitched sheet). */
export const VIEWS = ["01_threequarter", "02_side", "03_back", "04_face"] as const;
export type CharacterView = (typeof VIEWS)[number];
/** Takes that are not one of the four views: a ready-made sheet, 360 panoramas, held frames of a tour. */
export const PSEUDO_VIEWS = ["sheet", "pano", "tour"] as const;
export type PseudoView = (typeof PSEUDO_VIEWS)[number];
export type RefView = CharacterView | PseudoView;

export const KEYFRAME_ENDS = ["first", "last"] as const;
export type KeyframeEnd = (typeof KEYFRAME_ENDS)[number];

export type RefFamily = "subject" | "location" | "voice" | "shot";

export interface RefId {
  /** The id as written: `subject:dean`, `shot:sh010:first`. */
  id: string;
  family: RefFamily;
  scope: "series" | "shot";
  /** The subject, location or voice id; for a keyframe, the shot id. */
  name: string;
  /** Keyframes only. */
  which?: KeyframeEnd;
  /** Folder and file-name key: the id with `:` as `__` (characters a file name cannot hold as `_`). */
  key: string;
}

/** Longest ref id a request may name: its key becomes a folder and file names with a view and take after it. */
export const MAX_REF_ID = 160;

// A name part is one word: no separator, control, `:` or path character; `.`/`..` alone are not names.
const NAME = /^[^\s\p{C}:/\\]+$/u;

export const REF_ID_RULE =
  "must be a reference id: subject:<id>, location:<id>, voice:<id> or shot:<shot>:first|last";

/** The folder key of an id: `:` becomes `__`, and anything a portable file name cannot hold becomes `_`. */
export function refKey(id: string): string {
  return id.replaceAll(":", "__").replace(/[^A-Za-z0-9_.-]/g, "_");
}

/** Parses a ref id, or null when it is not one. */
export function readRefId(text: string): RefId | null {
  if (text.length === 0 || text.length > MAX_REF_ID) return null;
  const parts = text.split(":");
  const [family, name, which] = parts;
  if (!name || !NAME.test(name) || name === "." || name === "..") return null;
  if (family === "subject" || family === "location" || family === "voice") {
    if (parts.length !== 2) return null;
    return { id: text, family, scope: "series", name, key: refKey(text) };
  }
  if (family === "shot") {
    if (parts.length !== 3 || (which !== "first" && which !== "last")) return null;
    return { id: text, family, scope: "shot", name, which, key: refKey(text) };
  }
  return null;
}

/** Parses a ref id from a request, 400 when it is not one. */
export function parseRefId(value: unknown, field = "ref"): RefId {
  const parsed = typeof value === "string" ? readRefId(value) : null;
  if (!parsed) throw badRequest(`${field} ${REF_ID_RULE}; got ${shown(value)}`);
  return parsed;
}

export const isCharacterView = (v: unknown): v is CharacterView => VIEWS.includes(v as CharacterView);
export const isRefView = (v: unknown): v is RefView =>
  isCharacterView(v) || PSEUDO_VIEWS.includes(v as PseudoView);

/** The request fields `ref` and `view`, as every refs route takes them. */
export const refField = z
  .string()
  .max(MAX_REF_ID)
  .refine((v) => readRefId(v) !== null, REF_ID_RULE)
  .describe("A reference id: subject:<id>, location:<id>, voice:<id> or shot:<shot>:first|last");

export const viewField = z
  .enum([...VIEWS, ...PSEUDO_VIEWS])
  .nullish()
  .describe(
    "A character view (01_threequarter, 02_side, 03_back, 04_face) or a pseudo-view (sheet, pano, tour); null for a reference without views",
  );

/** The stem of a take's files: `<key>[_<view>]_tNN` (two digits at least). */
export function takeStem(key: string, view: RefView | null, take: number): string {
  return `${key}${view ? `_${view}` : ""}_t${String(take).padStart(2, "0")}`;
}

/** Reads a take file name back into its view and number, for files under `refs/_takes/<key>/`. */
export function readTakeStem(key: string, stem: string): { view: RefView | null; take: number } | null {
  if (!stem.startsWith(key)) return null;
  const rest = stem.slice(key.length);
  const m = /^(?:_([a-z0-9_]+?))?_t(\d{2,})$/.exec(rest);
  if (!m) return null;
  const view = m[1] ?? null;
  if (view !== null && !isRefView(view)) return null;
  const take = Number(m[2]);
  if (!Number.isSafeInteger(take) || take < 1) return null;
  return { view, take };
}
