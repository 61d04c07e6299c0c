// POST /studio/clip/queue: everything one shot needs, asked for in one request. The pictures its render reads with
// no live file (subjects' views, the plate, the keyframes it reads and generates) each get their own generate
// request; a candidate already being made is waited for, a finished one not yet live is made live. Then a step
// (lib/clips/steps.ts) waits for them, makes them live and queues the renders, or keeps the still (`still`: the
// shot's first keyframe drawn on `image_target`). With nothing to wait for, the step's work is done at once.
import { stat } from "node:fs/promises";
import { z } from "zod";
import type { Pass } from "../compile/types.ts";
import { loadViewInputs } from "../episode/view-inputs.ts";
import { conflict, notFound } from "../errors.ts";
import { type Catalog, type CatalogRef, readCatalog } from "../refs/catalog.ts";
import { readRefSettings } from "../refs/effective.ts";
import { generateBody, generateRefs } from "../refs/generate.ts";
import { refsPlace } from "../refs/place.ts";
import { listTakes } from "../refs/takes.ts";
import type { QueuedTake } from "../render/queue.ts";
import { ep, pass, shotId, targetIdOrBlank } from "../schema/fields.ts";
import { errorMessage, textOf } from "../store/json-guards.ts";
import type { TargetRegistryView } from "../targets/registry.ts";
import {
  type ClipStepPayload,
  clipStepJob,
  runClipStep,
  type StepCandidate,
  type StepDeps,
  type StepServices,
} from "./steps.ts";

export const MAX_CLIP_TAKES = 8;

export const clipQueueBody = z.object({
  ep,
  shot: shotId.describe("The shot to make a clip of"),
  pass,
  takes: z
    .int()
    .min(1)
    .max(MAX_CLIP_TAKES)
    .nullish()
    .describe(`How many renders to queue once the pictures are live, 1 to ${MAX_CLIP_TAKES} (default 1)`),
  backend: z
    .string()
    .max(128)
    .nullish()
    .describe("The backend for the pictures and the renders: builtin, local, cloud or deployment:<target>"),
  still: z
    .boolean()
    .nullish()
    .describe(
      "Make a still instead of renders: the shot's first keyframe, drawn on image_target and made live",
    ),
  image_target: targetIdOrBlank
    .nullish()
    .describe(
      "The image target the still (and a keyframe the shot needs) is drawn on; left out: the episode's",
    ),
});
export type ClipQueueBody = z.output<typeof clipQueueBody>;

/** What happened to one picture the shot reads. */
export interface ClipRef {
  ref: string;
  kind: string;
  /** `queued` (asked for now), `waiting` (a candidate was already being made), `finished` (one is made, not live). */
  state: "queued" | "waiting" | "finished" | "failed";
  takes: { view: string | null; take: number; prompt_id: string | null; target?: string }[];
  errors: { view: string | null; error: string }[];
}

export interface ClipQueueAnswer {
  refs: ClipRef[];
  /** The jobs the step waits for. */
  waiting_on: string[];
  /** The step job; null when nothing had to be waited for (the renders were queued at once). */
  step: string | null;
  renders: QueuedTake[];
  stills: { ref: string; take: number; prompt_id: string; target: string }[];
}

const isEditing = (registry: TargetRegistryView, id: string) => {
  const mode = registry.get(id)?.capabilities.mode;
  return mode === "edit" || mode === "pano";
};

/**
 * The image target a keyframe is drawn on: the one asked for, else the episode's keyframe target when it draws from
 * a prompt alone, else the references' target (an edit target needs pictures a plain candidate is not sent).
 */
export function keyframeTargetOf(
  asked: string | null,
  defaults: { target: string; keyframe_target: string },
  registry: TargetRegistryView,
): string {
  if (asked) return asked;
  return isEditing(registry, defaults.keyframe_target) ? defaults.target : defaults.keyframe_target;
}

/** The pictures the shot's render on `pass` reads that can be generated: not voices, not imported keyframes. */
export function neededRefs(catalog: Pick<Catalog, "refs">, shot: string, pass: Pass): CatalogRef[] {
  return catalog.refs.filter((r) => {
    if (r.kind === "voice" || !r.used_by[pass].includes(shot)) return false;
    if (r.kind === "keyframe") return r.keyframe?.method === "generate";
    return true;
  });
}

type Made = Awaited<ReturnType<typeof generateRefs>>;
type Queued = { view: string | null; take: number; prompt_id: string; target: string };

/** The candidates a generate request queued (a dry run's have no take or job; this request makes none). */
const queuedOf = (made: Made): Queued[] =>
  made.queued.flatMap((q) =>
    q.take !== null && q.prompt_id !== null
      ? [{ view: q.view, take: q.take, prompt_id: q.prompt_id, target: q.target }]
      : [],
  );

const exists = (file: string) =>
  stat(file).then(
    (s) => s.isFile(),
    () => false,
  );

/** The request: 404 for a shot in no build of the pass; per picture, problems are `errors` entries. */
export async function queueClip(
  services: StepServices,
  epReal: string,
  body: ClipQueueBody,
  deps: StepDeps,
): Promise<ClipQueueAnswer> {
  const p: Pass = body.pass;
  const vi = await loadViewInputs(services, epReal, p);
  if (!vi) throw notFound(`${body.shot}: the ${p} pass has no build; build the episode first`);
  if (!vi.build.shots.has(body.shot)) {
    throw notFound(
      `${body.shot} is not a shot of the ${p} build (shots: ${vi.build.order.slice(0, 12).join(", ")})`,
    );
  }
  const place = await refsPlace(services, epReal);
  const [catalog, settings] = await Promise.all([
    readCatalog(services, place),
    readRefSettings(services, place),
  ]);
  const keyframeTarget = keyframeTargetOf(body.image_target || null, settings.defaults, settings.registry);
  const backend = body.backend?.trim() || null;

  const refs: ClipRef[] = [];
  const candidates: StepCandidate[] = [];
  let still: StepCandidate | null = null;
  const stills: ClipQueueAnswer["stills"] = [];

  const generate = async (c: CatalogRef, target: string | null) => {
    const asked = generateBody.parse({
      ep: epReal,
      ref: c.ref.id,
      pass: p,
      ...(backend ? { backend } : {}),
      ...(target ? { target } : {}),
      note: `for the clip of ${body.shot}`,
    });
    return generateRefs(services, epReal, asked, deps);
  };

  if (body.still) {
    const id = `shot:${body.shot}:first`;
    const c = catalog.byId.get(id);
    if (!c) throw notFound(`${body.shot} has no first keyframe in this episode's build`);
    const made = await generate(c, keyframeTarget);
    const queued = queuedOf(made);
    const first = queued[0];
    refs.push({
      ref: id,
      kind: c.kind,
      state: first ? "queued" : "failed",
      takes: queued,
      errors: made.errors.map((e) => ({ view: e.view, error: e.error })),
    });
    if (first) {
      still = { ref: id, view: null, take: first.take, job: first.prompt_id };
      stills.push({ ref: id, take: first.take, prompt_id: first.prompt_id, target: first.target });
    }
  } else {
    for (const c of neededRefs(catalog, body.shot, p)) {
      if (await exists(c.file)) continue;
      const takes = (await listTakes(services, place, c.ref)).filter(
        (t) => t.view !== "pano" && t.view !== "tour" && t.view !== "sheet",
      );
      const making = takes.filter((t) => t.status === "queued");
      const views = c.views.length ? c.views.map((v) => v.view as string) : [null];
      // Per view: a candidate being made is waited for, else the newest finished one is made live.
      const row: ClipRef = { ref: c.ref.id, kind: c.kind, state: "waiting", takes: [], errors: [] };
      let short = false;
      for (const view of views) {
        const mine = takes.filter((t) => t.view === view);
        const queued = making.filter((t) => t.view === view).pop();
        const usable = mine.filter((t) => t.usable).pop();
        const pick = queued ?? usable;
        if (!pick) {
          short = true;
          break;
        }
        const job = queued ? (textOf(queued.sidecar.job) ?? null) : null;
        row.takes.push({ view, take: pick.take, prompt_id: job });
        if (!queued) row.state = "finished";
      }
      if (!short) {
        if (row.takes.some((t) => t.prompt_id)) row.state = "waiting";
        refs.push(row);
        for (const t of row.takes)
          candidates.push({ ref: c.ref.id, view: t.view, take: t.take, job: t.prompt_id });
        continue;
      }
      const made = await generate(c, c.kind === "keyframe" ? keyframeTarget : null);
      const queued = queuedOf(made);
      refs.push({
        ref: c.ref.id,
        kind: c.kind,
        state: queued.length ? "queued" : "failed",
        takes: queued,
        errors: made.errors.map((e) => ({ view: e.view, error: e.error })),
      });
      for (const q of queued)
        candidates.push({ ref: c.ref.id, view: q.view, take: q.take, job: q.prompt_id });
    }
  }

  const waiting_on = [
    ...new Set([still, ...candidates].map((c) => c?.job).filter((j): j is string => typeof j === "string")),
  ];
  const payload: ClipStepPayload = {
    what: "clip",
    ep: epReal,
    shot: body.shot,
    pass: p,
    takes: body.takes ?? 1,
    backend,
    still,
    candidates,
    first: null,
  };
  if (body.still) {
    // No still was queued: there is nothing to wait for and nothing to keep; the refs entry says why.
    if (!still) return { refs, waiting_on, step: null, renders: [], stills };
  } else if (waiting_on.length === 0) {
    let done: Awaited<ReturnType<typeof runClipStep>>;
    try {
      done = await runClipStep(services, payload, { id: "" }, deps);
    } catch (err) {
      // Every picture is there and the render still cannot be queued (a blocked shot, a backend not set up).
      throw conflict(errorMessage(err), { refs });
    }
    return { refs, waiting_on, step: null, renders: done.state === "done" ? done.renders : [], stills };
  }
  const step = await deps.store.add(clipStepJob(payload, waiting_on[0] ?? null));
  deps.wake?.();
  return { refs, waiting_on, step: step.id, renders: [], stills };
}
