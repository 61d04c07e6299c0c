// Take sidecars as the render path writes them: reserved by an exclusive create, then
// replaced atomically; every later change is a fresh read, a change and an atomic write under the episode lock.
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { takeFileRel } from "../episode/take-summary.ts";
import { shotFolder, takeStem } from "../episode/takes.ts";
import { createShowFile, episodeFence, readShowText, writeShowFile } from "../paths/guarded.ts";
import { pyJson } from "../script/canonical.ts";
import { forgetJsonFile, parseJson } from "../store/json-file.ts";
import { errorCode, isObject } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import { parseSidecar, type Sidecar, UNREADABLE_SIDECAR } from "./sidecar-record.ts";

export type { Sidecar };

export interface TakeRef {
  ep: string;
  pass: Pass;
  shot: string;
  take: number;
}

/** Backend error texts are cut to this many characters, as the original does. */
export const NOTE_CHARS = 800;

const NO_FLOATS: ReadonlySet<string> = new Set();

export const stemOf = (t: TakeRef) => takeStem(t.shot, t.take);
export const takeDir = (t: TakeRef) => shotFolder(t.ep, t.pass, t.shot);
export const sidecarPath = (t: TakeRef) => path.join(takeDir(t), `${stemOf(t)}.json`);
// Every file of a take is read and written only where it really lies inside its episode (renders*/ may be links).

/** 2-space JSON with seeds (bigint) as exact integer literals. */
export const sidecarText = (value: unknown) => `${pyJson(value, { indent: 2, floatKeys: NO_FLOATS })}\n`;

/** The sidecar as on disk now (no cache); null when there is none; an unparsable one reads as queued. */
export async function readSidecarNow(t: TakeRef): Promise<Sidecar | null> {
  let text: string;
  try {
    text = await readShowText(episodeFence(t.ep), sidecarPath(t));
  } catch (err) {
    if (errorCode(err) === "ENOENT") return null;
    throw err;
  }
  try {
    const value = parseJson(text.replace(/^\uFEFF/, ""));
    if (isObject(value)) return parseSidecar(value);
  } catch {
    // Being written by another process, or hand-broken: treated as queued so it is never taken for finished.
  }
  return { ...UNREADABLE_SIDECAR };
}

/** Reserve the take number: false when that sidecar already exists. */
export async function reserveSidecar(t: TakeRef, value: Sidecar): Promise<boolean> {
  try {
    await createShowFile(episodeFence(t.ep), sidecarPath(t), sidecarText(value));
    return true;
  } catch (err) {
    if (errorCode(err) === "EEXIST") return false;
    throw err;
  }
}

export async function writeSidecar(
  services: Pick<Services, "caches">,
  t: TakeRef,
  value: Sidecar,
): Promise<void> {
  await writeShowFile(episodeFence(t.ep), sidecarPath(t), sidecarText(value));
  forgetJsonFile(services, sidecarPath(t));
}

/**
 * Change the sidecar under the episode lock: `change` gets the current value and answers the new one, or null
 * to leave the file as it is. Answers what was written, or null.
 */
export function updateSidecar(
  services: Pick<Services, "caches" | "locks">,
  t: TakeRef,
  change: (current: Sidecar) => Sidecar | null,
): Promise<Sidecar | null> {
  return withLock(services, t.ep, () => updateSidecarLocked(services, t, change));
}

/** updateSidecar for a caller that already holds the episode lock. */
export async function updateSidecarLocked(
  services: Pick<Services, "caches">,
  t: TakeRef,
  change: (current: Sidecar) => Sidecar | null,
): Promise<Sidecar | null> {
  const current = await readSidecarNow(t);
  if (current === null) return null;
  const next = change(current);
  if (next === null) return null;
  await writeSidecar(services, t, next);
  return next;
}

/**
 * Close a queued take: `failed` with the reason, or `ok` with its files. A take no longer queued (closed by a
 * cancel, a sweep or its own job) is left alone; answers the written sidecar or null.
 */
export function closeTake(
  services: Pick<Services, "caches" | "locks">,
  t: TakeRef,
  fields: Sidecar,
  locked = false,
): Promise<Sidecar | null> {
  const change = (current: Sidecar) =>
    current.status === "queued" && current.unreadable !== true ? { ...current, ...fields } : null;
  return locked ? updateSidecarLocked(services, t, change) : updateSidecar(services, t, change);
}

/** A reason as a take records it: one paragraph, cut to NOTE_CHARS. */
export function noteText(reason: string): string {
  const one = reason.trim();
  return one.length > NOTE_CHARS ? `${one.slice(0, NOTE_CHARS - 1)}…` : one;
}

/** The `studio.take` event's payload: `thumb` is the episode-relative picture or null. */
export function takeEvent(
  t: TakeRef,
  status: string,
  sidecar: Sidecar | null,
): { ep: string; pass: Pass; shot: string; take: number; status: string; thumb: string | null } {
  const thumb = sidecar?.thumb || null;
  return {
    ep: t.ep,
    pass: t.pass,
    shot: t.shot,
    take: t.take,
    status,
    thumb: thumb ? takeFileRel(t.pass, t.shot, thumb) : null,
  };
}
