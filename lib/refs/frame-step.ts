// A frame with an instruction: the frame take is edited into the reference on an edit target, and for a character a
// step then turns the made view into the other views. The step's state is its job payload (restart-safe): first it
// waits for the edit, picks it when asked and queues the turns from it; then it waits for the turns and picks each.
// A waiting step hands over to a follow-up step job that starts only after the job it waits on has ended.
import { z } from "zod";
import {
  candidate,
  look,
  makeLive,
  STEP_LANE,
  type StepCandidate,
  type StepDeps,
  type StepServices,
} from "../clips/steps.ts";
import type { Job, NewJob } from "../jobs/types.ts";
import { errorMessage } from "../store/json-guards.ts";
import { type FrameCandidate, otherViews } from "./from-frame.ts";
import { generateBody, generateRefs } from "./generate.ts";
import { type CharacterView, VIEWS } from "./ids.ts";
import { refsPlace } from "./place.ts";

export const frameStepPayload = z.object({
  what: z.literal("frame"),
  ep: z.string(),
  ref: z.string(),
  /** The edit of the frame: the view it makes (a character's) and its job. */
  made: candidate,
  /** The views to turn the made one into (none for a reference without views). */
  views: z.array(z.enum(VIEWS)),
  target: z.string(),
  backend: z.string().nullable(),
  /** true: make each finished view live; null: only where nothing is live; false: never. */
  pick: z.boolean().nullable(),
  /** The turns queued (empty until the edit is made). */
  turns: z.array(candidate),
  phase: z.enum(["edit", "turns"]),
  /** The step job the request answered with (a follow-up carries it on); null on that first job itself. */
  first: z.string().nullable(),
});
export type FrameStepPayload = z.infer<typeof frameStepPayload>;

export type FrameStepOutcome =
  | { state: "waiting"; on: string; next: string }
  | { state: "done"; picked: string[]; failed: string[]; turns: StepCandidate[] };

/** The step job of a frame edit (its `after`: the job it waits on). */
export function frameStepJob(p: FrameStepPayload, after: string | null): NewJob<FrameStepPayload> {
  const then = p.views.length
    ? `then ${p.views.length} turned view${p.views.length === 1 ? "" : "s"}`
    : "then pick it";
  return {
    kind: "step",
    lane: STEP_LANE,
    title: `frame of ${p.ref}: the edit, ${then}`,
    info: { ep: p.ep, ref: p.ref, step: p.first ?? "", what: "frame" },
    payload: p,
    after,
  };
}

/** Queue the turns of the made view into each other view; each queued is a candidate the step waits on. */
async function queueTurns(
  services: StepServices,
  p: FrameStepPayload,
  deps: StepDeps,
): Promise<{ turns: StepCandidate[]; failed: string[] }> {
  const turns: StepCandidate[] = [];
  const failed: string[] = [];
  for (const view of p.views) {
    try {
      const body = generateBody.parse({
        ep: p.ep,
        ref: p.ref,
        view,
        target: p.target,
        backend: p.backend,
        edit: { take: p.made.take, from_view: p.made.view as CharacterView, turn: true },
      });
      const answer = await generateRefs(services, p.ep, body, { store: deps.store, wake: deps.wake });
      for (const q of answer.queued)
        if (q.take !== null) turns.push({ ref: p.ref, view: q.view, take: q.take, job: q.prompt_id });
      for (const e of answer.errors) failed.push(`${view}: ${e.error}`);
    } catch (err) {
      failed.push(`${view}: ${errorMessage(err)}`);
    }
  }
  return { turns, failed };
}

/**
 * One run of a frame step. Waiting: a follow-up step job was added after the job still running. Done: the edit
 * (and the turns) are made live as asked. An edit that failed throws with the reason, so the step ends failed.
 */
export async function runFrameStep(
  services: StepServices,
  p: FrameStepPayload,
  self: Pick<Job, "id">,
  deps: StepDeps,
): Promise<FrameStepOutcome> {
  const place = await refsPlace(services, p.ep);
  const first = p.first ?? self.id;
  const wait = async (on: StepCandidate, next: FrameStepPayload) => {
    const job = await deps.store.add(frameStepJob({ ...next, first }, on.job));
    deps.wake?.();
    deps.log?.(`waiting on ${on.ref}${on.view ? ` ${on.view}` : ""} t${on.take}: continued as ${job.id}`);
    return { state: "waiting" as const, on: on.job ?? "", next: job.id };
  };
  const force = p.pick === true;
  if (p.phase === "edit") {
    const seen = await look(deps.store, place, p.made);
    if (seen.status === "pending") return wait(p.made, p);
    if (seen.status === "failed") throw new Error(`the edit of the frame failed: ${seen.why}`);
    const live =
      p.pick === false ? { picked: [], failed: [] } : await makeLive(services, place, [p.made], force);
    const { turns, failed } = await queueTurns(services, p, deps);
    failed.push(...live.failed);
    for (const f of failed) deps.log?.(f);
    if (turns.length === 0 || p.pick === false) {
      if (turns.length) deps.log?.(`queued ${turns.length} turned view${turns.length === 1 ? "" : "s"}`);
      return { state: "done", picked: live.picked, failed, turns };
    }
    return wait(turns[0], { ...p, turns, phase: "turns" });
  }
  const seen = await Promise.all(p.turns.map((c) => look(deps.store, place, c)));
  const pending = seen.find((s) => s.status === "pending");
  if (pending) return wait(pending.c, p);
  const failed = seen.filter((s) => s.status === "failed").map((s) => `${s.c.view} failed: ${s.why}`);
  const ok = seen.filter((s) => s.status === "ok").map((s) => s.c);
  const live = await makeLive(services, place, ok, force);
  failed.push(...live.failed);
  for (const f of failed) deps.log?.(f);
  return { state: "done", picked: live.picked, failed, turns: p.turns };
}

export interface FrameEditAsk {
  instruction: string;
  target: string | null;
  /** A character's views to turn the made one into; null: the other three. */
  views: readonly CharacterView[] | null;
  pick: boolean | null;
}

/**
 * Queues the edit of a frame take (the instruction wrapped with the reference introduction) and, for a character or
 * when the made picture is to be picked, the step that follows it. Answers the edit's job ids, the step's id, and
 * the edit's problems (nothing queued: no step).
 */
export async function queueFrameEdit(
  services: StepServices,
  made: FrameCandidate,
  ask: FrameEditAsk,
  deps: StepDeps,
): Promise<{ edits: string[]; step: string | null; errors: { view: string | null; error: string }[] }> {
  const ep = made.place.ep;
  const ref = made.c.ref.id;
  const view = made.take.view as CharacterView | null;
  const body = generateBody.parse({
    ep,
    ref,
    view,
    prompt: ask.instruction,
    target: ask.target,
    edit: { take: made.take.take, wrap: true },
  });
  const answer = await generateRefs(services, ep, body, { store: deps.store, wake: deps.wake });
  const errors = answer.errors.map((e) => ({ view: e.view, error: e.error }));
  const edits = answer.queued.flatMap((q) => (q.prompt_id ? [q.prompt_id] : []));
  const q = answer.queued[0];
  if (!q || q.take === null) return { edits, step: null, errors };
  const views = view && made.c.views.length > 0 ? otherViews(view, ask.views) : [];
  if (views.length === 0 && ask.pick === false) return { edits, step: null, errors };
  const step = await deps.store.add(
    frameStepJob(
      {
        what: "frame",
        ep,
        ref,
        made: { ref, view, take: q.take, job: q.prompt_id },
        views,
        target: q.target,
        backend: q.backend,
        pick: ask.pick,
        turns: [],
        phase: "edit",
        first: null,
      },
      q.prompt_id,
    ),
  );
  deps.wake?.();
  return { edits, step: step.id, errors };
}
