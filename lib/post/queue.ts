// POST /studio/post, queueing: the takes asked for, each planned (queue, skip or error) from its upscale and post
// records and its settings (the request's, or the series recipe with the shot's own entry merged over it), the
// engines asked whether they can run what is left (a silent one 502, a missing node or model 409), then per take
// its record written `queued` naming its job, the job inserted and a `studio.post` event sent. The master's queue
// may ask for posts of upscales still on their way: each such post job waits for its upscale's job (`after`).
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { loadViewInputs } from "../episode/view-inputs.ts";
import { chooseTakes, type TakeAsk, type TakeSkip } from "../episode/which-takes.ts";
import { StudioError } from "../errors.ts";
import { newJobId } from "../jobs/job-id.ts";
import type { JobStore, NewJob } from "../jobs/types.ts";
import { localIso } from "../render/time.ts";
import { errorMessage, isObject, str } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import { episodeProbe, judgeVersions } from "../upscale/fresh.ts";
import { readRecordNow, recordPath, versionEvent, writeRecord } from "../upscale/version-record.ts";
import type { PostPayload } from "./payload.ts";
import { planPost, takeVersions } from "./plan.ts";
import { checkPostReadiness, type ReadyAsk } from "./readiness.ts";
import {
  mergedRecipe,
  type Parsed,
  type PostSettings,
  parseBlur,
  parseEnhance,
  recipeSettings,
  seriesPostRecipe,
} from "./recipe.ts";

export interface PostRequest extends TakeAsk {
  pass: Pass;
  redo: boolean;
  /** null: on when neither `enhance` nor `blur` is given (null counts as not given). */
  recipe: boolean | null;
  /** undefined: not given (a given null means "no enhance"). */
  enhance?: unknown;
  blur?: number | null;
  quality: "review" | "master" | null;
  /**
   * Upscale jobs on their way that the posts of these takes are to wait for (the master's queue): a take whose
   * upscale record is still that job's queued one gets its post queued behind it instead of refused.
   */
  behind?: readonly { shot: string; take: number; job: string }[];
  /** With `behind`: `cut` puts each such post right behind its upscale in its lane; `target` leaves it last. */
  order?: "cut" | "target";
}

export interface PostAnswer {
  queued: { shot: string; take: number; what: string; width: number; height: number; prompt_id: string }[];
  skipped: TakeSkip[];
  errors: { shot: string; take: number; error: string }[];
}

/** The settings a request gives every take when it does not use the recipe. */
function requestSettings(req: PostRequest): Parsed<PostSettings> {
  const enhance = parseEnhance(req.enhance);
  if (!enhance.ok) return enhance;
  const blur = parseBlur(req.blur);
  if (!blur.ok) return blur;
  return {
    ok: true,
    value: { enhance: enhance.value, motion_blur: blur.value, quality: null, encoder: null },
  };
}

export async function queuePosts(services: Services, ep: string, req: PostRequest): Promise<PostAnswer> {
  const vi = await loadViewInputs(services, ep, req.pass);
  if (!vi) throw new StudioError(404, `the ${req.pass} pass of ${ep} has no build: build the episode first`);
  const useRecipe = req.recipe ?? ((req.enhance ?? null) === null && (req.blur ?? null) === null);
  const master = useRecipe ? seriesPostRecipe(vi.seriesRaw) : null;
  if (useRecipe && !master) throw new StudioError(409, "the series config has no post.master recipe");
  const fromRequest = useRecipe ? null : requestSettings(req);
  const shotPosts = isObject(vi.overrides.post) ? vi.overrides.post : {};

  const chosen = await chooseTakes(services, vi, req);
  const answer: PostAnswer = { queued: [], skipped: [...chosen.skipped], errors: [] };
  const probe = episodeProbe(services, ep);
  const planned: (ReadyAsk & { after: string | null })[] = [];
  for (const c of chosen.takes) {
    const { upscale, post } = await judgeVersions(
      services,
      { ep, pass: req.pass, shot: c.shot, stem: c.record.stem, files: c.record.files },
      probe,
    );
    const sc = c.record.sidecar;
    const up = upscale?.record ?? null;
    const wait = req.behind?.find((b) => b.shot === c.shot && b.take === c.take);
    // Only while the record is still the queued one of the job asked about (a redo since names another job).
    const after =
      wait && upscale?.status === "queued" && up && str((up as Record<string, unknown>).job) === wait.job
        ? wait.job
        : null;
    const versions = takeVersions(c.shot, c.record, upscale, post);
    const entry = shotPosts[c.shot];
    const settings =
      fromRequest ?? recipeSettings(mergedRecipe(master ?? {}, isObject(entry) ? entry : null));
    const decision = planPost(versions, settings, {
      redo: req.redo,
      quality: req.quality,
      behindUpscale: after !== null,
    });
    if ("skip" in decision) answer.skipped.push(decision.skip);
    else if ("error" in decision) answer.errors.push(decision.error);
    else {
      const seed = sc?.seed;
      const q = decision.queue;
      planned.push({
        after,
        plan: q,
        stem: c.record.stem,
        seed: seed === undefined || seed === null ? null : String(seed),
        source: {
          file: upscale?.mp4 ?? "",
          width: q.width,
          height: q.height,
          fps: typeof sc?.fps === "number" ? sc.fps : 24,
          frames: typeof up?.frames === "number" ? up.frames : 0,
        },
      });
    }
  }
  if (planned.length === 0) return answer;

  // Nothing is written before every engine involved says it can run its posts.
  await checkPostReadiness(services, planned);

  const store = await services.jobs();
  const events: ReturnType<typeof versionEvent>[] = [];
  for (const { plan, stem, seed, after } of planned) {
    const ref = { ep, pass: req.pass, shot: plan.shot, stem };
    const jobId = newJobId();
    const queuedAt = localIso(services.now());
    const record: Record<string, unknown> = {
      shot: plan.shot,
      take: plan.take,
      status: "queued",
      queued: queuedAt,
      comfy_prompt_id: null,
      backend_prompt_id: null,
      recipe: plan.recipe,
      recipe_hash: plan.recipe_hash,
      encoder_asked: plan.encoder_asked,
      quality: plan.quality,
      width: plan.width,
      height: plan.height,
      backend: plan.lane,
      job: jobId,
    };
    const payload: PostPayload = {
      ep,
      pass: req.pass,
      shot: plan.shot,
      take: plan.take,
      stem,
      settings: {
        enhance: plan.settings.enhance ? { ...plan.settings.enhance } : null,
        motion_blur: plan.settings.motion_blur,
      },
      quality: plan.quality,
      encoder_asked: plan.encoder_asked,
      recipe_hash: plan.recipe_hash,
      width: plan.width,
      height: plan.height,
      seed,
    };
    try {
      await withLock(services, ep, () => writeRecord(services, ep, recordPath("post", ref), record));
      await store.add({
        id: jobId,
        kind: "post",
        lane: plan.lane,
        title: `${stem} post (${req.pass})`,
        info: { ep, pass: req.pass, shot: plan.shot, take: plan.take, backend: plan.lane },
        payload,
        after,
      });
      if (after && req.order !== "target") await placeBehind(store, jobId, plan.lane, after);
    } catch (err) {
      const why = `not queued: ${errorMessage(err)}`;
      await withLock(services, ep, () =>
        writeRecord(services, ep, recordPath("post", ref), {
          ...record,
          status: "failed",
          finished: localIso(services.now()),
          save_notes: why,
        }),
      ).catch(() => {});
      answer.errors.push({ shot: plan.shot, take: plan.take, error: why });
      events.push(versionEvent(ep, plan.shot, plan.take, "failed"));
      continue;
    }
    answer.queued.push({
      shot: plan.shot,
      take: plan.take,
      what: plan.what,
      width: plan.width,
      height: plan.height,
      prompt_id: jobId,
    });
    events.push(versionEvent(ep, plan.shot, plan.take, "queued"));
  }
  if (answer.queued.length) services.jobSignals.jobAdded();
  for (const e of events) services.events.emit("studio.post", e);
  return answer;
}

/**
 * Move a waiting post to right behind the job it waits for among its lane's waiting jobs (to the front when that
 * job is no longer waiting), so it runs as soon as its upscale ends. A worker taking a job between the look and
 * the move shifts the places: looked at again, a few times. Never fails the queueing: `after` keeps the order that
 * matters either way.
 */
async function placeBehind(store: JobStore, id: string, lane: string, after: string): Promise<void> {
  try {
    for (let tries = 0; tries < 3; tries++) {
      const waiting = (await store.list()).lanes[lane]?.waiting ?? [];
      const at = waiting.indexOf(id);
      if (at < 0) return;
      const want = waiting.filter((w) => w !== id).indexOf(after) + 1;
      if (at === want) return;
      await store.move(id, want);
    }
  } catch {
    // Taken by a worker meanwhile (its upscale ended already): it runs now, which is where it was going.
  }
}

/** The fields the queuer writes that a retry keeps (the saver's and the last run's ids are dropped). */
const QUEUER_FIELDS = [
  "shot",
  "take",
  "recipe",
  "recipe_hash",
  "encoder_asked",
  "quality",
  "width",
  "height",
  "backend",
] as const;

/**
 * A retry of an ended post job: the same post queued again as a new job, its record rewritten `queued` naming that
 * job (else the new run would find the record another job's and do nothing).
 */
export async function requeuePost(
  services: Services,
  job: { payload: PostPayload; lane: string; title: string; info: NewJob["info"] },
): Promise<NewJob<PostPayload>> {
  const p = job.payload;
  const file = recordPath("post", p);
  const jobId = newJobId();
  await withLock(services, p.ep, async () => {
    const now = await readRecordNow(p.ep, file);
    if (!now) throw new StudioError(409, `${p.stem}.post.json is gone: post the take again`);
    const kept = Object.fromEntries(QUEUER_FIELDS.filter((k) => k in now).map((k) => [k, now[k]]));
    await writeRecord(services, p.ep, file, {
      ...kept,
      status: "queued",
      queued: localIso(services.now()),
      comfy_prompt_id: null,
      backend_prompt_id: null,
      job: jobId,
    });
  });
  services.events.emit("studio.post", versionEvent(p.ep, p.shot, p.take, "queued"));
  return {
    id: jobId,
    kind: "post",
    lane: job.lane,
    title: job.title,
    info: job.info,
    payload: p,
    after: null,
  };
}
