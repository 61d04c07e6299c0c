// POST /studio/render, queueing: per planned shot (in cut order) its continuity chain, then the take reserved
// (exclusive sidecar create), the frozen shot list written beside it and the job inserted with `after` naming
// the job it continues. Events in the original's order: continuity frames, queued takes, failed reservations,
// one episode event.
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import { effectiveSettings } from "../config/settings-store.ts";
import type { Services } from "../context.ts";
import { cutPick, folderTakes } from "../episode/cut-view.ts";
import { nextTakeNumber, shotFolder, takeStatus } from "../episode/takes.ts";
import { isPaidLane } from "../jobs/lanes.ts";
import type { Job, JobStore, NewJob } from "../jobs/types.ts";
import { episodeFence, fileInside, mkdirShow, showFence, writeShowFile } from "../paths/guarded.ts";
import { FLOAT_KEYS, pyJson } from "../script/canonical.ts";
import { errorMessage } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import { cutLastFrame, frameOutdated, pickVideo, previousInCut } from "./continuity.ts";
import type { RenderPayload } from "./payload.ts";
import {
  type Plan,
  type PlanDeps,
  type PlannedShot,
  planRender,
  type ShotError,
  type SkippedShot,
} from "./plan.ts";
import type { RenderRequest } from "./request.ts";
import {
  closeTake,
  noteText,
  reserveSidecar,
  type Sidecar,
  stemOf,
  type TakeRef,
  takeDir,
  takeEvent,
  updateSidecarLocked,
} from "./sidecar.ts";
import { localIso } from "./time.ts";

export interface QueuedTake {
  shot: string;
  take: number;
  prompt_id: string;
  seed: string;
  seed_source: string;
  target: string;
}

export interface RenderAnswer {
  queued: QueuedTake[];
  skipped: SkippedShot[];
  errors: ShotError[];
  continuity?: { shot: string; from: string; why: string }[];
  continuity_at_start?: { shot: string; after: string }[];
}

export interface QueueDeps extends PlanDeps {
  store: JobStore;
  /** Wake an in-process worker pool (jobAdded). */
  wake?(): void;
}

type Emit = { kind: string; data: unknown };
const two = (n: number) => String(n).padStart(2, "0");

/** The frozen `<stem>.shotlist.json` text (shot-list float keys, seeds as integers). */
export const frozenText = (doc: Record<string, unknown>) =>
  `${pyJson(doc, { indent: 2, floatKeys: FLOAT_KEYS })}\n`;

export const frozenPath = (t: TakeRef) => path.join(takeDir(t), `${stemOf(t)}.shotlist.json`);

/** The job title the queue lists: `sh010 t03 (proxy)`. */
export const jobTitle = (t: TakeRef) => `${t.shot} t${two(t.take)} (${t.pass})`;

/**
 * Reserve the next free take number of the shot with an exclusive create of its sidecar (numbers are never
 * reused; a number another request took meanwhile is skipped). Answers the number.
 */
export async function reserveTake(
  ep: string,
  pass: Pass,
  shot: string,
  sidecarFor: (take: number) => Sidecar,
): Promise<number> {
  await mkdirShow(episodeFence(ep), shotFolder(ep, pass, shot));
  let take = await nextTakeNumber(ep, pass, shot);
  for (let tries = 0; tries < 1000; tries++, take++) {
    if (await reserveSidecar({ ep, pass, shot, take }, sidecarFor(take))) return take;
  }
  throw new Error(`no free take number for ${shot} after 1000 tries`);
}

/**
 * Insert the job of a reserved take and record its id in the sidecar as `job`. When the insert fails the take
 * is closed `failed` with the reason and the error is rethrown. Caller holds the episode lock.
 */
export async function insertTakeJob(
  services: Pick<Services, "caches" | "locks">,
  store: JobStore,
  t: TakeRef,
  job: NewJob,
  now: Date,
): Promise<Job> {
  let added: Job;
  try {
    added = await store.add(job);
  } catch (err) {
    const why = noteText(`not queued: ${errorMessage(err)}`);
    await closeTake(
      services,
      t,
      { status: "failed", finished: localIso(now), save_notes: why, error: why },
      true,
    );
    throw err;
  }
  await updateSidecarLocked(services, t, (s) => ({ ...s, job: added.id }));
  return added;
}

/** The sidecar fields written at queue time (the original's, plus the seeds' `queue`, `backend`, and `job`). */
function queueSidecar(
  p: PlannedShot,
  req: RenderRequest,
  take: number,
  queued: string,
  extra: Sidecar,
): Sidecar {
  const s: Sidecar = {
    version: 1,
    shot: p.shot,
    take,
    pass: req.pass,
    queue: "studio",
    backend: p.lane,
    job: null,
    status: "queued",
    queued,
    backend_prompt_id: null,
    target: p.target,
  };
  if (p.target !== p.built.target) s.built_target = p.built.target;
  Object.assign(s, {
    seed: p.seed,
    seed_source: p.seedSource,
    model: p.model,
    loras: p.loras,
    steps: p.steps,
    width: p.width,
    height: p.height,
    length: p.length,
    fps: p.fps,
    length_source: p.lengthSource,
    shot_hash: p.shotHash,
    preset_hash: p.presetHash,
    overrides: p.overrides,
    override_stale: p.overrideStale,
    parent_take: req.parentTake,
    note: p.note,
    refs: p.refs,
    missing_refs: p.missing,
  });
  if (p.missingMode) {
    s.missing_mode = p.missingMode;
    s.missing_note = p.missingNote;
  }
  if (p.resolved) {
    s.resolved = p.resolved;
    s.base = p.base;
    if (p.baseValues && Object.keys(p.baseValues).length) s.base_values = p.baseValues;
  }
  s.inputs = {};
  const draft = req.fromDraft?.[p.shot];
  if (draft) s.from_draft = { shot: p.shot, take: draft.take, task: draft.task };
  Object.assign(s, extra);
  s.notes = p.notes;
  if (p.negativeSource !== "none") s.negative_source = p.negativeSource;
  s.save_latent = p.saveLatent;
  if (p.saveFrames) s.save_frames = true;
  return s;
}

interface ChainResult {
  after: string | null;
  atStart?: string;
  continuity?: { shot: string; from: string; why: string };
  refEvent?: Emit;
  sidecar: Sidecar;
  error?: string;
}

/** Rules 7 and 8 for one shot: what it waits for, and a first frame cut now when it is missing or stale. */
async function chainOf(
  services: Pick<Services, "env" | "caches" | "media">,
  plan: Plan,
  p: PlannedShot,
  inRun: ReadonlyMap<string, string>,
  store: JobStore,
): Promise<ChainResult> {
  const { vi } = plan;
  const mode = p.chain;
  if (!mode) return { after: null, sidecar: {} };
  const prev = previousInCut(vi.cut, vi.build, p.shot);
  const frame = p.firstFrame;
  const frameExists = async () => (frame ? (await fileInside(showFence(vi.ep), frame)) !== null : false);
  const cutVerb = mode === "first" ? "its first frame is cut from" : "it holds the end of";
  if (!prev) {
    if (mode === "first" && !(await frameExists())) {
      return {
        after: null,
        sidecar: {},
        error: `${p.shot} is continuous: first but nothing comes before it in the cut and it has no first frame yet`,
      };
    }
    return { after: null, sidecar: {} };
  }
  const sidecar: Sidecar = mode === "first" ? { continuity_after: { shot: prev.shot } } : {};
  const job = inRun.get(prev.shot);
  if (job) {
    return {
      after: job,
      atStart: `${cutVerb} ${prev.shot}'s new take in this run when its render starts`,
      sidecar,
    };
  }
  const pass = prev.pass ?? plan.vi.pass;
  const takes = await folderTakes(services, vi.ep, pass, prev.shot);
  if (prev.take === undefined) {
    // No fixed pick: a take of that shot still rendering is what the cut will play when this one starts.
    for (let i = takes.length - 1; i >= 0; i--) {
      const t = takes[i];
      const id = typeof t.sidecar?.job === "string" ? t.sidecar.job : null;
      if (takeStatus(t) !== "queued" || !id) continue;
      const live = await store.get(id);
      if (live && (live.status === "queued" || live.status === "running")) {
        return {
          after: id,
          atStart: `${cutVerb} ${prev.shot} t${two(t.take)}, still rendering when its render starts`,
          sidecar,
        };
      }
    }
  }
  const pick = cutPick(prev, vi.pass, takes);
  const video = pickVideo(vi.ep, pick, prev.shot);
  if (!video || pick.number === null) {
    if (mode === "first" && !(await frameExists())) {
      return {
        after: null,
        sidecar,
        error: `${p.shot} continues ${prev.shot} (continuous: first) but ${prev.shot} has no usable take and none is queued: render ${prev.shot} first, or both in one request`,
      };
    }
    // A latent chain on an engine that holds it needs a take to hold when its job starts (the built-in draws a cut).
    if (mode === "latent" && p.lane !== "builtin") {
      return {
        after: null,
        sidecar,
        error: `${p.shot} continues ${prev.shot} (continuous: latent) but ${prev.shot} has no usable take to hold and none is queued: render ${prev.shot} first, or both in one request`,
      };
    }
    return { after: null, sidecar };
  }
  if (mode !== "first" || !frame) return { after: null, sidecar };
  const from = `${prev.shot} t${two(pick.number)}`;
  const outdated = await frameOutdated(episodeFence(vi.ep), frame, video);
  if (!outdated) return { after: null, sidecar };
  try {
    await cutLastFrame(episodeFence(vi.ep), video, frame, services.media);
  } catch (err) {
    return {
      after: null,
      sidecar,
      error: `couldn't cut ${p.shot}'s first frame from ${from}: ${errorMessage(err)}`,
    };
  }
  return {
    after: null,
    sidecar,
    continuity: {
      shot: p.shot,
      from,
      why: outdated === "missing" ? "it had no first frame yet" : `its first frame was older than ${from}`,
    },
    refEvent: {
      kind: "studio.ref",
      data: { ep: vi.ep, ref: `shot:${p.shot}:first`, view: null, take: null, status: "ok" },
    },
  };
}

/** Why a paid lane takes no more runs this session (the `paid_limit` reached), or null. */
async function paidLimitReached(
  services: Pick<Services, "home" | "env" | "caches">,
  store: JobStore,
  lane: string,
): Promise<string | null> {
  if (!isPaidLane(lane)) return null;
  const limit = (await effectiveSettings(services)).paid_limit;
  if (limit === null) return null;
  const { count } = await store.paid();
  if (count < limit) return null;
  return `the paid-run limit is reached (${count} of ${limit} runs sent to paid backends this session): raise paid_limit in the settings or reset the count (POST /studio/jobs/paid-reset)`;
}

/** Plan the request and queue what can be queued; events are emitted before the answer. */
export async function queueRender(
  services: Pick<
    Services,
    "home" | "env" | "events" | "now" | "engines" | "caches" | "locks" | "media" | "targets"
  >,
  ep: string,
  req: RenderRequest,
  deps: QueueDeps,
): Promise<RenderAnswer> {
  const plan = await planRender(services, ep, req, deps);
  const queued: QueuedTake[] = [];
  const errors: ShotError[] = [...plan.errors];
  const continuity: NonNullable<RenderAnswer["continuity"]> = [];
  const atStart: NonNullable<RenderAnswer["continuity_at_start"]> = [];
  const refEvents: Emit[] = [];
  const takeEvents: Emit[] = [];
  const failedEvents: Emit[] = [];

  await withLock(services, ep, async () => {
    const inRun = new Map<string, string>();
    for (const p of plan.shots) {
      let chain: ChainResult;
      try {
        chain = await chainOf(services, plan, p, inRun, deps.store);
      } catch (err) {
        errors.push({
          shot: p.shot,
          error: `couldn't follow ${p.shot}'s continuity: ${errorMessage(err)}`,
        });
        continue;
      }
      if (chain.refEvent) refEvents.push(chain.refEvent);
      if (chain.continuity) continuity.push(chain.continuity);
      if (chain.error) {
        errors.push({ shot: p.shot, error: chain.error });
        continue;
      }
      const overLimit = await paidLimitReached(services, deps.store, p.lane);
      if (overLimit) {
        errors.push({ shot: p.shot, error: overLimit });
        continue;
      }
      const queuedAt = localIso(services.now());
      let take: number;
      try {
        take = await reserveTake(ep, req.pass, p.shot, (n) =>
          queueSidecar(p, req, n, queuedAt, chain.sidecar),
        );
      } catch (err) {
        errors.push({ shot: p.shot, error: `couldn't reserve a take: ${errorMessage(err)}` });
        continue;
      }
      const t: TakeRef = { ep, pass: req.pass, shot: p.shot, take };
      const payload: RenderPayload = {
        ep,
        pass: req.pass,
        shot: p.shot,
        take,
        stem: stemOf(t),
        target: p.target,
        backend: p.lane,
        chain: p.chain,
        first_frame: p.firstFrame,
        last_frame: p.lastFrame,
        save_frames: p.saveFrames,
        save_latent: p.saveLatent,
        ...(p.workflow ? { workflow: p.workflow } : {}),
        ...(p.reviewCopy ? { review_copy: true } : {}),
      };
      let job: Job;
      try {
        const shots = [{ ...p.entry }];
        await writeShowFile(episodeFence(t.ep), frozenPath(t), frozenText({ ...p.doc, shots }));
        job = await insertTakeJob(
          services,
          deps.store,
          t,
          {
            kind: "render",
            lane: p.lane,
            title: jobTitle(t),
            info: { ep, pass: req.pass, shot: p.shot, take, target: p.target, backend: p.lane },
            payload,
            after: chain.after,
          },
          services.now(),
        );
      } catch (err) {
        const why = noteText(`not queued: ${errorMessage(err)}`);
        await closeTake(
          services,
          t,
          { status: "failed", finished: localIso(services.now()), save_notes: why, error: why },
          true,
        );
        errors.push({ shot: p.shot, error: `couldn't queue t${two(take)}: ${errorMessage(err)}`, take });
        failedEvents.push({ kind: "studio.take", data: takeEvent(t, "failed", null) });
        continue;
      }
      if (isPaidLane(p.lane)) await deps.store.paidAdd(1);
      inRun.set(p.shot, job.id);
      if (chain.atStart) atStart.push({ shot: p.shot, after: chain.atStart });
      queued.push({
        shot: p.shot,
        take,
        prompt_id: job.id,
        seed: p.seed.toString(),
        seed_source: p.seedSource,
        target: p.target,
      });
      takeEvents.push({ kind: "studio.take", data: takeEvent(t, "queued", null) });
    }
  });

  if (queued.length) deps.wake?.();
  for (const e of [...refEvents, ...takeEvents, ...failedEvents]) services.events.emit(e.kind, e.data);
  if (queued.length || failedEvents.length) services.events.emit("studio.episode", { ep });
  const answer: RenderAnswer = { queued, skipped: plan.skipped, errors };
  if (continuity.length) answer.continuity = continuity;
  if (atStart.length) answer.continuity_at_start = atStart;
  return answer;
}
