// `refs/_overrides.json`: the editor's per-reference settings, one level deep (the ref, or one of a character's
// views), each block stamped with the SHA-1 of the built prompt it was written over. One lenient schema per
// block; read and written atomically in the ref's home under that home's lock; the checks and answers of
// PUT / DELETE /studio/refs/override.
import { z } from "zod";
import type { Services } from "../context.ts";
import { badRequest } from "../errors.ts";
import { readShowJson, writeShowFile } from "../paths/guarded.ts";
import { isTargetId, seed as seedField, TARGET_ID_RULE } from "../schema/fields.ts";
import { pyJson } from "../script/canonical.ts";
import { parseLoras } from "../series/load.ts";
import { forgetJsonFile } from "../store/json-file.ts";
import { errorMessage, isObject, isWhole, type JsonObject, oneOf } from "../store/json-guards.ts";
import { type Lenient, recordKind } from "../store/record.ts";
import { sha1Hex } from "../text/digest.ts";
import { type RefId, VIEWS } from "./ids.ts";
import { overridesFile, type RefsPlace, takesFence } from "./place.ts";
import { withRefsLock } from "./takes.ts";

/** The fields PUT /refs/override takes, in the order the file and the refusal list them. */
export const REF_OVERRIDE_FIELDS = [
  "prompt",
  "seed",
  "model",
  "loras",
  "steps",
  "note",
  "target",
  "size",
  "cfg",
  "negative",
  "params",
] as const;
export type RefOverrideField = (typeof REF_OVERRIDE_FIELDS)[number];

export const PARAM_FIELDS = ["sampler", "scheduler", "denoise", "shift", "guidance"] as const;
export type ParamField = (typeof PARAM_FIELDS)[number];

/** Size limits of a reference picture, per side. */
export const MIN_SIDE = 256;
export const MAX_SIDE = 4096;
export const MAX_CFG = 30;

const txt = z.string();
const FIELDS_SHAPE = {
  prompt: txt,
  base_hash: txt,
  // An integer in the file (63-bit, read as a bigint); digit text from an older writer still reads.
  seed: z.union([z.bigint(), z.string().regex(/^\d+$/)]),
  model: txt,
  loras: z.array(z.looseObject({ name: txt, strength: z.number() })),
  steps: z.number().int(),
  note: txt,
  target: txt,
  size: txt,
  cfg: z.number(),
  negative: txt,
  params: z.looseObject({}),
};
export type RefOverrideFields = Lenient<typeof FIELDS_SHAPE>;
const fieldsKind = recordKind(FIELDS_SHAPE);
const refKind = recordKind({ ...FIELDS_SHAPE, views: z.record(z.string(), z.looseObject({})) });

/** A ref's entry: its own fields and, for a character, a block per view. */
export type RefOverride = RefOverrideFields & { views?: Record<string, RefOverrideFields> };

export interface RefOverridesFile {
  refs: Record<string, RefOverride>;
  /** Keys of the file this service does not write are kept as they were. */
  [other: string]: unknown;
}

/** One entry as read: each known field typed or null, views each read the same way. */
export function readRefOverride(raw: unknown): RefOverride | null {
  const entry = refKind.parse(raw);
  if (!entry) return null;
  const { views: rawViews, ...rest } = entry;
  const out: RefOverride = { ...rest };
  if (isObject(rawViews)) {
    const views: Record<string, RefOverrideFields> = {};
    for (const [view, block] of Object.entries(rawViews)) {
      const read = fieldsKind.parse(block);
      if (read) views[view] = read;
    }
    out.views = views;
  }
  return out;
}

/** The file of the ref's home as read (a fresh copy); `{refs: {}}` when there is none. */
export async function readRefOverrides(
  services: Pick<Services, "caches">,
  place: RefsPlace,
  ref: Pick<RefId, "scope">,
): Promise<RefOverridesFile> {
  const raw = await readShowJson(
    services,
    takesFence(place, ref),
    overridesFile(place, ref),
    "refs/_overrides.json",
  );
  const doc: JsonObject = isObject(raw) ? structuredClone(raw) : {};
  const refs: Record<string, RefOverride> = {};
  for (const [id, entry] of Object.entries(isObject(doc.refs) ? doc.refs : {})) {
    const read = readRefOverride(entry);
    if (read) refs[id] = read;
  }
  return { ...doc, refs };
}

// Numbers of these keys are written as Python writes floats (`1.0`), as the original's files have them.
const FLOAT_KEYS: ReadonlySet<string> = new Set(["cfg", "strength", "denoise", "shift", "guidance"]);

export function refOverridesText(file: RefOverridesFile): string {
  return `${pyJson(file, { indent: 2, floatKeys: FLOAT_KEYS })}\n`;
}

/**
 * Changes one ref's entry under the ref home's lock: `change` gets the file as read and returns the answer;
 * the file is written only when the entry changed.
 */
export function updateRefOverrides<T>(
  services: Pick<Services, "caches" | "locks">,
  place: RefsPlace,
  ref: RefId,
  change: (file: RefOverridesFile) => T | Promise<T>,
): Promise<T> {
  return withRefsLock(services, place, ref, async () => {
    const file = await readRefOverrides(services, place, ref);
    const before = refOverridesText(file);
    const answer = await change(file);
    const after = refOverridesText(file);
    if (after !== before) {
      const target = overridesFile(place, ref);
      await writeShowFile(takesFence(place, ref), target, after);
      forgetJsonFile(services, target);
    }
    return answer;
  });
}

// ------------------------------------------------------------------------------------------- checking values

/** The request's `view`: overrides are kept per reference or per character view (the pseudo-views have none). */
export const overrideViewField = z
  .enum(VIEWS)
  .or(z.literal(""))
  .nullish()
  .transform((v) => v || null)
  .describe(
    "A character view (01_threequarter, 02_side, 03_back, 04_face); left out or blank: the reference itself",
  );

/** A checked change: a field absent is left as it is, null clears it. */
export type RefOverrideChange = {
  prompt?: string | null;
  seed?: bigint | null;
  model?: string | null;
  loras?: { name: string; strength: number }[] | null;
  steps?: number | null;
  note?: string | null;
  target?: string | null;
  size?: string | null;
  cfg?: number | null;
  negative?: string | null;
  params?: Partial<Record<ParamField, string | number>> | null;
};

const clears = (v: unknown) => v === null || v === "";

function text(field: string, v: unknown): string | null {
  if (clears(v)) return null;
  if (typeof v !== "string") throw badRequest(`${field} must be text, or null to clear it`);
  return v.trim() === "" ? null : v;
}

/**
 * `fields` of PUT /refs/override checked on their own (unknown names, types, limits); what depends on the
 * reference or its target is checked by `checkForRef`. Null, `""` and `{}` clear a field.
 */
export function checkRefOverrideFields(fields: Record<string, unknown>): RefOverrideChange {
  const unknown = Object.keys(fields)
    .filter((k) => !oneOf(REF_OVERRIDE_FIELDS, k))
    .sort();
  if (unknown.length) {
    throw badRequest(
      `unknown override field(s) ${unknown.join(", ")}: one of ${REF_OVERRIDE_FIELDS.join(", ")}`,
    );
  }
  const change: RefOverrideChange = {};
  const has = (k: RefOverrideField) => Object.hasOwn(fields, k);
  for (const k of ["prompt", "model", "note", "negative"] as const) {
    if (has(k)) change[k] = text(k, fields[k]);
  }
  if (has("seed")) change.seed = seedValue(fields.seed);
  if (has("target")) {
    const target = text("target", fields.target);
    if (target !== null && !isTargetId(target)) throw badRequest(`target ${TARGET_ID_RULE}, or null`);
    change.target = target;
  }
  if (has("loras")) change.loras = lorasValue(fields.loras);
  if (has("steps")) {
    const v = fields.steps;
    if (!clears(v) && !(isWhole(v) && v >= 1)) {
      throw badRequest(`steps must be a whole number of at least 1, or null; got ${JSON.stringify(v)}`);
    }
    change.steps = clears(v) ? null : (v as number);
  }
  if (has("size")) change.size = sizeValue(fields.size);
  if (has("cfg")) {
    const v = fields.cfg;
    if (!clears(v) && !(typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= MAX_CFG)) {
      throw badRequest(`cfg must be a number from 0 to ${MAX_CFG}, or null; got ${JSON.stringify(v)}`);
    }
    change.cfg = clears(v) ? null : (v as number);
  }
  if (has("params")) change.params = paramsValue(fields.params);
  return change;
}

function seedValue(v: unknown): bigint | null {
  const parsed = seedField.safeParse(v);
  if (!parsed.success)
    throw badRequest(`seed ${parsed.error.issues[0]?.message ?? "must be a string of digits"}`);
  return parsed.data;
}

function lorasValue(v: unknown): { name: string; strength: number }[] | null {
  if (clears(v)) return null;
  try {
    return parseLoras(v).map((l) => ({ name: l.name, strength: l.strength }));
  } catch (err) {
    throw badRequest(`loras: ${errorMessage(err)}`);
  }
}

function sizeValue(v: unknown): string | null {
  if (clears(v)) return null;
  const m = typeof v === "string" ? /^\s*(\d+)\s*[xX]\s*(\d+)\s*$/.exec(v) : null;
  const w = m ? Number(m[1]) : 0;
  const h = m ? Number(m[2]) : 0;
  const inRange = (n: number) => n >= MIN_SIDE && n <= MAX_SIDE;
  if (!m || !inRange(w) || !inRange(h)) {
    throw badRequest(
      `size must be WxH with each side from ${MIN_SIDE} to ${MAX_SIDE} (like 1024x1024), or null; got ${JSON.stringify(v)}`,
    );
  }
  return `${w}x${h}`;
}

const PARAM_RULES: Record<ParamField, { check: (v: unknown) => boolean; rule: string }> = {
  sampler: { check: (v) => typeof v === "string" && v.trim() !== "", rule: "a sampler name" },
  scheduler: { check: (v) => typeof v === "string" && v.trim() !== "", rule: "a scheduler name" },
  denoise: { check: (v) => typeof v === "number" && v >= 0 && v <= 1, rule: "a number from 0 to 1" },
  shift: { check: (v) => typeof v === "number" && v >= 0 && v <= 100, rule: "a number from 0 to 100" },
  guidance: { check: (v) => typeof v === "number" && v >= 0 && v <= 100, rule: "a number from 0 to 100" },
};

function paramsValue(v: unknown): Partial<Record<ParamField, string | number>> | null {
  if (clears(v)) return null;
  if (!isObject(v)) throw badRequest(`params must be an object of ${PARAM_FIELDS.join(", ")}, or null`);
  const unknown = Object.keys(v)
    .filter((k) => !oneOf(PARAM_FIELDS, k))
    .sort();
  if (unknown.length) {
    throw badRequest(`unknown param(s) ${unknown.join(", ")}: one of ${PARAM_FIELDS.join(", ")}`);
  }
  const out: Partial<Record<ParamField, string | number>> = {};
  for (const p of PARAM_FIELDS) {
    const value = v[p];
    if (value === undefined || clears(value)) continue;
    if (!PARAM_RULES[p].check(value)) {
      throw badRequest(`params.${p} must be ${PARAM_RULES[p].rule}, or null; got ${JSON.stringify(value)}`);
    }
    out[p] = typeof value === "string" ? value.trim() : (value as number);
  }
  return Object.keys(out).length ? out : null;
}

// ------------------------------------------------------------------------------------- the checks of a ref

/** What the checks need of the reference and of the target it renders on after the change. */
export interface RefOverrideSubject {
  ref: RefId;
  /** A character: four views, and prompt overrides belong to a view. */
  hasViews: boolean;
  view: string | null;
  /** Ids of the targets a ref of this kind may use (image targets; audio targets for a voice). */
  targetKind: "image" | "audio";
  targetIds: readonly string[];
  /** The target after the change, and what it takes. */
  target: string;
  targetShort: string;
  takesNegative: boolean;
  params: ReadonlySet<string>;
}

/**
 * Refusals that depend on the reference and its target (400 each), and the params the target does not take
 * dropped from the change with a note.
 */
export function checkForRef(change: RefOverrideChange, s: RefOverrideSubject): string[] {
  const notes: string[] = [];
  const { ref, view } = s;
  if (view !== null && !s.hasViews) {
    throw badRequest(`${ref.id} has no views: its override is set on the reference itself (leave view out)`);
  }
  if (change.prompt && s.hasViews && view === null) {
    throw badRequest(
      `${ref.id} is a character: its prompt override belongs to one of its views (01_threequarter, 02_side, 03_back, 04_face)`,
    );
  }
  if (change.size && ref.family === "shot") {
    throw badRequest("size is not set on a keyframe: it is made at its shot's size");
  }
  if (change.size && ref.family === "voice")
    throw badRequest("size is not set on a voice: it is a recording");
  if (change.target && !s.targetIds.includes(change.target)) {
    throw badRequest(
      `target: '${change.target}' is not an ${s.targetKind} target (known: ${s.targetIds.join(", ") || "none"})`,
    );
  }
  if (change.negative && !s.takesNegative) {
    throw badRequest(`negative: ${s.targetShort} takes no negative prompt`);
  }
  if (change.params) {
    const kept: Partial<Record<ParamField, string | number>> = {};
    for (const [p, v] of Object.entries(change.params)) {
      if (s.params.has(p)) kept[p as ParamField] = v;
      else notes.push(`params.${p} skipped: ${s.targetShort} has no ${p} setting`);
    }
    change.params = Object.keys(kept).length ? kept : null;
  }
  return notes;
}

// --------------------------------------------------------------------------------------------- changing it

const BLOCK_ORDER = ["prompt", "base_hash", ...REF_OVERRIDE_FIELDS.filter((f) => f !== "prompt")] as const;

/** The fields a block sets (not its stamp). */
export const setFields = (block: RefOverrideFields | undefined): string[] =>
  Object.keys(block ?? {}).filter((k) => k !== "base_hash" && k !== "views" && block?.[k] !== null);

/**
 * A block with the change applied; null when nothing is left in it. The stamp records the built prompt the block's
 * prompt was written over: a new prompt (or a block without a stamp) takes `hash` (null: no built prompt to stamp
 * with), while other fields leave an older stamp alone, so a prompt written before the design changed stays stale.
 */
export function changedBlock(
  current: RefOverrideFields | undefined,
  change: RefOverrideChange,
  hash: string | null,
): RefOverrideFields | null {
  const merged: RefOverrideFields = { ...(current ?? {}) };
  for (const [k, v] of Object.entries(change)) {
    if (v === null || v === undefined) delete merged[k];
    else merged[k] = v;
  }
  const restamp = change.prompt !== undefined || typeof current?.base_hash !== "string";
  if (restamp) delete merged.base_hash;
  if (setFields(merged).length === 0) return null;
  if (restamp && hash !== null) merged.base_hash = hash;
  const out: JsonObject = {};
  for (const k of BLOCK_ORDER) if (merged[k] !== undefined) out[k] = merged[k];
  for (const [k, v] of Object.entries(merged)) if (!(k in out)) out[k] = v;
  return out as RefOverrideFields;
}

/** Applies a PUT to the file: the ref's own block, or one view's. */
export function putChange(
  file: RefOverridesFile,
  id: string,
  view: string | null,
  change: RefOverrideChange,
  builtPrompt: string | null,
): void {
  const hash = builtPrompt === null ? null : sha1Hex(builtPrompt);
  const entry: RefOverride = { ...(file.refs[id] ?? {}) };
  if (view === null) {
    const { views, ...own } = entry;
    const block = changedBlock(own, change, hash);
    setEntry(file, id, { ...(block ?? {}), ...(views ? { views } : {}) });
  } else {
    const views = { ...(entry.views ?? {}) };
    const block = changedBlock(views[view], change, hash);
    if (block) views[view] = block;
    else delete views[view];
    setEntry(file, id, { ...entry, views });
  }
}

/** DELETE: without a view the whole entry goes (its views too); with one, exactly that view's own fields. */
export function deleteChange(file: RefOverridesFile, id: string, view: string | null): void {
  const entry = file.refs[id];
  if (!entry) return;
  if (view === null) {
    delete file.refs[id];
    return;
  }
  const views = { ...(entry.views ?? {}) };
  delete views[view];
  setEntry(file, id, { ...entry, views });
}

// An entry with no fields and no views is removed; an empty views map is dropped.
function setEntry(file: RefOverridesFile, id: string, entry: RefOverride): void {
  const out: RefOverride = { ...entry };
  if (out.views && Object.keys(out.views).length === 0) delete out.views;
  if (setFields(out).length === 0 && !out.views) delete file.refs[id];
  else file.refs[id] = out;
}

// ----------------------------------------------------------------------------------------------- the answer

/** A block's fields as the wire shows them: no stamp, the seed as text. */
function wireFields(block: RefOverrideFields | undefined): JsonObject {
  const out: JsonObject = {};
  for (const k of setFields(block)) {
    const v = block?.[k];
    out[k] = k === "seed" ? String(v) : v;
  }
  return out;
}

/** True when the block was written over a built prompt that has changed since. */
export function blockStale(block: RefOverrideFields | undefined, builtPrompt: string | null): boolean {
  const stamp = block?.base_hash;
  return typeof stamp === "string" && builtPrompt !== null && stamp !== sha1Hex(builtPrompt);
}

export interface OverrideView {
  /** The fields that apply: a view's own over the ref's. */
  values: JsonObject;
  /** Names of those fields. */
  fields: string[];
  stale: boolean;
  /** Views only: the fields set on the view itself. */
  own?: string[];
}

/**
 * The override of the ref (view null) or of one view as the routes and the listing show it. A view's values are
 * the ref's with the view's own on top; it is stale when a block it reads was written over another prompt.
 */
export function overrideView(
  entry: RefOverride | undefined,
  view: string | null,
  builtPrompt: string | null,
  refBuiltPrompt: string | null = builtPrompt,
): OverrideView {
  const { views, ...refBlock } = entry ?? {};
  if (view === null) {
    const values = wireFields(refBlock);
    return { values, fields: Object.keys(values), stale: blockStale(refBlock, builtPrompt) };
  }
  const own = views?.[view];
  const values = { ...wireFields(refBlock), ...wireFields(own) };
  return {
    values,
    fields: Object.keys(values),
    stale: blockStale(own, builtPrompt) || blockStale(refBlock, refBuiltPrompt),
    own: setFields(own),
  };
}

/** The `override` of the PUT / DELETE answer: the fields that apply, `stale`, and `own` for a view. */
export function overrideAnswer(v: OverrideView): JsonObject {
  return { ...v.values, stale: v.stale, ...(v.own ? { own: v.own } : {}) };
}
