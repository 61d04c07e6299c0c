// The records of a take's made versions, `<stem>.up.json` (upscale) and `<stem>.post.json` (post), as the queuers,
// the jobs and the routes write them: read as they are on disk now, written whole, changed under the episode's
// lock only while they still name the job changing them, closed when a job that never ran is canceled, and the
// `studio.upscale` / `studio.post` event each change sends.
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { shotFolder } from "../episode/takes.ts";
import { episodeFence, readShowText, writeShowFile } from "../paths/guarded.ts";
import { sidecarText } from "../render/sidecar.ts";
import { localIso } from "../render/time.ts";
import { forgetJsonFile, parseJson } from "../store/json-file.ts";
import { isObject, type JsonObject } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import { postJsonName, postMp4Name, upJsonName, upMp4Name } from "./fresh.ts";

export type VersionKind = "upscale" | "post";

/** Which take's version: the episode, pass, shot and the take's file stem. */
export interface VersionRef {
  ep: string;
  pass: Pass;
  shot: string;
  stem: string;
}

const KINDS = {
  upscale: { json: upJsonName, mp4: upMp4Name, event: "studio.upscale" },
  post: { json: postJsonName, mp4: postMp4Name, event: "studio.post" },
} as const;

export const versionEventType = (kind: VersionKind) => KINDS[kind].event;
export const versionMp4Name = (kind: VersionKind, stem: string) => KINDS[kind].mp4(stem);
export const recordPath = (kind: VersionKind, r: VersionRef) =>
  path.join(shotFolder(r.ep, r.pass, r.shot), KINDS[kind].json(r.stem));
export const versionMp4Path = (kind: VersionKind, r: VersionRef) =>
  path.join(shotFolder(r.ep, r.pass, r.shot), KINDS[kind].mp4(r.stem));

/** A version event's payload (no pass, as the original sends it). */
export const versionEvent = (ep: string, shot: string, take: number, status: string) => ({
  ep,
  shot,
  take,
  status,
});

/** A record as it is on disk now (no cache: the jobs and the routes race on it), or null. */
export async function readRecordNow(ep: string, file: string): Promise<JsonObject | null> {
  try {
    const v = parseJson(await readShowText(episodeFence(ep), file));
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}

/** Write a record whole (the caller holds the episode lock, or writes one nobody else knows yet). */
export async function writeRecord(
  services: Pick<Services, "caches">,
  ep: string,
  file: string,
  value: JsonObject,
): Promise<void> {
  await writeShowFile(episodeFence(ep), file, sidecarText(value));
  forgetJsonFile(services, file);
}

/** Whether a record is still the queued one of this job (a redo or a retry rewrites it naming a new job). */
const ours = (rec: JsonObject | null, jobId: string): rec is JsonObject =>
  rec?.status === "queued" && rec.job === jobId;

/** Merge `fields` into the record while it is still this job's queued one; answers whether it did. */
export async function updateOwnRecord(
  services: Pick<Services, "caches" | "locks">,
  kind: VersionKind,
  r: VersionRef,
  jobId: string,
  fields: JsonObject,
): Promise<boolean> {
  const file = recordPath(kind, r);
  return withLock(services, r.ep, async () => {
    const now = await readRecordNow(r.ep, file);
    if (!ours(now, jobId)) return false;
    await writeRecord(services, r.ep, file, { ...now, ...fields });
    return true;
  });
}

/** Whether the record on disk is still the queued one of this job (a job finding it replaced does nothing). */
export const stillOurs = async (kind: VersionKind, r: VersionRef, jobId: string) =>
  ours(await readRecordNow(r.ep, recordPath(kind, r)), jobId);

/** The fields that close a record `failed`, with why, in the words the saver uses. */
export const failedFields = (kind: VersionKind, stem: string, why: string, now: Date): JsonObject => ({
  status: "failed",
  finished: localIso(now),
  mp4: null,
  save_notes: `${versionMp4Name(kind, stem)} failed: ${why}`,
});

const payloadRef = (payload: unknown): (VersionRef & { take: number }) | null => {
  if (!isObject(payload)) return null;
  const { ep, pass, shot, stem, take } = payload;
  if (typeof ep !== "string" || typeof shot !== "string" || typeof stem !== "string") return null;
  if ((pass !== "final" && pass !== "proxy") || typeof take !== "number") return null;
  return { ep, pass, shot, stem, take };
};

/**
 * A canceled upscale or post job that never ran has no handler to close its record: closed `failed` "canceled"
 * here while the record still names that job. Other kinds of job are left alone.
 */
export async function closeCanceledVersion(
  services: Pick<Services, "caches" | "locks" | "events" | "now">,
  job: { id: string; kind: string; payload: unknown },
): Promise<void> {
  if (job.kind !== "upscale" && job.kind !== "post") return;
  const kind: VersionKind = job.kind;
  const r = payloadRef(job.payload);
  if (!r) return;
  const closed = await updateOwnRecord(
    services,
    kind,
    r,
    job.id,
    failedFields(kind, r.stem, "canceled", services.now()),
  );
  if (closed) services.events.emit(versionEventType(kind), versionEvent(r.ep, r.shot, r.take, "failed"));
}
