// Queueing upscales (POST /studio/upscale and the master's queue action): which takes, each one planned (skips
// and per-take errors), the backend asked whether it can run them all (502 silent, 409 missing pieces), then per
// take a `queued` record `<stem>.up.json` and an `upscale` job on its lane, with a `studio.upscale` event.
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { passFolder, safeShot } from "../episode/takes.ts";
import { loadViewInputs } from "../episode/view-inputs.ts";
import {
  type ChosenTake,
  chooseTakes,
  type TakeAsk,
  type TakeSkip,
  wholeCut,
} from "../episode/which-takes.ts";
import { conflict, StudioError } from "../errors.ts";
import { newJobId } from "../jobs/job-id.ts";
import type { NewJob } from "../jobs/types.ts";
import { upscaleChainHold } from "../render/chain.ts";
import { localIso } from "../render/time.ts";
import { errorMessage, type JsonObject } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import { takeBackend, takeFacts } from "./facts.ts";
import { BUILTIN_LANE } from "./finish-run.ts";
import { episodeProbe, judgeVersions, sourceStamp, upJsonName } from "./fresh.ts";
import { type PlannedUpscale, planUpscaleTake, recipeAsk, type UpscaleAsk } from "./plan.ts";
import { planNeeds, refuseMissing } from "./readiness.ts";
import { masterRecipe, shotOwnRecipe } from "./recipe.ts";
import { versionEvent, writeRecord } from "./version-record.ts";

export interface UpscaleRequest extends UpscaleAsk, TakeAsk {
  redo?: boolean;
  /** Use the series master recipe (only pass, shots/takes and redo still apply). */
  recipe?: boolean;
  backend?: string | null;
  /** `target`: grouped by what the backend loads, each group where its first shot is (the master's option). */
  order?: "cut" | "target";
}

export interface QueuedUpscale {
  shot: string;
  take: number;
  route: string;
  method: string;
  pixel_model: string | null;
  seedvr2_model: string | null;
  scale: number;
  start_step: number | null;
  then_pixel_model: string | null;
  width: number;
  height: number;
  prompt_id: string;
}

export interface UpscaleAnswer {
  queued: QueuedUpscale[];
  skipped: TakeSkip[];
  errors: { shot: string; take?: number; error: string }[];
}

/** What an upscale job carries: the take and its plan, made at queue time. */
export interface UpscalePayload {
  ep: string;
  pass: Pass;
  shot: string;
  take: number;
  stem: string;
  lane: string;
  plan: PlannedUpscale;
}

export const KEEP_REASON = "kept (its upscale is marked Keep)";

const two = (n: number) => String(n).padStart(2, "0");
export const upscaleTitle = (shot: string, take: number) => `${shot} t${two(take)} upscale`;

/** The `queued` record the queuer writes (the saver adds its fields when it finishes). */
export function queuedRecord(
  plan: PlannedUpscale,
  stamp: Awaited<ReturnType<typeof sourceStamp>>,
  queued: string,
  jobId: string,
): JsonObject {
  return {
    shot: plan.shot,
    take: plan.take,
    status: "queued",
    queued,
    comfy_prompt_id: null,
    backend_prompt_id: jobId,
    target: plan.target,
    route: plan.route,
    method: plan.method,
    mode: plan.mode,
    scale: plan.scale,
    start_step: plan.start_step,
    steps: plan.steps,
    seed: plan.seed === null ? null : BigInt(plan.seed),
    upscaler: plan.upscaler,
    pixel_model: plan.pixel_model,
    precision: plan.method === "resample" ? null : plan.precision,
    seedvr2_model: plan.seedvr2_model,
    ...(plan.method === "seedvr2" || plan.then_pixel?.method === "seedvr2"
      ? { color_correction: "lab" }
      : {}),
    encoder_asked: plan.encoder_asked,
    finish: plan.finish,
    then_pixel: plan.then_pixel,
    deliver: plan.deliver,
    on_upscale: plan.on_upscale,
    width: plan.width,
    height: plan.height,
    ...(stamp ?? {}),
    quality: plan.quality,
    recipe: plan.recipe,
    recipe_hash: plan.recipe_hash,
    job: jobId,
  };
}

/** What a backend loads for an upscale, so `order: target` can queue each model's takes together. */
const loadKey = (p: PlannedUpscale) =>
  [
    p.method === "latent" ? p.target : p.method,
    p.pixel_model ?? p.seedvr2_model ?? "",
    p.then_pixel?.model ?? "",
  ].join("|");

/** Groups by what the backend loads, each group where its first member is, cut order inside. */
export function orderByLoad<T>(items: readonly T[], key: (item: T) => string): T[] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    groups.set(k, [...(groups.get(k) ?? []), item]);
  }
  return [...groups.values()].flat();
}

/** Plan and queue the request's upscales. Throws 409 (no recipe, backend lacks pieces) or 502 (backend silent). */
export async function queueUpscales(
  services: Services,
  ep: string,
  pass: Pass,
  req: UpscaleRequest,
): Promise<UpscaleAnswer> {
  const vi = await loadViewInputs(services, ep, pass);
  if (!vi)
    throw new StudioError(404, `the ${pass} pass of ${path.basename(ep)} is not built yet: build it first`);
  const master = req.recipe ? masterRecipe(vi.seriesRaw) : null;
  if (req.recipe && !master) throw conflict("the series config has no upscale.master recipe");
  const chosen = await chooseTakes(services, vi, req);
  const answer: UpscaleAnswer = { queued: [], skipped: chosen.skipped, errors: [] };
  const whole = wholeCut(req);
  const probe = episodeProbe(services, ep);
  const planned: { c: ChosenTake; plan: PlannedUpscale; lane: string }[] = [];
  for (const c of chosen.takes) {
    const v = await judgeVersions(
      services,
      { ep, pass, shot: c.shot, stem: c.record.stem, files: c.record.files },
      probe,
    );
    const up = v.upscale;
    if (up?.status === "queued" && up.record) {
      answer.skipped.push({ shot: c.shot, take: c.take, reason: "its upscale is on its way" });
      continue;
    }
    if (up?.fresh && up.record?.keep === true && whole) {
      answer.skipped.push({ shot: c.shot, take: c.take, reason: KEEP_REASON });
      continue;
    }
    const facts = await takeFacts(vi, c.shot, c.record, up, probe);
    let ask: UpscaleAsk = req;
    if (master) {
      const fromRecipe = recipeAsk(master, facts.target, shotOwnRecipe(vi.overrides, c.shot));
      if ("error" in fromRecipe) {
        answer.errors.push({ shot: c.shot, take: c.take, error: fromRecipe.error });
        continue;
      }
      ask = fromRecipe.ask;
    }
    const result = planUpscaleTake(facts, ask);
    if ("error" in result) {
      answer.errors.push({ shot: c.shot, take: c.take, error: result.error });
      continue;
    }
    if (up?.fresh && !req.redo && up.record?.recipe_hash === result.ok.recipe_hash) {
      answer.skipped.push({ shot: c.shot, take: c.take, reason: "already upscaled" });
      continue;
    }
    if (up?.fresh && !req.redo && !master) {
      answer.skipped.push({ shot: c.shot, take: c.take, reason: "already upscaled" });
      continue;
    }
    // A ComfyUI take is upscaled on the backend that rendered it unless the request names another.
    const lane = facts.builtin ? BUILTIN_LANE : (req.backend ?? takeBackend(c.record) ?? "local");
    planned.push({ c, plan: result.ok, lane });
  }
  if (planned.length === 0) return answer;

  for (const lane of new Set(planned.map((p) => p.lane))) {
    if (lane !== BUILTIN_LANE && lane !== "local")
      throw conflict(`the ${lane} backend cannot upscale yet: send upscales to the local backend`);
  }
  const local = planned.filter((p) => p.lane === "local").map((p) => planNeeds(p.plan));
  if (local.length) await refuseMissing(services, local, "upscales");

  const ordered = req.order === "target" ? orderByLoad(planned, (p) => loadKey(p.plan)) : planned;
  const store = await services.jobs();
  const queuedAt = localIso(services.now());
  for (const { c, plan, lane } of ordered) {
    const dir = path.join(ep, passFolder(pass), safeShot(c.shot));
    const json = path.join(dir, upJsonName(c.record.stem));
    const jobId = newJobId();
    try {
      const stamp = await sourceStamp(ep, path.join(dir, `${c.record.stem}.mp4`));
      await withLock(services, ep, () =>
        writeRecord(services, ep, json, {
          ...queuedRecord(plan, stamp, queuedAt, jobId),
          // A latent chain's take: the record says why its upscale holds nothing of the previous one.
          ...upscaleChainHold(c.record.sidecar),
        }),
      );
      const job: NewJob<UpscalePayload> = {
        id: jobId,
        kind: "upscale",
        lane,
        title: upscaleTitle(c.shot, c.take),
        info: { ep, pass, shot: c.shot, take: c.take, target: plan.target ?? undefined, backend: lane },
        payload: { ep, pass, shot: c.shot, take: c.take, stem: c.record.stem, lane, plan },
        after: null,
      };
      await store.add(job);
    } catch (err) {
      const why = `not queued: ${errorMessage(err)}`;
      await withLock(services, ep, () =>
        writeRecord(services, ep, json, {
          shot: c.shot,
          take: c.take,
          status: "failed",
          queued: queuedAt,
          finished: localIso(services.now()),
          save_notes: why,
        }),
      ).catch(() => {});
      answer.errors.push({ shot: c.shot, take: c.take, error: why });
      services.events.emit("studio.upscale", versionEvent(ep, c.shot, c.take, "failed"));
      continue;
    }
    answer.queued.push({
      shot: c.shot,
      take: c.take,
      route: plan.route,
      method: plan.method,
      pixel_model: plan.pixel_model,
      seedvr2_model: plan.seedvr2_model,
      scale: plan.scale,
      start_step: plan.start_step,
      then_pixel_model: plan.then_pixel?.model ?? null,
      width: plan.width,
      height: plan.height,
      prompt_id: jobId,
    });
    services.events.emit("studio.upscale", versionEvent(ep, c.shot, c.take, "queued"));
  }
  services.jobSignals.jobAdded();
  return answer;
}

/**
 * A retry of an ended upscale job: the same plan queued again as a new job, its record rewritten `queued` with the
 * take's stamp now (the saver's fields of the last run dropped).
 */
export async function requeueUpscale(
  services: Services,
  job: { payload: UpscalePayload; lane: string; info: NewJob["info"] },
): Promise<NewJob<UpscalePayload>> {
  const p = job.payload;
  const dir = path.join(p.ep, passFolder(p.pass), safeShot(p.shot));
  const jobId = newJobId();
  const stamp = await sourceStamp(p.ep, path.join(dir, `${p.stem}.mp4`));
  if (!stamp) throw conflict(`${p.stem}.mp4 is gone: render the take again before upscaling it`);
  await withLock(services, p.ep, () =>
    writeRecord(
      services,
      p.ep,
      path.join(dir, upJsonName(p.stem)),
      queuedRecord(p.plan, stamp, localIso(services.now()), jobId),
    ),
  );
  services.events.emit("studio.upscale", versionEvent(p.ep, p.shot, p.take, "queued"));
  return {
    id: jobId,
    kind: "upscale",
    lane: job.lane,
    title: upscaleTitle(p.shot, p.take),
    info: job.info,
    payload: p,
    after: null,
  };
}
