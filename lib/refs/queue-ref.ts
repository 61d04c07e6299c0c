// Reference candidates as jobs: a take number reserved by an exclusive create of its `queued` sidecar under the ref
// home's lock (numbers are never reused: the trash counts), the sidecar naming the id its `ref` job then gets, so
// queueing writes the sidecar once; sidecar changes after that (the worker's, a cancel's, a retry's) are fresh
// reads under the same lock.
import path from "node:path";
import type { Services } from "../context.ts";
import { conflict } from "../errors.ts";
import { newJobId } from "../jobs/job-id.ts";
import type { Job, JobStore, NewJob } from "../jobs/types.ts";
import { createShowFile, mkdirShow, readShowText, writeShowFile } from "../paths/guarded.ts";
import { CANCELED_RUNNING, CANCELED_WAITING } from "../render/cancel.ts";
import { noteText, sidecarText } from "../render/sidecar.ts";
import { localIso } from "../render/time.ts";
import { forgetJsonFile, parseJson } from "../store/json-file.ts";
import { errorCode, errorMessage, isObject, type JsonObject } from "../store/json-guards.ts";
import { type RefId, type RefView, readRefId, takeStem } from "./ids.ts";
import { type RefsPlace, refsPlace, takesDir, takesFence } from "./place.ts";
import { type RefPayload, refPayload } from "./ref-payload.ts";
import { nextTakeNumber, withRefsLock } from "./takes.ts";

type LockServices = Pick<Services, "caches" | "locks">;

/** One candidate of one reference: where its sidecar is. */
export interface RefTakeRef {
  place: RefsPlace;
  ref: RefId;
  view: RefView | null;
  take: number;
}

const two = (n: number) => String(n).padStart(2, "0");

export const refStem = (t: RefTakeRef) => takeStem(t.ref.key, t.view, t.take);
export const refSidecarPath = (t: RefTakeRef) => path.join(takesDir(t.place, t.ref), `${refStem(t)}.json`);

/** The queue's title of a candidate: `subject:ada 01_threequarter t03`. */
export const refJobTitle = (ref: string, view: RefView | null, take: number) =>
  `${ref}${view ? ` ${view}` : ""} t${two(take)}`;

/** The `studio.ref` event of a candidate. */
export const refEvent = (t: RefTakeRef, status: string) => ({
  ep: t.place.ep,
  ref: t.ref.id,
  view: t.view,
  take: t.take,
  status,
});

/** The candidate a payload names (its ref home found again from the episode). */
export async function payloadTake(
  services: Pick<Services, "home" | "env" | "caches">,
  p: Pick<RefPayload, "ep" | "ref" | "view" | "take">,
): Promise<RefTakeRef> {
  const ref = readRefId(p.ref);
  if (!ref) throw new Error(`${p.ref} is not a reference id`);
  return { place: await refsPlace(services, p.ep), ref, view: p.view, take: p.take };
}

/** The sidecar as on disk now (no cache), or null when there is none; one that does not parse reads as queued. */
export async function readRefSidecar(t: RefTakeRef): Promise<JsonObject | null> {
  let text: string;
  try {
    text = await readShowText(takesFence(t.place, t.ref), refSidecarPath(t));
  } catch (err) {
    if (errorCode(err) === "ENOENT") return null;
    throw err;
  }
  try {
    const value = parseJson(text.replace(/^\uFEFF/, ""));
    if (isObject(value)) return value;
  } catch {
    // Hand-broken or being written elsewhere: never taken for finished.
  }
  return { status: "queued", unreadable: true };
}

/** Change the sidecar under the ref home's lock; `change` answers null to leave it. Answers what was written. */
export function updateRefSidecar(
  services: LockServices,
  t: RefTakeRef,
  change: (current: JsonObject) => JsonObject | null,
): Promise<JsonObject | null> {
  return withRefsLock(services, t.place, t.ref, () => updateRefSidecarLocked(services, t, change));
}

/** updateRefSidecar for a caller holding the ref home's lock. */
export async function updateRefSidecarLocked(
  services: LockServices,
  t: RefTakeRef,
  change: (current: JsonObject) => JsonObject | null,
): Promise<JsonObject | null> {
  const current = await readRefSidecar(t);
  if (current === null || current.unreadable === true) return null;
  const next = change(current);
  if (next === null) return null;
  return writeRefSidecarLocked(services, t, next);
}

/** Write the sidecar whole, for a caller holding the ref home's lock that has just read it; answers `next`. */
export async function writeRefSidecarLocked(
  services: LockServices,
  t: RefTakeRef,
  next: JsonObject,
): Promise<JsonObject> {
  const file = refSidecarPath(t);
  await writeShowFile(takesFence(t.place, t.ref), file, sidecarText(next));
  forgetJsonFile(services, file);
  return next;
}

/** Close a candidate still `queued` with `fields` (ok or failed); answers the sidecar written, or null. */
export function closeRefSidecar(
  services: LockServices,
  t: RefTakeRef,
  fields: JsonObject,
): Promise<JsonObject | null> {
  return updateRefSidecar(services, t, (s) => (s.status === "queued" ? { ...s, ...fields } : null));
}

/** Close a candidate `failed` with the reason; a cancel is the person's own doing, so it records no `error`. */
export function failRefSidecar(
  services: LockServices & Pick<Services, "now">,
  t: RefTakeRef,
  reason: string,
  canceled: boolean,
): Promise<JsonObject | null> {
  const note = noteText(reason);
  return closeRefSidecar(services, t, {
    status: "failed",
    finished: localIso(services.now()),
    save_notes: [note],
    ...(canceled ? {} : { error: note }),
  });
}

/** A reserved candidate: its number, and the id its job must be added with (the sidecar names it already). */
export interface ReservedRefTake {
  take: number;
  jobId: string;
}

/**
 * Reserve the next free number of the view with an exclusive create of its sidecar (a number taken meanwhile by
 * another process is skipped). The sidecar's `job` is the id drawn here for the job refJob() then makes, so the
 * sidecar is not written again to record it; a sweep gives a sidecar whose job is not in the store yet the
 * reserve's grace.
 */
export async function reserveRefTake(
  services: LockServices,
  place: RefsPlace,
  ref: RefId,
  view: RefView | null,
  sidecarFor: (take: number, stem: string) => JsonObject,
): Promise<ReservedRefTake> {
  const fence = takesFence(place, ref);
  const jobId = newJobId();
  await mkdirShow(fence, takesDir(place, ref));
  return withRefsLock(services, place, ref, async () => {
    let take = await nextTakeNumber(place, ref, view);
    for (let tries = 0; tries < 1000; tries++, take++) {
      const t: RefTakeRef = { place, ref, view, take };
      try {
        const sidecar = { ...sidecarFor(take, refStem(t)), job: jobId };
        await createShowFile(fence, refSidecarPath(t), sidecarText(sidecar));
      } catch (err) {
        if (errorCode(err) === "EEXIST") continue;
        throw err;
      }
      forgetJsonFile(services, refSidecarPath(t));
      return { take, jobId };
    }
    throw new Error(`no free take number for ${ref.id} after 1000 tries`);
  });
}

/** The job of a reserved candidate, under the id its reservation drew. */
export function refJob(p: RefPayload, jobId: string): NewJob<RefPayload> {
  return {
    id: jobId,
    kind: "ref",
    lane: p.backend,
    title: refJobTitle(p.ref, p.view, p.take),
    info: { ep: p.ep, ref: p.ref, view: p.view, take: p.take, target: p.target, backend: p.backend },
    payload: p,
    after: null,
  };
}

/**
 * Insert the job of a reserved candidate (refJob(), whose id the sidecar already names). When the insert fails the
 * candidate is closed `failed` with the reason and the error is rethrown.
 */
export async function insertRefJob(
  services: LockServices & Pick<Services, "now">,
  store: JobStore,
  t: RefTakeRef,
  job: NewJob<RefPayload>,
): Promise<Job> {
  try {
    return await store.add(job);
  } catch (err) {
    await failRefSidecar(services, t, `not queued: ${errorMessage(err)}`, false);
    throw err;
  }
}

/** Fields a run writes: not copied into a retry's candidate. */
const RUN_FIELDS = new Set([
  "job",
  "status",
  "queued",
  "finished",
  "backend_prompt_id",
  "comfy_prompt_id",
  "save_notes",
  "error",
  "unreadable",
]);

/**
 * A retry of a ref job: a new candidate of the same view with the old one's settings (seed included), queued as a
 * new job of the same lane; `studio.ref` queued and `studio.episode` tell the page.
 */
export async function retryRef(
  job: Job<RefPayload>,
  services: Pick<Services, "home" | "env" | "events" | "now" | "caches" | "locks">,
): Promise<NewJob<RefPayload>> {
  const p = job.payload;
  const old = await payloadTake(services, p);
  const label = refJobTitle(p.ref, p.view, p.take);
  const sidecar = await readRefSidecar(old);
  if (!sidecar || sidecar.unreadable === true) {
    throw conflict(
      `${label} has no readable sidecar any more (discarded?): there are no settings to retry with`,
    );
  }
  const queued = localIso(services.now());
  const { take, jobId } = await reserveRefTake(services, old.place, old.ref, old.view, (n, stem) => {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(sidecar)) if (!RUN_FIELDS.has(k)) out[k] = v;
    const kind = typeof sidecar.audio === "string" ? "audio" : "image";
    return {
      ...out,
      take: n,
      status: "queued",
      queued,
      backend_prompt_id: null,
      seed_source: `take:${p.take}`,
      [kind]: `${stem}.${kind === "audio" ? "wav" : "png"}`,
    };
  });
  const t: RefTakeRef = { ...old, take };
  services.events.emit("studio.ref", refEvent(t, "queued"));
  services.events.emit("studio.episode", { ep: p.ep });
  return refJob({ ...p, take, stem: refStem(t) }, jobId);
}

/**
 * A ref job canceled before a worker ran it has no handler to close its candidate: closed here "canceled before
 * it ran" (or "canceled" when it had started), with its `studio.ref` event. Answers whether it was closed.
 */
export async function closeCanceledRef(
  services: Pick<Services, "home" | "env" | "events" | "now" | "caches" | "locks">,
  job: Job,
): Promise<boolean> {
  const parsed = refPayload.safeParse(job.payload);
  if (!parsed.success) return false;
  const t = await payloadTake(services, parsed.data);
  const why = job.started ? CANCELED_RUNNING : CANCELED_WAITING;
  const closed = await failRefSidecar(services, t, why, true);
  if (closed) services.events.emit("studio.ref", refEvent(t, "failed"));
  return closed !== null;
}
