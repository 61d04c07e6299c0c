// One authored file (script or series config) as the editor sees it, and its save (script format 5.1, 5.4).
import { createHash } from "node:crypto";
import path from "node:path";
import type { Services } from "../context.ts";
import { badRequest, conflict, notFound, type StudioError } from "../errors.ts";
import { episodeFence, type Fence, readShowFile, statShow, writeShowFile } from "../paths/guarded.ts";
import { seriesConfigFence } from "../paths/series-config.ts";
import { JsonSyntaxError } from "../series/errors.ts";
import { parseSeriesJson } from "../series/load.ts";
import { errorCode } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import { findScript, findSeriesConfig } from "./files.ts";
import { saveHistory } from "./history.ts";
import { type BuildAnswer, buildFolder } from "./run-build.ts";
import { decodeUtf8 } from "./sources.ts";

export type SourceKind = "script" | "series";

export interface FileStyle {
  bom: boolean;
  crlf: boolean;
}

export interface SourceFile extends FileStyle {
  file: SourceKind;
  /** Relative to the episode: `ep01.md`, `series.json`, or `../series.json` for a parent config. */
  path: string;
  abs: string;
  /** Where the file must really lie: its episode, or the show folder for a parent config. */
  fence: Fence;
  bytes: Buffer;
  /** LF endings, no BOM. */
  text: string;
  /** SHA-1 hex of the bytes on disk (BOM and CRLF included): the `base_hash` a save must present. */
  hash: string;
  /** Modification time in seconds (fractional). */
  mtime: number;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export const sha1Bytes = (bytes: Uint8Array): string => createHash("sha1").update(bytes).digest("hex");

/** CRLF and lone CR to LF, one leading BOM character dropped. */
export function normalizeText(text: string): string {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return body.replace(/\r\n?/g, "\n");
}

/** The majority rule: CRLF when `count("\r\n") × 2 > count("\n")`, so a mixed file becomes uniform. */
export function isCrlf(text: string): boolean {
  const crlf = text.split("\r\n").length - 1;
  const lf = text.split("\n").length - 1;
  return crlf * 2 > lf;
}

/** The bytes of `text` written with a file's own conventions (a BOM in `text` is ignored either way). */
export function encodeLike(text: string, style: FileStyle): Buffer {
  const lf = normalizeText(text);
  const body = Buffer.from(style.crlf ? lf.replace(/\n/g, "\r\n") : lf, "utf8");
  return style.bom ? Buffer.concat([BOM, body]) : body;
}

/** Where the file is: the script, or the series config in force (the episode's own, else its parent's). */
export async function locateSource(
  ep: string,
  which: SourceKind,
): Promise<{ abs: string; path: string; fence: Fence }> {
  if (which === "script") {
    const abs = await findScript(ep);
    if (!abs) throw notFound(`no script in ${ep}: name it after the folder (${path.basename(ep)}.md)`);
    return { abs, path: path.basename(abs), fence: episodeFence(ep) };
  }
  const config = await findSeriesConfig(ep);
  if (!config) throw notFound(`no series.json in ${ep} or its parent folder`);
  return {
    abs: config.path,
    path: config.inParent ? `../${path.basename(config.path)}` : "series.json",
    fence: seriesConfigFence(config),
  };
}

/** Read one authored file; 404 when the episode has none, 500 when it is not UTF-8. */
export async function readSourceFile(ep: string, which: SourceKind): Promise<SourceFile> {
  const where = await locateSource(ep, which);
  let bytes: Buffer;
  let mtimeMs: number;
  try {
    [bytes, { mtimeMs }] = await Promise.all([
      readShowFile(where.fence, where.abs),
      statShow(where.fence, where.abs),
    ]);
  } catch (err) {
    // Removed between the lookup and the read: the same answer as no file at all.
    if (errorCode(err) === "ENOENT") throw notFound(`${where.path} is gone from ${ep}`);
    throw err;
  }
  const bom = bytes.subarray(0, 3).equals(BOM);
  // The strict decoder drops one leading BOM itself; decoding the whole buffer keeps error offsets true.
  const decoded = decodeUtf8(bytes, path.basename(where.abs));
  return {
    file: which,
    path: where.path,
    abs: where.abs,
    fence: where.fence,
    bytes,
    text: normalizeText(decoded),
    hash: sha1Bytes(bytes),
    mtime: mtimeMs / 1000,
    bom,
    crlf: isCrlf(decoded),
  };
}

/** The 409 of a save or promote whose base is no longer the file on disk: it carries what is there now. */
export function changedOnDisk(current: SourceFile): StudioError {
  return conflict(
    `${current.path} changed on disk since it was read; load it again (its current text is in this answer)`,
    { hash: current.hash, text: current.text, file: current.file },
  );
}

/** Copy the current bytes to the episode's `_history/` (also for a parent config), then write atomically. */
export async function replaceSourceBytes(
  ep: string,
  current: SourceFile,
  bytes: Uint8Array,
  now: Date,
): Promise<void> {
  await saveHistory(ep, path.basename(current.abs), current.bytes, now);
  await writeShowFile(current.fence, current.abs, bytes);
}

export interface SaveResult {
  file: SourceKind;
  /** The hash of the file on disk after the save. */
  hash: string;
  /** False when the bytes were already those on disk (nothing written, no history copy). */
  changed: boolean;
  /** The saved text, normalised. */
  text: string;
}

/**
 * Check `base_hash`, refuse a series config that is not JSON, keep the file's BOM and line endings, skip an
 * identical save, else history copy then atomic write (script format 5.4). The hash check and the write share
 * the episode lock, so of two saves from the same base exactly one wins.
 */
export async function saveSourceFile(
  services: Pick<Services, "now" | "caches" | "locks">,
  ep: string,
  which: SourceKind,
  text: string,
  baseHash: string | undefined,
): Promise<SaveResult> {
  if (!baseHash) throw badRequest("base_hash: required (the hash GET /studio/source answered)");
  return withLock(services, ep, async () => {
    const current = await readSourceFile(ep, which);
    if (current.hash !== baseHash) throw changedOnDisk(current);
    const normalized = normalizeText(text);
    if (which === "series") {
      try {
        parseSeriesJson(normalized);
      } catch (err) {
        if (err instanceof JsonSyntaxError) throw badRequest(err.message, { line: err.line, col: err.col });
        throw err;
      }
    }
    const bytes = encodeLike(normalized, current);
    if (bytes.equals(current.bytes))
      return { file: which, hash: current.hash, changed: false, text: normalized };
    await replaceSourceBytes(ep, current, bytes, services.now());
    return { file: which, hash: sha1Bytes(bytes), changed: true, text: normalized };
  });
}

/**
 * Rebuild both passes (buildFolder takes the episode lock itself: call it after releasing yours) and say whether
 * it told the pages (it does not when the files fail to load), so the caller emits `studio.episode` once.
 */
export async function rebuildEpisode(
  services: Services,
  ep: string,
): Promise<{ build: BuildAnswer; emitted: boolean }> {
  let emitted = false;
  const events = {
    emit(kind: string, data: unknown) {
      if (kind === "studio.episode") emitted = true;
      services.events.emit(kind, data);
    },
  };
  const build = await buildFolder({ ...services, events }, ep);
  return { build, emitted };
}
