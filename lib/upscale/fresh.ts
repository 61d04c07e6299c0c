// The versions of a take, upscale (`<stem>.up.mp4` + `.up.json`) and post (`<stem>.post.mp4` + `.post.json`),
// read through their record schemas and judged fresh by the stamp of the file each was made from: its size and
// mtime (ns), or failing that its SHA-1, so identical bytes copied back stay fresh while a re-render does not.
import { stat } from "node:fs/promises";
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import { type PostRecord, postRecord } from "../episode/post-record.ts";
import { FileProbe, hashFile } from "../episode/staleness.ts";
import { listTakes, passFolder, safeShot, takeStem } from "../episode/takes.ts";
import { type UpscaleRecord, upscaleRecord } from "../episode/upscale-record.ts";
import { episodeFence, guardPath, readShowJson } from "../paths/guarded.ts";
import type { WithCaches } from "../store/caches.ts";
import { str } from "../store/json-guards.ts";

export type RecordStatus = "queued" | "ok" | "failed";

/** One version of a take as it stands on disk. */
export interface VersionState<R> {
  /** The record as read (lenient), or null when it does not parse (then `status` is `queued`). */
  record: R | null;
  status: RecordStatus;
  fresh: boolean;
  /** Absolute path of the version's mp4 when it exists, else null. */
  mp4: string | null;
  /** Absolute path of the record. */
  json: string;
}

export type UpscaleState = VersionState<UpscaleRecord>;
export type PostState = VersionState<PostRecord>;

export const upJsonName = (stem: string) => `${stem}.up.json`;
export const upMp4Name = (stem: string) => `${stem}.up.mp4`;
export const postJsonName = (stem: string) => `${stem}.post.json`;
export const postMp4Name = (stem: string) => `${stem}.post.mp4`;

/** `renders[_proxy]/<shot>/<name>`, episode-relative, for answers. */
export const versionRel = (pass: Pass, shot: string, name: string) =>
  `${passFolder(pass)}/${safeShot(shot)}/${name}`;

/** The source stamp a record keeps of the file it was made from. */
export interface SourceStamp {
  source_size: number;
  /** Nanoseconds; written as an integer literal (bigint), as the original writes it. */
  source_mtime_ns: bigint;
  source_sha1: string | null;
}

/** The stamp of `abs` now (size, mtime in ns, SHA-1 streamed in chunks); null when the file is not there. */
export async function sourceStamp(ep: string, abs: string): Promise<SourceStamp | null> {
  const real = await guardPath(episodeFence(ep), abs);
  const st = await stat(real, { bigint: true }).catch(() => null);
  if (!st?.isFile()) return null;
  return {
    source_size: Number(st.size),
    source_mtime_ns: st.mtimeNs,
    source_sha1: await hashFile(episodeFence(ep), real),
  };
}

/**
 * Whether the recorded stamp still names `abs`: same size and mtime, else the same SHA-1. An mtime written as a
 * plain JSON number reads back rounded to a double, so it is compared at that precision; a string or an integer
 * read exactly is compared exactly.
 */
export async function stampHolds(
  record: Record<string, unknown>,
  abs: string,
  probe: FileProbe,
): Promise<boolean> {
  const st = await probe.state(abs);
  if (!st.exists) return false;
  const size = record.source_size;
  const mtime = record.source_mtime_ns;
  const sameSize =
    (typeof size === "number" && Number.isInteger(size) && BigInt(size) === st.size) ||
    (typeof size === "bigint" && size === st.size) ||
    (typeof size === "string" && /^\d+$/.test(size) && BigInt(size) === st.size);
  const sameTime =
    (typeof mtime === "number" && Number.isFinite(mtime) && mtime === Number(st.mtimeNs)) ||
    (typeof mtime === "bigint" && mtime === st.mtimeNs) ||
    (typeof mtime === "string" && /^\d+$/.test(mtime) && BigInt(mtime) === st.mtimeNs);
  if (sameSize && sameTime) return true;
  const sha1 = str(record.source_sha1);
  return sha1 !== null && (await probe.sha1(abs)) === sha1;
}

async function readRecord(services: WithCaches, ep: string, file: string, what: string): Promise<unknown> {
  try {
    return (await readShowJson(services, episodeFence(ep), file, what)) ?? null;
  } catch {
    // Unreadable (half-written elsewhere, hand-broken): never taken for a finished version.
    return undefined;
  }
}

const statusOf = (v: unknown): RecordStatus => (v === "ok" || v === "failed" ? v : "queued");

/** Where a take's versions are, and the names its folder holds (a take listing's `files`). */
export interface TakeFiles {
  ep: string;
  pass: Pass;
  shot: string;
  stem: string;
  files: readonly string[];
}

/**
 * One version of a take from its folder's names (null without a record): fresh when it finished `ok`, its mp4 is
 * there, and `madeFrom` (the file it was made from, null when that is itself gone or stale) still holds its stamp.
 */
async function judgeVersion<R extends { status?: unknown }>(
  services: WithCaches,
  t: TakeFiles,
  probe: FileProbe,
  names: { json: string; mp4: string; what: string; parse: (raw: unknown) => R | null },
  madeFrom: string | null,
): Promise<VersionState<R> | null> {
  if (!t.files.includes(names.json)) return null;
  const dir = path.join(t.ep, passFolder(t.pass), safeShot(t.shot));
  const json = path.join(dir, names.json);
  const raw = await readRecord(services, t.ep, json, names.what);
  if (raw === null) return null;
  const record = raw === undefined ? null : names.parse(raw);
  const status = record ? statusOf(record.status) : "queued";
  const mp4 = t.files.includes(names.mp4) ? path.join(dir, names.mp4) : null;
  const fresh =
    record !== null &&
    status === "ok" &&
    mp4 !== null &&
    madeFrom !== null &&
    (await stampHolds(record as Record<string, unknown>, madeFrom, probe));
  return { record, status, fresh, mp4, json };
}

/** Both versions of one take from its folder's names; a version without a record is null. */
export async function judgeVersions(
  services: WithCaches,
  t: TakeFiles,
  probe: FileProbe,
): Promise<{ upscale: UpscaleState | null; post: PostState | null }> {
  const dir = path.join(t.ep, passFolder(t.pass), safeShot(t.shot));
  const takeMp4 = t.files.includes(`${t.stem}.mp4`) ? path.join(dir, `${t.stem}.mp4`) : null;
  const upscale = await judgeVersion(
    services,
    t,
    probe,
    {
      json: upJsonName(t.stem),
      mp4: upMp4Name(t.stem),
      what: "upscale record",
      parse: (raw) => upscaleRecord.parse(raw),
    },
    takeMp4,
  );
  // A post is a version of the upscale: fresh only while that upscale is, and made from its bytes.
  const post = await judgeVersion(
    services,
    t,
    probe,
    {
      json: postJsonName(t.stem),
      mp4: postMp4Name(t.stem),
      what: "post record",
      parse: (raw) => postRecord.parse(raw),
    },
    upscale?.fresh ? upscale.mp4 : null,
  );
  return { upscale, post };
}

/** A probe over the episode's own files (stat once per request, SHA-1s kept across requests). */
export const episodeProbe = (services: WithCaches, ep: string) => new FileProbe(services, episodeFence(ep));

async function versionsOfTake(
  services: WithCaches,
  ep: string,
  pass: Pass,
  shot: string,
  take: number,
  probe?: FileProbe,
) {
  const t = (await listTakes(services, ep, pass, shot)).find((x) => x.take === take);
  const stem = t?.stem ?? takeStem(shot, take);
  return judgeVersions(
    services,
    { ep, pass, shot, stem, files: t?.files ?? [] },
    probe ?? episodeProbe(services, ep),
  );
}

/** The take's upscale: its record, status, freshness and mp4; null when it has none. `ep` is the real episode. */
export async function upscaleOf(
  services: WithCaches,
  ep: string,
  pass: Pass,
  shot: string,
  take: number,
  probe?: FileProbe,
): Promise<UpscaleState | null> {
  return (await versionsOfTake(services, ep, pass, shot, take, probe)).upscale;
}

/** The take's post-process, fresh only while its upscale is fresh and still the bytes it was made from. */
export async function postOf(
  services: WithCaches,
  ep: string,
  pass: Pass,
  shot: string,
  take: number,
  probe?: FileProbe,
): Promise<PostState | null> {
  return (await versionsOfTake(services, ep, pass, shot, take, probe)).post;
}
