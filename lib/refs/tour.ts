// Camera tours of a location: queueing them from the live plate (a `tour` job per video, its sidecar
// `_tours/tour_tNN.json` written `queued` first), running one (the video kept as `_tours/tour_tNN.mp4`, its held
// moments cut as exact frames into takes of the `tour` pseudo-view, events as each lands), and adding a frame of a
// finished tour by its time as one more hold.
import { copyFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { Services } from "../context.ts";
import type { Engine } from "../engines/types.ts";
import { hashFile } from "../episode/staleness.ts";
import { badRequest, conflict, notFound, StudioError } from "../errors.ts";
import type { JobStore } from "../jobs/types.ts";
import { mediaTools } from "../media/ffmpeg.ts";
import {
  guardPath,
  listShowFiles,
  mkdirShow,
  readListedJson,
  removeShow,
  renameShow,
  statShowOrNull,
  writeShowJson,
} from "../paths/guarded.ts";
import { newSeed53 } from "../script/seeds.ts";
import { forgetJsonFile } from "../store/json-file.ts";
import { errorMessage, isObject, type JsonObject } from "../store/json-guards.ts";
import { tempPath } from "../store/temp-names.ts";
import { catalogRef, readCatalog } from "./catalog.ts";
import { parseRefId, type RefId } from "./ids.ts";
import { cutFrame, pictureSize } from "./keyframe-cut.ts";
import { wireTake } from "./list-takes.ts";
import { liveRefOf } from "./live-ref.ts";
import { liveFence, type RefsPlace, refsPlace, takesDir, takesFence } from "./place.ts";
import { addTake, type RefTake, withRefsLock } from "./takes.ts";
import { measureTour } from "./tour-figures.ts";
import { findHolds, frameSeconds } from "./tour-holds.ts";
import { runTargetTour, tourGrid, tourTarget } from "./tour-target.ts";
import { MOVE_WORDS, makeTourVideo, type TourMove, tourMove, tourSize } from "./tour-video.ts";

export const TOUR_FPS = 24;
export const TOUR_SECONDS = { min: 2, max: 10, default: 6 } as const;
export const TOUR_COUNT = { min: 1, max: 4, default: 1 } as const;

/** The payload of a `tour` job. */
export const tourPayload = z.object({
  ep: z.string(),
  ref: z.string(),
  tour: z.int().min(1),
  move: tourMove,
  seconds: z.number().min(TOUR_SECONDS.min).max(TOUR_SECONDS.max),
  seed: z.string().regex(/^\d+$/),
  prompt: z.string(),
  /** A ComfyUI video target and its backend; absent: the built-in zoompan. */
  target: z.string().nullish(),
  backend: z.string().nullish(),
});
export type TourPayload = z.infer<typeof tourPayload>;

const two = (n: number) => String(n).padStart(2, "0");
export const toursDir = (place: RefsPlace, ref: RefId) => path.join(takesDir(place, ref), "_tours");
const tourName = (n: number) => `tour_t${two(n)}`;
const sidecarOf = (place: RefsPlace, ref: RefId, n: number) =>
  path.join(toursDir(place, ref), `${tourName(n)}.json`);

type TourServices = Pick<Services, "home" | "env" | "caches" | "locks" | "now" | "targets" | "media">;

async function readTourSidecar(
  services: TourServices,
  place: RefsPlace,
  ref: RefId,
  n: number,
): Promise<JsonObject | null> {
  const listing = await listShowFiles(takesFence(place, ref), toursDir(place, ref)).catch(() => null);
  if (!listing?.files.includes(`${tourName(n)}.json`)) return null;
  const raw = await readListedJson(services, listing, `${tourName(n)}.json`, "a tour sidecar").catch(
    () => undefined,
  );
  return isObject(raw) ? raw : null;
}

/** Rewrites a tour's sidecar under the ref home's lock. */
async function updateTour(
  services: TourServices,
  place: RefsPlace,
  ref: RefId,
  n: number,
  change: (record: JsonObject) => JsonObject,
): Promise<JsonObject> {
  return withRefsLock(services, place, ref, async () => {
    const current = (await readTourSidecar(services, place, ref, n)) ?? {};
    const next = change({ ...current });
    const file = sidecarOf(place, ref, n);
    await writeShowJson(takesFence(place, ref), file, next);
    forgetJsonFile(services, file);
    return next;
  });
}

/** One past the highest tour number in `_tours/` (numbers are never reused while their files are there). */
async function nextTourNumber(place: RefsPlace, ref: RefId): Promise<number> {
  const listing = await listShowFiles(takesFence(place, ref), toursDir(place, ref)).catch(() => null);
  let high = 0;
  for (const name of listing?.files ?? []) {
    const m = /^tour_t(\d{2,})\./.exec(name);
    if (m) high = Math.max(high, Number(m[1]));
  }
  return high + 1;
}

export interface TourRequest {
  ref: string;
  move: TourMove;
  seconds?: number | null;
  count?: number | null;
  seed?: bigint | null;
  /** A video target with a first-frame input; absent (or backend `builtin`): the built-in zoompan. */
  target?: string | null;
  backend?: string | null;
}

/** Queues `count` tours of a location's live plate; the first follows a typed seed, the others get new ones. */
export async function queueTours(
  services: TourServices & Pick<Services, "events">,
  store: JobStore,
  ep: string,
  req: TourRequest,
  wake?: () => void,
): Promise<{ queued: { tour: number; backend_prompt_id: string }[] }> {
  const id = parseRefId(req.ref);
  const place = await refsPlace(services, ep);
  const c = catalogRef(await readCatalog(services, place), id.id);
  if (c.kind !== "location") {
    throw badRequest(`${id.id} is a ${c.kind}: tours are made from a location's plate`);
  }
  const live = await liveRefOf(place, c);
  const fence = await liveFence(place);
  if (!(await statShowOrNull(fence, live.file))) {
    throw conflict(`${id.id} has no live plate (${c.path}) to tour: pick, import or generate one first`);
  }
  await mediaTools(services.media);
  const seconds = req.seconds ?? TOUR_SECONDS.default;
  const count = req.count ?? TOUR_COUNT.default;
  const plateSha1 = await hashFile(fence, live.file);
  const onTarget = req.target != null && req.backend !== "builtin";
  if (onTarget) await tourTarget(services, place.series.home, String(req.target));
  const backend = onTarget ? (req.backend ?? "local") : "builtin";
  const target = onTarget ? String(req.target) : null;
  const prompt = onTarget
    ? `the camera makes ${MOVE_WORDS[req.move]} through ${c.prompt || c.name}, no people`
    : `${MOVE_WORDS[req.move]} through ${c.name}, pausing along the way${c.prompt ? `: ${c.prompt}` : ""}`;
  const ref = live.ref;
  const queued: { tour: number; backend_prompt_id: string }[] = [];
  for (let i = 0; i < count; i++) {
    const seed = i === 0 && req.seed != null ? req.seed : newSeed53();
    const n = await withRefsLock(services, place, ref, async () => {
      const next = await nextTourNumber(place, ref);
      await mkdirShow(takesFence(place, ref), toursDir(place, ref));
      await writeShowJson(takesFence(place, ref), sidecarOf(place, ref, next), {
        tour: next,
        ref: ref.id,
        status: "queued",
        queued: services.now().toISOString(),
        move: req.move,
        prompt,
        seconds,
        seed: seed.toString(),
        frame: path.relative(ep, live.file).split(path.sep).join("/"),
        frame_sha1: plateSha1,
        target,
        backend,
        backend_prompt_id: null,
        job: null,
        holds: [],
        error: null,
        finished: null,
        video: null,
        fps: TOUR_FPS,
      });
      return next;
    });
    const payload: TourPayload = {
      ep,
      ref: ref.id,
      tour: n,
      move: req.move,
      seconds,
      seed: seed.toString(),
      prompt,
      target,
      backend,
    };
    let jobId: string;
    try {
      const job = await store.add({
        kind: "tour",
        lane: backend,
        title: `${ref.id} ${tourName(n)} (${req.move.replace("_", " ")})`,
        info: { ep, ref: ref.id, tour: n, backend, ...(target ? { target } : {}) },
        payload,
      });
      jobId = job.id;
    } catch (err) {
      await updateTour(services, place, ref, n, (r) => ({
        ...r,
        status: "failed",
        error: `not queued: ${errorMessage(err)}`,
        finished: services.now().toISOString(),
      }));
      throw err;
    }
    await updateTour(services, place, ref, n, (r) => ({ ...r, job: jobId, backend_prompt_id: jobId }));
    queued.push({ tour: n, backend_prompt_id: jobId });
  }
  wake?.();
  services.events.emit("studio.episode", { ep });
  return { queued };
}

export interface TourRunHooks {
  signal: AbortSignal;
  progress(share: number, step: string): void;
  emit(kind: string, data: unknown): void;
  /** The engine of a backend, for tours on a ComfyUI video target. */
  engine?(backend: string): Engine;
}

/** Makes one tour and its holds; the sidecar ends `ok` with its holds, or `failed` with why. */
export async function runTour(services: TourServices, p: TourPayload, hooks: TourRunHooks): Promise<void> {
  const place = await refsPlace(services, p.ep);
  const ref = parseRefId(p.ref);
  const current = await readTourSidecar(services, place, ref, p.tour);
  if (!current) throw new Error(`${p.ref} ${tourName(p.tour)}: its sidecar is gone`);
  if (current.status === "ok") return;
  // A retry of a failed tour runs it again from the start.
  if (current.status !== "queued") {
    await updateTour(services, place, ref, p.tour, (r) => ({
      ...r,
      status: "queued",
      error: null,
      finished: null,
    }));
  }
  const fence = takesFence(place, ref);
  const dir = await mkdirShow(fence, toursDir(place, ref));
  const video = path.join(dir, `${tourName(p.tour)}.mp4`);
  const tmp = tempPath(video, ".mp4");
  const holds: number[] = [];
  try {
    // The plate as it was queued, read only where the series config may lead.
    const plate = await guardPath(await liveFence(place), path.join(p.ep, String(current.frame ?? "")));
    const meta = await pictureSize(plate);
    if (!meta.width || !meta.height) throw new Error(`the plate ${String(current.frame)} is not a picture`);
    let size = tourSize(meta.width, meta.height);
    let fps = TOUR_FPS;
    hooks.progress(0, "camera move");
    if (p.target && p.backend && p.backend !== "builtin") {
      if (!hooks.engine) throw new Error("tours on a target need the job's engines");
      const spec = await tourTarget(services, place.series.home, p.target);
      const grid = tourGrid(spec, p.seconds, { width: meta.width, height: meta.height });
      ({ fps } = grid);
      size = { width: grid.width, height: grid.height };
      const made = await runTargetTour(
        services,
        hooks.engine(p.backend),
        {
          ep: p.ep,
          seriesHome: place.series.home,
          target: p.target,
          stem: `${ref.id.replace(/[^A-Za-z0-9_-]/g, "_")}_${tourName(p.tour)}`,
          plate,
          prompt: p.prompt,
          seed: BigInt(p.seed),
          grid,
        },
        {
          signal: hooks.signal,
          onProgress: (e) => hooks.progress((e.progress ?? 0) * 0.7, e.step ?? "camera move"),
        },
      );
      try {
        await copyFile(made.video, tmp);
      } finally {
        await made.done();
      }
    } else {
      const frames = Math.round(p.seconds * TOUR_FPS);
      await makeTourVideo(
        services.media,
        plate,
        { move: p.move, frames, fps: TOUR_FPS, ...size, seed: BigInt(p.seed) },
        tmp,
        { signal: hooks.signal, onProgress: (s) => hooks.progress(s * 0.7, "camera move") },
      );
    }
    await renameShow(fence, tmp, video);
    hooks.progress(0.7, "held moments");
    const figures = await measureTour(services.media, video, { ...size, fps }, hooks.signal);
    const found = findHolds(figures);
    for (const [i, h] of found.entries()) {
      const a = frameSeconds(h.start, fps);
      const b = frameSeconds(h.end + 1, fps);
      const take = await addTake(services, place, ref, {
        view: "tour",
        ext: "png",
        write: (out) => cutFrame(services.media, video, h.frame, out, hooks.signal),
        fields: {
          source: "tour",
          tour: p.tour,
          hold: i + 1,
          start: a,
          end: b,
          frame: h.frame,
          prompt: p.prompt,
          seed: p.seed,
          note: `${tourName(p.tour).replace("_", " ")} hold ${i + 1} (${a}–${b} s)`,
          ...size,
        },
      });
      holds.push(take.take);
      await updateTour(services, place, ref, p.tour, (r) => ({ ...r, holds: [...holds] }));
      hooks.emit("studio.ref", { ep: p.ep, ref: ref.id, view: "tour", take: take.take, status: "ok" });
      hooks.progress(0.7 + (0.3 * (i + 1)) / found.length, "held moments");
    }
    await updateTour(services, place, ref, p.tour, (r) => ({
      ...r,
      status: "ok",
      holds,
      error: null,
      finished: services.now().toISOString(),
      video: path.basename(video),
      fps,
      frames: figures.motion.length,
      width: size.width,
      height: size.height,
    }));
    hooks.emit("studio.episode", { ep: p.ep });
  } catch (err) {
    const why = hooks.signal.aborted ? "canceled" : errorMessage(err).slice(0, 800);
    await updateTour(services, place, ref, p.tour, (r) => ({
      ...r,
      status: "failed",
      holds,
      error: why,
      finished: services.now().toISOString(),
    })).catch(() => undefined);
    hooks.emit("studio.episode", { ep: p.ep });
    throw err;
  } finally {
    await removeShow(fence, tmp).catch(() => undefined);
  }
}

/** Adds the frame at `seconds` of a finished tour as a hold (`hold: null`); answers the take as listed. */
export async function tourFrame(
  services: TourServices & Pick<Services, "events">,
  ep: string,
  refText: string,
  tour: number,
  seconds: number,
): Promise<JsonObject> {
  const id = parseRefId(refText);
  const place = await refsPlace(services, ep);
  const c = catalogRef(await readCatalog(services, place), id.id);
  if (c.kind !== "location") throw badRequest(`${id.id} is a ${c.kind}: only locations have tours`);
  const ref = c.ref;
  const record = await readTourSidecar(services, place, ref, tour);
  if (!record) throw notFound(`${ref.id} has no tour ${tour}`);
  if (record.status !== "ok" || typeof record.video !== "string") {
    throw conflict(
      `${ref.id} ${tourName(tour)} is ${String(record.status ?? "unreadable")}: only a finished tour gives frames`,
    );
  }
  await mediaTools(services.media);
  const fence = takesFence(place, ref);
  const video = path.join(toursDir(place, ref), path.basename(record.video));
  if (!(await statShowOrNull(fence, video))) throw conflict(`${ref.id} ${tourName(tour)}'s video is gone`);
  const fps = typeof record.fps === "number" && record.fps > 0 ? record.fps : TOUR_FPS;
  const frames =
    typeof record.frames === "number" ? record.frames : Math.round(Number(record.seconds ?? 0) * fps);
  const index = Math.round(seconds * fps);
  if (!(seconds >= 0) || index >= frames) {
    throw badRequest(
      `seconds ${seconds} is outside ${tourName(tour)}: it runs ${frameSeconds(frames, fps)} s (0 to ${frameSeconds(frames - 1, fps)})`,
    );
  }
  const at = frameSeconds(index, fps);
  const fields: Record<string, unknown> = {
    source: "tour",
    tour,
    hold: null,
    start: at,
    end: at,
    frame: index,
    prompt: typeof record.prompt === "string" ? record.prompt : undefined,
    seed: typeof record.seed === "string" ? record.seed : undefined,
    note: `${tourName(tour).replace("_", " ")} frame at ${at} s`,
  };
  let made: RefTake;
  try {
    made = await addTake(services, place, ref, {
      view: "tour",
      ext: "png",
      write: async (out) => {
        await cutFrame(services.media, video, index, out);
        Object.assign(fields, await pictureSize(out));
      },
      fields,
    });
  } catch (err) {
    if (err instanceof StudioError) throw err;
    throw conflict(
      `frame ${index} of ${tourName(tour)} could not be cut: ${errorMessage(err).split("\n")[0]}`,
    );
  }
  await updateTour(services, place, ref, tour, (r) => ({
    ...r,
    holds: [...(Array.isArray(r.holds) ? r.holds : []), made.take],
  }));
  services.events.emit("studio.ref", { ep, ref: ref.id, view: "tour", take: made.take, status: made.status });
  services.events.emit("studio.episode", { ep });
  const rel = (abs: string) => path.relative(ep, abs).split(path.sep).join("/");
  return { ...wireTake(made, rel), tour, hold: null, start: at, end: at, frame: index };
}
