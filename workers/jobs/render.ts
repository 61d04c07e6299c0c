// The render job: one reserved take rendered on its backend's engine (prepare → submit → collect), then closed
// from the files it delivered (`<stem>.mp4`, `_h3.wav`, `.jpg`, `_strip.jpg`, frame count) or failed with the
// reason; a cancel closes it "canceled". The take's settings are read from its sidecar and frozen shot list.
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Entry } from "../../lib/build/types.ts";
import type {
  Engine,
  EngineJob,
  EngineOutputs,
  Prepared,
  RunHooks,
  Submitted,
} from "../../lib/engines/types.ts";
import { actionLine } from "../../lib/episode/shot-context.ts";
import { hashFile, refResolver } from "../../lib/episode/staleness.ts";
import { loadViewInputs, type ViewInputs } from "../../lib/episode/view-inputs.ts";
import type { Job } from "../../lib/jobs/types.ts";
import { countFrames, probe, runFfmpeg } from "../../lib/media/ffmpeg.ts";
import { extractWav, makeStrip, makeThumbnail } from "../../lib/media/take-media.ts";
import {
  episodeFence,
  fileInside,
  guardPath,
  mkdirShow,
  readShowDir,
  readShowText,
  renameShow,
  showFence,
} from "../../lib/paths/guarded.ts";
import { takeGraph } from "../../lib/render/comfy-graph.ts";
import { recutAtStart } from "../../lib/render/continuity.ts";
import { frozenPath, type RenderPayload } from "../../lib/render/queue.ts";
// A worker-only host registers the render retry too (the jobs routes may run in any process that has handlers).
import "../../lib/render/retry.ts";
import { seedValue } from "../../lib/render/seed.ts";
import {
  closeTake,
  noteText,
  readSidecarNow,
  type Sidecar,
  type TakeRef,
  takeDir,
  takeEvent,
  updateSidecar,
  updateSidecarLocked,
} from "../../lib/render/sidecar.ts";
import { localIso } from "../../lib/render/time.ts";
import { parseJson } from "../../lib/store/json-file.ts";
import { withLock } from "../../lib/store/lock.ts";
import { jobWorkPath } from "../../lib/store/temp-names.ts";
import { shippedTargets } from "../../lib/targets/registry.ts";
import type { JobContext, JobHandler } from "../types.ts";

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);

/** The frozen shot list's one entry (what the take renders). */
async function frozenEntry(t: TakeRef): Promise<Entry> {
  const doc = parseJson(await readShowText(episodeFence(t.ep), frozenPath(t)));
  const shots = isObject(doc) && Array.isArray(doc.shots) ? doc.shots : [];
  if (!isObject(shots[0])) throw new Error(`${path.basename(frozenPath(t))} holds no shot entry`);
  return shots[0] as Entry;
}

/** Captions of the animatic: the action's first sentence, then each dialogue line, spread evenly over the shot. */
export function captionsFor(
  vi: ViewInputs | null,
  shot: string,
  seconds: number,
): { text: string; start: number; end: number }[] {
  let action: string | null = null;
  const lines: string[] = [];
  const subjects = isObject(vi?.seriesRaw?.subjects) ? vi.seriesRaw.subjects : {};
  for (const seq of vi?.story?.sequences ?? []) {
    const s = seq.shots.find((x) => x.id === shot);
    if (!s) continue;
    action = actionLine(s.action);
    for (const d of s.dialogue) {
      const who = subjects[d.speaker];
      const name = (isObject(who) && str(who.name)) || d.speaker;
      lines.push(`${name.toUpperCase()}: ${d.line}`);
    }
  }
  // The shot id is the card's header (the engine draws the job's subject), so it is not repeated here.
  const texts = [...(action ? [action] : []), ...lines];
  const slice = seconds / Math.max(1, texts.length);
  return texts.map((text, i) => ({
    text,
    start: i * slice,
    end: i === texts.length - 1 ? seconds : (i + 1) * slice,
  }));
}

/** The plate of the shot's location (`locations.<key>.plate`, from the series config's folder), when it exists. */
async function plateOf(vi: ViewInputs | null, shot: string): Promise<string | null> {
  if (!vi) return null;
  let key: string | null = null;
  for (const seq of vi.story?.sequences ?? []) {
    const s = seq.shots.find((x) => x.id === shot);
    if (s) key = s.plate || seq.location;
  }
  const locations = vi.seriesRaw?.locations;
  const loc = key && isObject(locations) ? locations[key] : undefined;
  const plate = isObject(loc) ? str(loc.plate) : null;
  if (!plate) return null;
  const abs = refResolver(vi.ep, vi.home)(plate);
  return fileInside(showFence(vi.ep), abs);
}

/** The window of the series track (`audio.track`) under a shot with `audio_in`/`audio_out`. */
async function audioOf(vi: ViewInputs | null, entry: Entry): Promise<EngineJob["audio"]> {
  const start = num(entry.audio_in);
  const end = num(entry.audio_out);
  const audio = vi?.seriesRaw?.audio;
  const track = isObject(audio) ? str(audio.track) : null;
  if (!vi || start === null || end === null || !track) return null;
  // A track linked out of the show folder is never read: the shot gets silence instead.
  const real = await guardPath(showFence(vi.ep), refResolver(vi.ep, vi.home)(track)).catch(() => null);
  return real ? { path: real, start, end } : null;
}

/** `frames/<stem>_000000.png` …: every frame of the take kept as a picture (save_frames). */
async function saveFrames(mp4: string, dir: string, stem: string, env: Record<string, string | undefined>) {
  await mkdir(dir, { recursive: true });
  await runFfmpeg(
    ["-i", mp4, "-map", "0:v:0", "-start_number", "0", "-f", "image2", path.join(dir, `${stem}_%06d.png`)],
    {
      env,
    },
  );
}

/**
 * SHA-1 of every recorded reference the engine read, by recorded path: a keyframe cut at job start did not
 * exist at queue time, and the take must not read as made without it.
 */
async function usedRefs(t: TakeRef, home: string, prepared: Prepared): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  const sc = await readSidecarNow(t);
  const refs = Array.isArray(sc?.refs) ? sc.refs : [];
  const resolve = refResolver(t.ep, home);
  const read = new Set(Object.values(prepared.inputs).map((p) => path.resolve(p)));
  for (const r of refs) {
    if (!isObject(r) || typeof r.path !== "string") continue;
    const abs = resolve(r.path);
    if (read.has(abs)) out.set(r.path, await hashFile(showFence(t.ep), abs));
  }
  return out;
}

/** Whether the abort was a cancel of this job (not a worker stopping or losing the lease: the job runs again). */
async function canceledByUser(job: Job, ctx: JobContext): Promise<boolean> {
  const now = await ctx.store.get(job.id).catch(() => null);
  return now === null || now.cancel_requested || now.status === "canceled";
}

export const renderJob: JobHandler = async (job, ctx) => {
  const p = job.payload as RenderPayload;
  const t: TakeRef = { ep: p.ep, pass: p.pass, shot: p.shot, take: p.take };
  const env = ctx.services.env;
  const sidecar = await readSidecarNow(t);
  if (!sidecar) throw new Error(`${p.stem}: the take's sidecar is gone (discarded?)`);
  // Closed already (a cancel that timed out, a sweep): nothing left to render.
  if (sidecar.status !== "queued") return;
  if (sidecar.job !== job.id)
    await updateSidecar(t, (s) => (s.status === "queued" ? { ...s, job: job.id } : null));

  const dir = takeDir(t);
  const workDir = jobWorkPath(dir, p.stem, job.id);
  const started = Date.now();
  let engine: Engine | null = null;
  let engineJob: EngineJob | null = null;
  let submitted: Submitted | null = null;
  try {
    ctx.progress({ log: `${p.stem} (${p.pass}) on ${p.target}, backend ${p.backend}` });
    engine = ctx.engine(p.backend);
    const entry = await frozenEntry(t);
    const vi = await loadViewInputs(ctx.services, p.ep, p.pass).catch(() => null);
    let continuity: Sidecar["continuity"] = null;
    if (p.chain === "first" && p.first_frame && vi) {
      // Rule 7: the first frame is cut again from the take the cut plays now before this shot.
      continuity = await recutAtStart(p.ep, p.pass, vi.build, p.shot, p.first_frame, env, ctx.signal);
    }
    const inputs: Record<string, string> = {};
    const first = p.first_frame ? await fileInside(showFence(p.ep), p.first_frame) : null;
    if (first) inputs.first = first;
    const plate = await plateOf(vi, p.shot);
    if (plate) inputs.plate = plate;
    const fps = num(sidecar.fps) ?? 24;
    const frames = num(sidecar.length) ?? num(entry.length) ?? 1;
    engineJob = {
      kind: "video",
      target: p.target,
      ep: p.ep,
      pass: p.pass,
      subject: p.shot,
      take: p.take,
      stem: p.stem,
      width: num(sidecar.width) ?? num(entry.width) ?? 448,
      height: num(sidecar.height) ?? num(entry.height) ?? 256,
      fps,
      frames,
      seed: seedValue(sidecar.seed) ?? seedValue(entry.seed) ?? 0n,
      prompt: Array.isArray(entry.prompt) ? entry.prompt.map(String) : String(entry.prompt ?? ""),
      negative: typeof entry.negative === "string" ? entry.negative : null,
      entry,
      inputs,
      audio: await audioOf(vi, entry),
      captions: captionsFor(vi, p.shot, frames / fps),
      workDir,
    };
    // ComfyUI targets: the target's workflow patched with the take's values; the engine uploads and runs it.
    const patchNotes: string[] = [];
    const spec = vi?.env.targets.get(p.target) ?? (await shippedTargets()).get(p.target);
    if (spec && spec.backend !== "builtin" && p.backend !== "builtin") {
      const patched = await takeGraph(spec, sidecar, engineJob, env, p.workflow?.graph);
      engineJob.graph = patched.graph;
      patchNotes.push(...patched.notes);
    }
    // The take folder must still lie inside the episode: a renders folder linked out of it is refused.
    await mkdirShow(episodeFence(t.ep), workDir);
    const hooks: RunHooks = {
      signal: ctx.signal,
      onProgress: (e) =>
        ctx.progress({
          progress: e.progress,
          ...(e.step !== undefined ? { step: e.step } : {}),
          ...(e.steps !== undefined ? { steps: e.steps } : {}),
          ...(e.log !== undefined ? { log: e.log } : {}),
        }),
    };
    const ready: Prepared = await engine.prepare(engineJob, hooks);
    const prepared: Prepared = { ...ready, notes: [...patchNotes, ...ready.notes] };
    await updateSidecar(t, (s) => (s.status === "queued" ? { ...s, inputs: prepared.inputs } : null));
    submitted = await engine.submit(engineJob, prepared, hooks);
    const backendId = submitted.backendPromptId;
    ctx.progress({ backend_prompt_id: backendId });
    await updateSidecar(t, (s) => (s.status === "queued" ? { ...s, backend_prompt_id: backendId } : null));
    const outputs = await engine.collect(engineJob, submitted, hooks);
    const used = await usedRefs(t, vi?.home ?? p.ep, prepared);
    const run = { outputs, prepared, used, continuity };
    const closed = await finishTake(t, p, run, engine, engineJob, workDir, ctx, started);
    if (closed) {
      ctx.progress({ log: `${p.stem}: ok, ${String(closed.frames)} frames` });
      ctx.emit("studio.take", takeEvent(t, "ok", closed));
    }
  } catch (err) {
    const canceled = ctx.signal.aborted;
    if (canceled) {
      if (!(await canceledByUser(job, ctx))) throw err;
      if (engine && engineJob) await engine.cancel(engineJob, submitted).catch(() => {});
    }
    const reason = canceled ? "canceled" : noteText(err instanceof Error ? err.message : String(err));
    // A cancel is the person's own doing; anything else (a graph that did not patch, a refused prompt) is the error.
    const closed = await closeTake(t, {
      status: "failed",
      finished: localIso(ctx.services.now()),
      save_notes: reason,
      ...(canceled ? {} : { error: reason }),
    });
    if (closed) ctx.emit("studio.take", takeEvent(t, "failed", closed));
    throw err;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
};

/**
 * Make the take's files from the engine's outputs (in the work folder, then renamed into the shot folder) and
 * close the sidecar `ok`. Answers the written sidecar, or null when the take was closed meanwhile.
 */
async function finishTake(
  t: TakeRef,
  p: RenderPayload,
  run: {
    outputs: EngineOutputs;
    prepared: Prepared;
    /** SHA-1 of the recorded references the engine read, by recorded path. */
    used: ReadonlyMap<string, string | null>;
    continuity: Sidecar["continuity"];
  },
  engine: Engine,
  engineJob: EngineJob,
  workDir: string,
  ctx: JobContext,
  started: number,
): Promise<Sidecar | null> {
  const env = ctx.services.env;
  const { outputs, prepared, used, continuity } = run;
  const fence = episodeFence(t.ep);
  if (!outputs.video || !(await fileInside(fence, outputs.video))) {
    throw new Error("the engine delivered no video in the episode's work folder");
  }
  const stem = p.stem;
  const dir = takeDir(t);
  const ms: Record<string, number> = {};
  const timed = async (key: string, work: () => Promise<void>) => {
    const at = Date.now();
    await work();
    ms[key] = Date.now() - at;
  };
  const video = path.join(workDir, `${stem}.mp4`);
  if (outputs.video !== video) await renameShow(fence, outputs.video, video);
  const wav = path.join(workDir, `${stem}_h3.wav`);
  if (outputs.audio && (await fileInside(fence, outputs.audio))) await renameShow(fence, outputs.audio, wav);
  else await timed("audio", () => extractWav(fence, video, wav, env));
  const thumb = path.join(workDir, `${stem}.jpg`);
  const strip = path.join(workDir, `${stem}_strip.jpg`);
  await timed("thumb", () => makeThumbnail(fence, video, thumb, env));
  await timed("strip", () => makeStrip(fence, video, strip, env));
  const [frames, info] = await Promise.all([countFrames(video, env), probe(video, env)]);
  const framesDir = path.join(workDir, "frames");
  if (p.save_frames) await timed("frames", () => saveFrames(video, framesDir, stem, env));
  const notes = [...prepared.notes, ...outputs.notes].filter((n) => n.trim() !== "");
  const model = (engine as Engine & { model?: (j: EngineJob) => string | null }).model?.(engineJob) ?? null;

  return withLock(t.ep, async () => {
    const current = await readSidecarNow(t);
    if (current?.status !== "queued") return null;
    const at = Date.now();
    await renameShow(fence, video, path.join(dir, `${stem}.mp4`));
    await renameShow(fence, wav, path.join(dir, `${stem}_h3.wav`));
    await renameShow(fence, thumb, path.join(dir, `${stem}.jpg`));
    await renameShow(fence, strip, path.join(dir, `${stem}_strip.jpg`));
    if (p.save_frames) {
      const framesOut = await mkdirShow(fence, path.join(dir, "frames"));
      for (const name of await readShowDir(fence, framesDir))
        await renameShow(fence, path.join(framesDir, name), path.join(framesOut, name));
    }
    ms.mp4 = Date.now() - at;
    ms.total = Date.now() - started;
    return updateSidecarLocked(t, (s) => {
      const out: Sidecar = {
        ...s,
        status: "ok",
        finished: localIso(ctx.services.now()),
        frames,
        fps: num(s.fps) ?? info.video?.fps ?? null,
        width: info.video?.width ?? s.width,
        height: info.video?.height ?? s.height,
        mp4: `${stem}.mp4`,
        thumb: `${stem}.jpg`,
        strip: `${stem}_strip.jpg`,
        save_notes: notes.join("; "),
        save_ms: ms,
      };
      if (model) out.model = model;
      if (Array.isArray(s.refs))
        out.refs = s.refs.map((r) =>
          isObject(r) && typeof r.path === "string" && used.has(r.path)
            ? { ...r, sha1: used.get(r.path) }
            : r,
        );
      if (continuity) out.continuity = continuity;
      return out;
    });
  });
}
