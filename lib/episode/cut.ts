// cut.json: read with the reading rules, entries kept compact, written atomically with a
// `_history/` copy of the previous bytes only when the content really changes.
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { StudioError } from "../errors.ts";
import { episodeFence, readShowFile, writeShowFile } from "../paths/guarded.ts";
import { errorCode, errorMessage } from "../store/json-guards.ts";
import {
  type CutAudio,
  type CutEntry,
  type CutFile,
  cutAudioRecord,
  cutEntryRecord,
  cutRecord,
  isEntryField,
} from "./cut-record.ts";
import { saveHistory } from "./history.ts";
import { readBuild, readStory } from "./shotlists.ts";

export type { CutAudio, CutEntry, CutFile };

export const PASSES: readonly Pass[] = ["final", "proxy"];
export const CUT_FILE = "cut.json";

/** The fields a cut entry may carry, in the order they are written. */
export const ENTRY_FIELDS = cutEntryRecord.order;

export interface StoredCut {
  file: CutFile;
  /** The bytes on disk, or null when there is no cut.json yet. */
  bytes: Buffer | null;
}

export const cutPath = (ep: string) => path.join(ep, CUT_FILE);

/** cut.json as stored; `{}` when there is none. Not cached: the caller holds the episode lock. */
export async function readCutFile(ep: string): Promise<StoredCut> {
  let bytes: Buffer;
  try {
    bytes = await readShowFile(episodeFence(ep), cutPath(ep));
  } catch (err) {
    if (err instanceof StudioError) throw err;
    if (errorCode(err) === "ENOENT") return { file: {}, bytes: null };
    throw new StudioError(500, `cut.json in ${ep} cannot be read: ${errorMessage(err)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8").replace(/^\uFEFF/, ""));
  } catch (err) {
    throw new StudioError(
      500,
      `cut.json in ${ep} is not valid JSON (${errorMessage(err)}); fix or remove it`,
    );
  }
  const file = cutRecord.parse(value);
  if (file === null) throw new StudioError(500, `cut.json in ${ep} is not a JSON object; fix or remove it`);
  return { file, bytes };
}

/**
 * One stored entry made compact: defaults dropped, `pass` only when it differs from the list's,
 * unknown keys kept. Values of the wrong type (hand edits) are dropped rather than trusted. Null when the
 * item has no shot id.
 */
export function compactEntry(raw: unknown, listPass: Pass): CutEntry | null {
  const r = cutEntryRecord.parse(raw);
  if (!r?.shot) return null;
  const e: CutEntry = { shot: r.shot };
  if (r.take != null && r.take >= 1) e.take = r.take;
  if (r.pass != null && r.pass !== listPass) e.pass = r.pass;
  for (const k of ["trim_in", "trim_out"] as const) {
    const v = r[k];
    if (v != null && v > 0) e[k] = v;
  }
  for (const k of ["locked", "out", "flag"] as const) if (r[k] === true) e[k] = true;
  if (r.note) e.note = r.note;
  const audio = compactAudio(r.audio, listPass);
  if (audio) e.audio = audio;
  for (const [k, v] of Object.entries(r)) if (!isEntryField(k)) e[k] = v;
  return e;
}

/** An audio source with its defaults dropped; a take source always names its pass. Null for the clip's own. */
export function compactAudio(raw: unknown, listPass: Pass): CutAudio | null {
  const audio = cutAudioRecord.parse(raw);
  if (!audio) return null;
  const out: CutAudio = {};
  for (const [k, v] of Object.entries(audio)) {
    if (v === null || v === undefined || v === "") continue;
    if ((k === "start" || k === "offset") && v === 0) continue;
    if (k === "gain" && v === 1) continue;
    out[k] = v;
  }
  if (!out.source || out.source === "clip") return null;
  if (out.source === "take" && out.pass === undefined) out.pass = listPass;
  return out;
}

/**
 * The reading rules for one pass's list: entries compacted, duplicates ignored (first wins), and each
 * script shot missing from the list inserted after the nearest earlier script shot present, else at the front.
 * Orphans (shots the script no longer has) stay where they are.
 */
export function normaliseList(raw: unknown, listPass: Pass, scriptOrder: readonly string[]): CutEntry[] {
  const list: CutEntry[] = [];
  const seen = new Set<string>();
  for (const item of Array.isArray(raw) ? raw : []) {
    const e = compactEntry(item, listPass);
    if (!e || seen.has(e.shot)) continue;
    seen.add(e.shot);
    list.push(e);
  }
  scriptOrder.forEach((shot, i) => {
    if (seen.has(shot)) return;
    let at = 0;
    for (let j = i - 1; j >= 0; j--) {
      const k = list.findIndex((e) => e.shot === scriptOrder[j]);
      if (k >= 0) {
        at = k + 1;
        break;
      }
    }
    list.splice(at, 0, { shot });
    seen.add(shot);
  });
  return list;
}

/** The pass's script order from its build, or [] when the pass has not been built. */
export async function scriptOrder(
  services: Pick<Services, "caches">,
  ep: string,
  pass: Pass,
): Promise<string[]> {
  return (await readBuild(services, ep, pass))?.order ?? [];
}

/** The pass's list as the reading rules give it. */
export async function readCutList(
  services: Pick<Services, "caches">,
  ep: string,
  pass: Pass,
  stored?: StoredCut,
): Promise<CutEntry[]> {
  const { file } = stored ?? (await readCutFile(ep));
  return normaliseList(file[pass], pass, await scriptOrder(services, ep, pass));
}

/** The episode's name as the build knows it (the script's header id), else the folder's name. */
export async function episodeName(services: Pick<Services, "caches">, ep: string): Promise<string> {
  for (const pass of PASSES) {
    const build = await readBuild(services, ep, pass);
    const doc = build ? build.docs[build.seriesTarget] : undefined;
    if (doc?.episode) return String(doc.episode);
  }
  return (await readStory(services, ep))?.episode ?? path.basename(ep);
}

/**
 * The file to write: `episode` first (filled in when absent), then both passes compacted (a missing list is an
 * empty one), then any other key the file had.
 */
export async function cutToWrite(
  services: Pick<Services, "caches">,
  ep: string,
  file: CutFile,
): Promise<CutFile> {
  const { episode, final, proxy, ...rest } = file;
  return {
    episode: typeof episode === "string" && episode !== "" ? episode : await episodeName(services, ep),
    final: compactList(final, "final"),
    proxy: compactList(proxy, "proxy"),
    ...rest,
  };
}

// Every write stores entries in the compact form and the documented key order.
const compactList = (list: unknown, pass: Pass): CutEntry[] =>
  (Array.isArray(list) ? list : [])
    .map((e) => compactEntry(e, pass))
    .filter((e): e is CutEntry => e !== null);

/**
 * Write cut.json when its content changes, keeping the previous bytes in `_history/` first. Returns the file
 * as stored (the `{cut}` every cut route answers) and whether anything was written.
 */
export async function writeCut(
  services: Pick<Services, "caches">,
  ep: string,
  stored: StoredCut,
  next: CutFile,
  now: Date,
): Promise<{ cut: CutFile; changed: boolean }> {
  const cut = await cutToWrite(services, ep, next);
  const text = cutText(cut);
  if (stored.bytes !== null && sameContent(stored.bytes, cut)) return { cut, changed: false };
  if (stored.bytes !== null) await saveHistory(ep, CUT_FILE, stored.bytes, now);
  await writeShowFile(episodeFence(ep), cutPath(ep), text);
  return { cut, changed: true };
}

/** The file's text as written: 2-space JSON, keys in the order cutToWrite gives them. */
export const cutText = (cut: CutFile) => `${JSON.stringify(cut, null, 2)}\n`;

// Content, not bytes: a hand-formatted file with the same data is not a change worth a history copy.
function sameContent(bytes: Buffer, cut: CutFile): boolean {
  try {
    return JSON.stringify(JSON.parse(bytes.toString("utf8").replace(/^\uFEFF/, ""))) === JSON.stringify(cut);
  } catch {
    return false;
  }
}
