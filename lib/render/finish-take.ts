// Closing a rendered take: its files made from the engine's outputs (video, `_h3.wav`, thumbnail, strip, frames
// when asked for) in the job's work folder, renamed into the shot folder, and the sidecar closed `ok`.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import type { Engine, EngineJob, EngineOutputs, Prepared } from "../engines/types.ts";
import { countFrames, probe, runFfmpeg } from "../media/ffmpeg.ts";
import { probeClipCached } from "../media/probe-cache.ts";
import { extractWav, makeStills } from "../media/take-media.ts";
import type { MediaTools } from "../media/tools.ts";
import { episodeFence, fileInside, mkdirShow, readShowDir, renameShow } from "../paths/guarded.ts";
import { isObject, num } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import type { RenderPayload } from "./payload.ts";
import { readSidecarNow, type Sidecar, type TakeRef, takeDir, updateSidecarLocked } from "./sidecar.ts";
import { localIso } from "./time.ts";

/** `frames/<stem>_000000.png` …: every frame of the take kept as a picture (save_frames). */
async function saveFrames(mp4: string, dir: string, stem: string, media: MediaTools) {
  await mkdir(dir, { recursive: true });
  await runFfmpeg(
    ["-i", mp4, "-map", "0:v:0", "-start_number", "0", "-f", "image2", path.join(dir, `${stem}_%06d.png`)],
    { media },
  );
}

/** An engine that can say which model a job ran on (recorded as the take's `model`). */
type NamingEngine = Engine & { model?: (job: EngineJob) => string | null };

export interface FinishTake {
  services: Pick<Services, "env" | "now" | "caches" | "locks" | "media" | "home">;
  t: TakeRef;
  payload: RenderPayload;
  engine: NamingEngine;
  engineJob: EngineJob;
  outputs: EngineOutputs;
  prepared: Prepared;
  /** SHA-1 of the recorded references the engine read, by recorded path. */
  used: ReadonlyMap<string, string | null>;
  continuity: Sidecar["continuity"];
  workDir: string;
  /** When the job started (epoch ms), for the sidecar's `save_ms.total`. */
  started: number;
}

/**
 * Make the take's files from the engine's outputs (in the work folder, then renamed into the shot folder) and
 * close the sidecar `ok`. Answers the written sidecar, or null when the take was closed meanwhile.
 */
export async function finishTake(f: FinishTake): Promise<Sidecar | null> {
  const { t, outputs, prepared, used, continuity, workDir } = f;
  const { services } = f;
  const media = services.media;
  const fence = episodeFence(t.ep);
  if (!outputs.video || !(await fileInside(fence, outputs.video))) {
    throw new Error("the engine delivered no video in the episode's work folder");
  }
  const stem = f.payload.stem;
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
  else await timed("audio", () => extractWav(fence, video, wav, media));
  const thumb = path.join(workDir, `${stem}.jpg`);
  const strip = path.join(workDir, `${stem}_strip.jpg`);
  // An engine that wrote the stills while encoding hands them over; otherwise one decode makes both.
  const given = async (file: string | undefined, to: string): Promise<boolean> => {
    if (file === undefined || !(await fileInside(fence, file))) return false;
    await renameShow(fence, file, to);
    return true;
  };
  const [hasThumb, hasStrip] = [await given(outputs.thumb, thumb), await given(outputs.strip, strip)];
  if (!(hasThumb && hasStrip)) await timed("stills", () => makeStills(fence, video, thumb, strip, media));
  // What the engine wrote exactly is taken at its word; other videos are probed (once per file version).
  const [frames, info] =
    outputs.frames !== undefined && outputs.picture
      ? [outputs.frames, { video: outputs.picture }]
      : await Promise.all([countFrames(video, media), probe(video, media)]);
  const framesDir = path.join(workDir, "frames");
  if (f.payload.save_frames) await timed("frames", () => saveFrames(video, framesDir, stem, media));
  const notes = [...prepared.notes, ...outputs.notes].filter((n) => n.trim() !== "");
  const model = f.engine.model?.(f.engineJob) ?? null;

  const closed = await withLock(services, t.ep, async (): Promise<Sidecar | null> => {
    const current = await readSidecarNow(t);
    if (current?.status !== "queued") return null;
    const at = Date.now();
    await renameShow(fence, video, path.join(dir, `${stem}.mp4`));
    await renameShow(fence, wav, path.join(dir, `${stem}_h3.wav`));
    await renameShow(fence, thumb, path.join(dir, `${stem}.jpg`));
    await renameShow(fence, strip, path.join(dir, `${stem}_strip.jpg`));
    if (f.payload.save_frames) {
      const framesOut = await mkdirShow(fence, path.join(dir, "frames"));
      for (const name of await readShowDir(fence, framesDir))
        await renameShow(fence, path.join(framesDir, name), path.join(framesOut, name));
    }
    // Probed here once, in place, and remembered: assembling the cut later reads the answer instead of starting
    // ffprobe per clip. Done before the take reads ok, so its job ends right after; a probe that fails costs
    // nothing now (the assembler asks again and reports why).
    await probeClipCached(services, path.join(dir, `${stem}.mp4`)).catch(() => {});
    ms.mp4 = Date.now() - at;
    ms.total = Date.now() - f.started;
    return updateSidecarLocked(services, t, (s) => {
      const out: Sidecar = {
        ...s,
        status: "ok",
        finished: localIso(f.services.now()),
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
      if (outputs.sidecar) Object.assign(out, outputs.sidecar);
      return out;
    });
  });
  return closed;
}
