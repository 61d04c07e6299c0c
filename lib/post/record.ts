// Writing a take's post record `<stem>.post.json`: the queuer's record, and changes to it under the episode's write
// lock (the saver's fields, a failure), each an atomic rewrite. Integers stay exact (mtime in ns as a bigint).
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { postRecord } from "../episode/post-record.ts";
import { shotFolder } from "../episode/takes.ts";
import { episodeFence, readShowText, writeShowFile } from "../paths/guarded.ts";
import { sidecarText } from "../render/sidecar.ts";
import { forgetJsonFile, parseJson } from "../store/json-file.ts";
import { isObject } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import { postJsonName, postMp4Name } from "../upscale/fresh.ts";

export interface PostRef {
  ep: string;
  pass: Pass;
  shot: string;
  stem: string;
}

export const postJsonPath = (r: PostRef) => path.join(shotFolder(r.ep, r.pass, r.shot), postJsonName(r.stem));
export const postMp4Path = (r: PostRef) => path.join(shotFolder(r.ep, r.pass, r.shot), postMp4Name(r.stem));

/** The record as it is on disk now (no cache), or null when there is none or it does not parse. */
export async function readPostNow(r: PostRef): Promise<Record<string, unknown> | null> {
  const text = await readShowText(episodeFence(r.ep), postJsonPath(r)).catch(() => null);
  if (text === null) return null;
  let raw: unknown;
  try {
    raw = parseJson(text);
  } catch {
    return null;
  }
  return isObject(raw) ? (postRecord.parse(raw) as Record<string, unknown> | null) : null;
}

/** Write the whole record (caller holds the episode lock, or writes a new one). */
export async function writePost(
  services: Pick<Services, "caches">,
  r: PostRef,
  value: Record<string, unknown>,
) {
  const file = postJsonPath(r);
  await writeShowFile(episodeFence(r.ep), file, sidecarText(value));
  forgetJsonFile(services, file);
}

/**
 * Change the record under the episode's lock: `change` answers the new record, or null to leave it (a record
 * replaced by a newer queue, or already closed). Answers what was written, or null.
 */
export async function updatePost(
  services: Pick<Services, "caches" | "locks">,
  r: PostRef,
  change: (now: Record<string, unknown>) => Record<string, unknown> | null,
): Promise<Record<string, unknown> | null> {
  return withLock(services, r.ep, async () => {
    const now = await readPostNow(r);
    if (!now) return null;
    const next = change(now);
    if (!next) return null;
    await writePost(services, r, next);
    return next;
  });
}

/** The `studio.post` event of a take. */
export const postEvent = (ep: string, shot: string, take: number, status: string) => ({
  ep,
  shot,
  take,
  status,
});
