// Reading the history copies of an authored file back: which versions `<ep>/_history/<name>.<stamp>[-N]` holds
// (newest first) and the text of one, both read through the guarded door so a `_history` linked out of the
// episode is refused like any other show file.
import path from "node:path";
import { badRequest, notFound } from "../errors.ts";
import { episodeFence, listShowFiles, readShowFile, statShow } from "../paths/guarded.ts";
import { errorCode } from "../store/json-guards.ts";
import { locateSource, normalizeText, type SourceKind } from "./source-file.ts";
import { decodeUtf8 } from "./sources.ts";

/** A version id: the copy's name after `<file name>.`, a local-time stamp and the counter of that second. */
export const VERSION_ID = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})(?:-([1-9]\d{0,5}))?$/;
export const VERSION_ID_RULE = "must be a history version id like 20240102-030405 or 20240102-030405-2";

export interface HistoryVersion {
  /** The copy's name after `<file name>.`: `YYYYmmdd-HHMMSS`, then `-N` for a later copy of the same second. */
  id: string;
  /** When the copy was made (the save that replaced it), local time as `YYYY-MM-DDTHH:MM:SS`. */
  when: string;
  /** Bytes of the copy on disk. */
  size: number;
}

export interface HistoryText {
  file: SourceKind;
  id: string;
  when: string;
  /** The copy's text as the editor reads a file: LF endings, no BOM. */
  text: string;
}

/** The local time a version id names, or null when it is not one (a stamp of a day that does not exist too). */
export function versionWhen(id: string): string | null {
  const m = VERSION_ID.exec(id);
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m;
  const date = new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const same =
    date.getFullYear() === Number(y) &&
    date.getMonth() === Number(mo) - 1 &&
    date.getDate() === Number(d) &&
    date.getHours() === Number(h) &&
    date.getMinutes() === Number(mi) &&
    date.getSeconds() === Number(s);
  // A stamp like 20241340-256199 is no copy this service wrote.
  return same ? `${y}-${mo}-${d}T${h}:${mi}:${s}` : null;
}

/** Order of two version ids: by stamp, then counter (the plain stamp is copy 1). */
function compareIds(a: string, b: string): number {
  const counter = (id: string) => Number(VERSION_ID.exec(id)?.[7] ?? 1);
  const sa = a.slice(0, 15);
  const sb = b.slice(0, 15);
  return sa === sb ? counter(a) - counter(b) : sa < sb ? -1 : 1;
}

async function historyOf(ep: string, which: SourceKind) {
  const where = await locateSource(ep, which);
  const name = path.basename(where.abs);
  const fence = episodeFence(ep);
  const listing = await listShowFiles(fence, path.join(ep, "_history"));
  return { name, fence, listing };
}

/** Every kept copy of the script or the series config in force, newest first; none when `_history/` is absent. */
export async function listHistory(ep: string, which: SourceKind): Promise<HistoryVersion[]> {
  const { name, fence, listing } = await historyOf(ep, which);
  if (!listing) return [];
  const prefix = `${name}.`;
  const ids = listing.files
    .filter((f) => f.startsWith(prefix))
    .map((f) => f.slice(prefix.length))
    .filter((id) => versionWhen(id) !== null)
    .sort((a, b) => compareIds(b, a));
  const versions = await Promise.all(
    ids.map(async (id): Promise<HistoryVersion | null> => {
      const st = await statShow(fence, path.join(listing.real, `${prefix}${id}`)).catch((err) => {
        // Pruned by a save between the listing and this look: no longer a version.
        if (errorCode(err) === "ENOENT") return null;
        throw err;
      });
      return st ? { id, when: versionWhen(id) ?? "", size: st.size } : null;
    }),
  );
  return versions.filter((v): v is HistoryVersion => v !== null);
}

/** One kept copy's text; 400 for an id that is not a version id, 404 when no such copy is kept. */
export async function readHistoryVersion(ep: string, which: SourceKind, id: string): Promise<HistoryText> {
  const when = versionWhen(id);
  if (when === null) throw badRequest(`id: ${VERSION_ID_RULE}`);
  const { name, fence, listing } = await historyOf(ep, which);
  const copy = `${name}.${id}`;
  const missing = () => notFound(`no history version ${id} of ${name} in ${ep}`);
  if (!listing?.files.includes(copy)) throw missing();
  let bytes: Buffer;
  try {
    bytes = await readShowFile(fence, path.join(listing.real, copy));
  } catch (err) {
    if (errorCode(err) === "ENOENT") throw missing();
    throw err;
  }
  return { file: which, id, when, text: normalizeText(decodeUtf8(bytes, copy)) };
}
