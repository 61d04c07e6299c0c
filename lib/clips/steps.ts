// The clip step: what POST /studio/clip/queue leaves to do once the pictures it asked for are made. Its state is
// the `step` job's payload in the job store (restart-safe by construction). A run reads the candidates' sidecars;
// while one is still being made it hands over to a follow-up step job that starts only after that candidate's job
// has ended (`after`), so a waiting step never holds a worker; once all have ended it makes the finished ones
// live (pickTake) and queues the renders, or keeps the still.
import { stat } from "node:fs/promises";
import { z } from "zod";
import type { Services } from "../context.ts";
import type { Job, JobStore, NewJob } from "../jobs/types.ts";
import { hasEnded } from "../jobs/wait.ts";
import { catalogRef, readCatalog } from "../refs/catalog.ts";
import { parseRefId, type RefView } from "../refs/ids.ts";
import { pickTake } from "../refs/live.ts";
import { liveRefOf } from "../refs/live-ref.ts";
import { type RefsPlace, refsPlace } from "../refs/place.ts";
import { readRefSidecar } from "../refs/queue-ref.ts";
import { type QueuedTake, queueRender } from "../render/queue.ts";
import { renderBody, renderRequest } from "../render/request.ts";
import { errorMessage, textOf } from "../store/json-guards.ts";

/** The lane step jobs run on: apart from the engines' lanes, so a step never waits behind the work it follows. */
export const STEP_LANE = "steps";

export const candidate = z.object({
  ref: z.string(),
  view: z.string().nullable(),
  take: z.int().min(1),
  /** The job making it; null for a finished candidate only waiting to be made live. */
  job: z.string().nullable(),
});
export type StepCandidate = z.infer<typeof candidate>;

export const clipStepPayload = z.object({
  what: z.literal("clip"),
  ep: z.string(),
  shot: z.string(),
  pass: z.enum(["final", "proxy"]),
  takes: z.int().min(1).max(8),
  backend: z.string().nullable(),
  /** The keyframe candidate to keep as the still; null: queue renders. */
  still: candidate.nullable(),
  /** Candidates to make live once they are finished. */
  candidates: z.array(candidate),
  /** The step job the request answered with (a follow-up carries it on); null on that first job itself. */
  first: z.string().nullable(),
});
export type ClipStepPayload = z.infer<typeof clipStepPayload>;

export type StepServices = Pick<
  Services,
  "home" | "env" | "events" | "now" | "engines" | "caches" | "locks" | "media" | "targets"
>;

export interface StepDeps {
  store: JobStore;
  wake?(): void;
  log?(line: string): void;
}

export type StepOutcome =
  | { state: "waiting"; on: string; next: string }
  | { state: "done"; picked: string[]; failed: string[]; renders: QueuedTake[] };

const two = (n: number) => String(n).padStart(2, "0");
const label = (c: StepCandidate) => `${c.ref}${c.view ? ` ${c.view}` : ""} t${two(c.take)}`;

/** The step job of a clip request (its `after`: the first candidate job still being made). */
export function clipStepJob(p: ClipStepPayload, after: string | null): NewJob<ClipStepPayload> {
  const work = p.still ? "the still" : `${p.takes} render${p.takes === 1 ? "" : "s"}`;
  return {
    kind: "step",
    lane: STEP_LANE,
    title: `clip ${p.shot} (${p.pass}): ${p.candidates.length} picture${p.candidates.length === 1 ? "" : "s"}, then ${work}`,
    info: { ep: p.ep, shot: p.shot, pass: p.pass, step: p.first ?? "", what: "clip" },
    payload: p,
    after,
  };
}

export type Seen = { c: StepCandidate; status: "pending" | "ok" | "failed"; why: string | null };

/** Where a candidate stands: its sidecar's status, with a sidecar still `queued` whose job has ended as failed. */
export async function look(store: JobStore, place: RefsPlace, c: StepCandidate): Promise<Seen> {
  const ref = parseRefId(c.ref);
  const sidecar = await readRefSidecar({ place, ref, view: c.view as RefView | null, take: c.take });
  if (!sidecar) return { c, status: "failed", why: "its sidecar is gone (discarded?)" };
  if (sidecar.status === "ok") return { c, status: "ok", why: null };
  if (sidecar.status !== "queued") {
    const notes = Array.isArray(sidecar.save_notes)
      ? sidecar.save_notes.filter((n) => typeof n === "string")
      : [];
    return {
      c,
      status: "failed",
      why: textOf(sidecar.error) ?? (notes.join("; ") || `status ${String(sidecar.status)}`),
    };
  }
  const jobId = c.job ?? textOf(sidecar.job);
  const job = jobId ? await store.get(jobId).catch(() => null) : null;
  if (job && !hasEnded(job)) return { c, status: "pending", why: null };
  // The job ended and the sidecar still says queued: its worker died before closing it (the listing closes it).
  return { c, status: "failed", why: job ? `its job ended ${job.status}` : "its job is gone" };
}

/** Makes the finished candidates live; a character's views stitch into the sheet once all four are picked. */
export async function makeLive(
  services: StepServices,
  place: RefsPlace,
  ok: StepCandidate[],
  force: boolean,
) {
  const picked: string[] = [];
  const failed: string[] = [];
  if (ok.length === 0) return { picked, failed };
  const catalog = await readCatalog(services, place);
  for (const c of ok) {
    try {
      const live = await liveRefOf(place, catalogRef(catalog, c.ref));
      // Something made it live meanwhile (a pick in the editor, auto-pick): that choice stands, unless asked.
      if (!force && (await stat(live.file).catch(() => null))) continue;
      await pickTake(services, place, live, c.view as RefView | null, c.take);
      picked.push(label(c));
    } catch (err) {
      failed.push(`${label(c)} could not be made live: ${errorMessage(err)}`);
    }
  }
  return { picked, failed };
}

/** Queue the shot's renders (the first on the built seed, the rest on new ones); none queued is the step's failure. */
async function queueRenders(
  services: StepServices,
  p: ClipStepPayload,
  deps: StepDeps,
): Promise<QueuedTake[]> {
  const queued: QueuedTake[] = [];
  const problems: string[] = [];
  for (let i = 0; i < p.takes; i++) {
    const body = renderBody.parse({
      ep: p.ep,
      pass: p.pass,
      shots: [p.shot],
      redo: true,
      seed_mode: i === 0 ? "auto" : "new",
      backend: p.backend,
    });
    const answer = await queueRender(services, p.ep, renderRequest(body), {
      store: deps.store,
      engine: (backend) => services.engines.get(backend),
      wake: deps.wake,
    });
    queued.push(...answer.queued);
    for (const e of answer.errors) problems.push(e.error);
    for (const s of answer.skipped) problems.push(`${s.shot}: ${s.reason}`);
    if (answer.queued.length === 0) break;
  }
  if (queued.length === 0) {
    throw new Error(`${p.shot} was not queued: ${[...new Set(problems)].join("; ") || "no take was made"}`);
  }
  return queued;
}

/**
 * One run of a clip step. Waiting: a follow-up step job was added (after the candidate job still running) and this
 * run is over. Done: finished pictures are live and the renders queued (or the still kept); a still that failed, or
 * renders that could not be queued, throw with the reason, so the step job ends failed saying so.
 */
export async function runClipStep(
  services: StepServices,
  p: ClipStepPayload,
  self: Pick<Job, "id">,
  deps: StepDeps,
): Promise<StepOutcome> {
  const place = await refsPlace(services, p.ep);
  const all = p.still ? [p.still, ...p.candidates] : p.candidates;
  const seen = await Promise.all(all.map((c) => look(deps.store, place, c)));
  const pending = seen.find((s) => s.status === "pending");
  if (pending) {
    const on = pending.c.job ?? "";
    const next = await deps.store.add(clipStepJob({ ...p, first: p.first ?? self.id }, on));
    deps.wake?.();
    deps.log?.(`waiting on ${label(pending.c)}: continued as ${next.id}`);
    return { state: "waiting", on, next: next.id };
  }
  const failed = seen.filter((s) => s.status === "failed").map((s) => `${label(s.c)} failed: ${s.why}`);
  for (const f of failed) deps.log?.(f);
  const ok = seen.filter((s) => s.status === "ok" && s.c !== p.still).map((s) => s.c);
  const live = await makeLive(services, place, ok, false);
  failed.push(...live.failed);
  if (p.still) {
    const still = seen[0];
    if (still.status !== "ok") throw new Error(`the still ${label(p.still)} failed: ${still.why}`);
    const kept = await makeLive(services, place, [p.still], true);
    if (kept.failed.length) throw new Error(kept.failed.join("; "));
    live.picked.push(...kept.picked);
    deps.log?.(`the still ${label(p.still)} is the shot's keyframe`);
    return { state: "done", picked: live.picked, failed, renders: [] };
  }
  const renders = await queueRenders(services, p, deps);
  deps.log?.(`queued ${renders.map((r) => `${r.shot} t${two(r.take)}`).join(", ")}`);
  return { state: "done", picked: live.picked, failed, renders };
}
