// The built-in video target `animatic`: a timed card per shot (the keyframe, else the plate or a plain card with the
// subjects' pictures as figures; a title line; captions in script order) at the exact frame count, fps and size of
// the pass, with the dialogue in the built-in voices or the track's window under it. One ffmpeg child encodes the
// mp4 and writes the wav, the thumbnail frame and the strip's frames in the same run.
import { mkdir, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { countFrames, probe, runFfmpeg } from "../../media/ffmpeg.ts";
import { stillsPlan, stripFromFrames, thumbJpeg } from "../../media/take-media.ts";
import { mkdirShow, readShowFile, showFence, writeShowFile } from "../../paths/guarded.ts";
import { errorMessage } from "../../store/json-guards.ts";
import { tempPath } from "../../store/temp-names.ts";
import type { EngineJob, EngineOutputs } from "../types.ts";
import { cardSvg, PLAIN_CARD, promptText } from "./card.ts";
import { drawFigures, type Overlay } from "./figures.ts";
import { dialogueWav } from "./speech.ts";
import { captionBox, NO_FONT_NOTE, type TextBox } from "./text.ts";
import { commit, discard, fpsArg, secs, tempBeside, throwIfCanceled, type WorkContext } from "./work.ts";

/** What the take's sidecar records as its model. */
export const ANIMATIC_MODEL = "animatic";

export const AUDIO_RATE = 48_000;

/** Input roles that can be the picture, best first. */
export const PICTURE_ROLES = ["first", "plate"] as const;

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

async function isFile(file: string | undefined): Promise<boolean> {
  if (!file) return false;
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** Check the job can give an exact H.264 yuv420p clip; throws a message for a person. */
export function checkAnimaticJob(job: EngineJob): void {
  const { frames, fps, width, height } = job;
  if (!Number.isInteger(frames) || frames < 1) {
    throw new Error(`animatic: the frame count must be a whole number of at least 1 (got ${frames})`);
  }
  if (!(fps > 0 && Number.isFinite(fps))) throw new Error(`animatic: fps must be positive (got ${fps})`);
  if (!(Number.isInteger(width) && Number.isInteger(height) && width >= 2 && height >= 2)) {
    throw new Error(`animatic: the size must be whole pixels (got ${width}x${height})`);
  }
  if (width % 2 || height % 2) {
    throw new Error(`animatic: H.264 yuv420p needs an even width and height (got ${width}x${height})`);
  }
}

interface Placed {
  box: TextBox;
  x: number;
  y: number;
  start: number;
  end: number;
}

/**
 * Caption boxes centred near the bottom; captions that overlap in time go to the next lane up so they never
 * cover each other.
 */
async function layoutCaptions(job: EngineJob, duration: number, margin: number): Promise<Placed[]> {
  // No captions given: the prompt (the shot's prose) stands for the whole shot.
  const list = job.captions ?? [{ text: promptText(job.prompt), start: 0, end: duration }];
  // About 14 px on a 256-line proxy: readable there, and no taller than a film subtitle on a full-size card.
  const fontSize = clamp(Math.round(job.height / 18), 9, 60);
  const timed = list
    .map((c, i) => ({
      text: c.text.trim(),
      start: Math.max(0, c.start),
      end: Math.min(duration, c.end),
      italic: c.kind === "action",
      i,
    }))
    .filter((c) => c.text && c.end > c.start)
    .sort((a, b) => a.start - b.start || a.i - b.i);
  const lanes: { end: number; height: number }[] = [];
  const items: { box: TextBox; lane: number; start: number; end: number }[] = [];
  for (const c of timed) {
    const box = await captionBox(c.text, {
      fontSize,
      maxWidth: job.width - 2 * margin,
      maxLines: 3,
      align: "middle",
      italic: c.italic,
    });
    if (!box) continue;
    let lane = lanes.findIndex((l) => l.end <= c.start + 1e-9);
    if (lane < 0) {
      lane = lanes.length;
      lanes.push({ end: 0, height: 0 });
    }
    lanes[lane].end = c.end;
    lanes[lane].height = Math.max(lanes[lane].height, box.height);
    items.push({ box, lane, start: c.start, end: c.end });
  }
  const gap = Math.max(2, Math.round(margin / 2));
  const bottoms: number[] = [];
  let bottom = job.height - margin;
  for (const l of lanes) {
    bottoms.push(bottom);
    bottom -= l.height + gap;
  }
  return items.map((it) => ({
    box: it.box,
    x: Math.max(0, Math.round((job.width - it.box.width) / 2)),
    y: Math.max(0, bottoms[it.lane] - it.box.height),
    start: it.start,
    end: it.end,
  }));
}

/** The picture the card is drawn on: the first keyframe, else the location plate, scaled to cover; null for neither. */
async function pictureOf(
  job: EngineJob,
  inputs: Record<string, string>,
  notes: string[],
): Promise<{ role: (typeof PICTURE_ROLES)[number]; png: Buffer } | null> {
  const { default: sharp } = await import("sharp");
  for (const role of PICTURE_ROLES) {
    const file = inputs[role];
    if (!(await isFile(file))) continue;
    try {
      // Read into memory: libvips caches decoded files by name and would miss a keyframe rewritten in place.
      const png = await sharp(await readShowFile(showFence(job.ep), file), { animated: false })
        .rotate()
        .resize(job.width, job.height, { fit: "cover", position: "centre" })
        .flatten({ background: "#000000" })
        .png({ compressionLevel: 1 })
        .toBuffer();
      notes.push(`picture: ${role === "first" ? "first keyframe" : "location plate"} ${path.basename(file)}`);
      return { role, png };
    } catch (err) {
      notes.push(`picture: ${path.basename(file)} could not be read (${errorMessage(err)}); skipped`);
    }
  }
  notes.push("picture: plain card (no keyframe or plate)");
  return null;
}

/** The still under the captions: the picture (or a plain card) with the overlays baked in. */
async function basePicture(
  job: EngineJob,
  picture: Buffer | null,
  overlays: readonly Overlay[],
): Promise<Buffer> {
  const { default: sharp } = await import("sharp");
  const under = picture ?? Buffer.from(cardSvg(job.width, job.height, PLAIN_CARD, null));
  return sharp(under)
    .composite([...overlays])
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/**
 * The audio part of the graph, split for mp4 and wav: the track's window (padded or cut to the shot) when the shot
 * has one, else its dialogue in the built-in voices (made into `scratch` first), else silence.
 */
async function audioSource(
  job: EngineJob,
  ctx: WorkContext,
  samples: number,
  inputIndex: number,
  scratch: string,
): Promise<{ args: string[]; graph: string }> {
  const tail = `atrim=end_sample=${samples},asetpts=N/SR/TB,asplit=2[am][aw]`;
  const a = job.audio;
  if (!a && job.spoken?.length) {
    const said = await dialogueWav({
      lines: job.spoken,
      seconds: samples / AUDIO_RATE,
      out: path.join(scratch, "dialogue.wav"),
      media: ctx.media,
      fence: ctx.fence,
      signal: ctx.signal,
    });
    ctx.notes.push(
      said.spoken > 0
        ? `audio: dialogue, ${said.spoken} line${said.spoken === 1 ? "" : "s"} in ${said.voice}`
        : "audio: silence",
      ...said.notes.map((n) => `voice: ${n}`),
    );
    if (said.spoken > 0)
      return {
        args: ["-i", `file:${said.path}`],
        graph: `[${inputIndex}:a]aformat=sample_fmts=fltp:sample_rates=${AUDIO_RATE}:channel_layouts=stereo,apad,${tail}`,
      };
    return { args: [], graph: `anullsrc=r=${AUDIO_RATE}:cl=stereo,${tail}` };
  }
  if (a) {
    const why = await trackProblem(a, ctx);
    if (why === null) {
      ctx.notes.push(`audio: ${path.basename(a.path)} ${secs(a.start)}–${secs(a.end)} s`);
      return {
        args: ["-ss", secs(a.start), "-t", secs(a.end - a.start), "-i", `file:${a.path}`],
        graph:
          `[${inputIndex}:a]aresample=${AUDIO_RATE},` +
          `aformat=sample_fmts=fltp:sample_rates=${AUDIO_RATE}:channel_layouts=stereo,apad,${tail}`,
      };
    }
    ctx.notes.push(`audio: ${why}; silence instead`);
  } else {
    ctx.notes.push("audio: silence");
  }
  return { args: [], graph: `anullsrc=r=${AUDIO_RATE}:cl=stereo,${tail}` };
}

async function trackProblem(a: NonNullable<EngineJob["audio"]>, ctx: WorkContext): Promise<string | null> {
  if (!(a.start >= 0 && a.end > a.start)) return `the window ${a.start}–${a.end} s is empty`;
  if (!(await isFile(a.path))) return `${path.basename(a.path)} is missing`;
  try {
    const info = await probe(a.path, ctx.media);
    if (!info.audio) return `${path.basename(a.path)} has no audio stream`;
  } catch {
    return `${path.basename(a.path)} could not be read`;
  }
  return null;
}

/** The card at `t` seconds as the encode draws it: the base with the captions whose window holds `t` (as `enable`). */
async function cardAt(base: Buffer, captions: readonly Placed[], t: number): Promise<Buffer> {
  const { default: sharp } = await import("sharp");
  // The same rounding as the filter's times, so a caption starting on a frame shows on it in both.
  const on = captions.filter((c) => Number(secs(c.start)) <= t && t < Number(secs(c.end)));
  if (on.length === 0) return base;
  return sharp(base)
    .composite(on.map((c) => ({ input: c.box.png, left: c.x, top: c.y })))
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/**
 * Render `<workDir>/<stem>.mp4` and `<stem>.wav` in one ffmpeg run, and the take's stills `<stem>.jpg` and
 * `<stem>_strip.jpg` from the same layers meanwhile; the frame count is checked from ffmpeg's own progress report.
 */
export async function renderAnimatic(
  job: EngineJob,
  inputs: Record<string, string>,
  ctx: WorkContext,
): Promise<EngineOutputs> {
  checkAnimaticJob(job);
  const { width, height, frames } = job;
  const fps = fpsArg(job.fps);
  const duration = frames / job.fps;
  const samples = Math.max(1, Math.round(duration * AUDIO_RATE));
  const margin = Math.max(4, Math.round(Math.min(width, height) * 0.04));

  await mkdirShow(ctx.fence, job.workDir);
  const scratch = tempPath(path.join(job.workDir, `${job.stem}.animatic`));
  const mp4 = path.join(job.workDir, `${job.stem}.mp4`);
  const wav = path.join(job.workDir, `${job.stem}.wav`);
  const thumb = path.join(job.workDir, `${job.stem}.jpg`);
  const strip = path.join(job.workDir, `${job.stem}_strip.jpg`);
  const tmp = {
    mp4: tempBeside(mp4),
    wav: tempBeside(wav),
    thumb: tempBeside(thumb),
    strip: tempBeside(strip),
  };
  await mkdir(scratch, { recursive: true });
  try {
    const text = await ctx.fontsUsable();
    if (!text) ctx.notes.push(NO_FONT_NOTE);
    const header = text
      ? await captionBox(job.title ?? job.subject, {
          fontSize: clamp(Math.round(height / 24), 9, 40),
          maxWidth: width - 2 * margin,
          maxLines: 1,
          weight: "bold",
        })
      : null;
    const captions = text ? await layoutCaptions(job, duration, margin) : [];
    const picture = await pictureOf(job, inputs, ctx.notes);
    // The keyframe already shows the shot; on a plate or a card the figures stand between the header and the
    // highest caption, so neither covers them.
    const gap = Math.max(2, Math.round(margin / 2));
    const figures =
      job.figures?.length && picture?.role !== "first"
        ? await drawFigures({
            figures: job.figures,
            inputs,
            fence: showFence(job.ep),
            card: { width, height },
            band: {
              top: margin + (header ? header.height + gap : 0),
              bottom: Math.min(height - margin, ...captions.map((c) => c.y - gap)),
            },
            margin,
            text,
            notes: ctx.notes,
          })
        : [];
    throwIfCanceled(ctx.signal);
    const overlays = header ? [...figures, { input: header.png, left: margin, top: margin }] : figures;
    const base = await basePicture(job, picture?.png ?? null, overlays);
    throwIfCanceled(ctx.signal);

    // Every still is a single-frame input that overlay repeats; the colour source sets the exact frame clock and
    // trim ends it at the exact count. Not `-frames:v`: reaching it closes the whole mp4 (ffmpeg <= 6), cutting
    // the AAC track up to ~50 ms short, and a 1-frame clip loses its audio stream entirely.
    const args: string[] = [];
    const still = (file: string) => args.push("-f", "image2", "-pattern_type", "none", "-i", file);
    const baseFile = path.join(scratch, "base.png");
    await writeFile(baseFile, base);
    still(baseFile);
    let graph = `color=c=black:s=${width}x${height}:r=${fps}[bg];[bg][0:v]overlay=0:0:format=rgb[v0]`;
    for (const [i, c] of captions.entries()) {
      const file = path.join(scratch, `caption${String(i).padStart(3, "0")}.png`);
      await writeFile(file, c.box.png);
      still(file);
      graph +=
        `;[v${i}][${i + 1}:v]overlay=x=${c.x}:y=${c.y}:format=rgb:` +
        `enable='gte(t,${secs(c.start)})*lt(t,${secs(c.end)})'[v${i + 1}]`;
    }
    graph +=
      `;[v${captions.length}]trim=end_frame=${frames},setsar=1,` +
      "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p[vout]";
    if (captions.length) ctx.notes.push(`captions: ${captions.length}`);

    const audio = await audioSource(job, ctx, samples, captions.length + 1, scratch);
    args.push(...audio.args);
    graph += `;${audio.graph}`;
    throwIfCanceled(ctx.signal);

    args.push(
      "-filter_complex",
      graph,
      "-map",
      "[vout]",
      "-map",
      "[am]",
      "-c:v",
      "libx264",
      "-preset",
      "veryfast",
      "-tune",
      "stillimage",
      "-crf",
      "20",
      "-pix_fmt",
      "yuv420p",
      "-colorspace",
      "bt709",
      "-color_primaries",
      "bt709",
      "-color_trc",
      "bt709",
      "-r",
      fps,
      "-c:a",
      "aac",
      "-b:a",
      "160k",
      "-ar",
      String(AUDIO_RATE),
      "-ac",
      "2",
      "-movflags",
      "+faststart",
      "-f",
      "mp4",
      tmp.mp4,
      "-map",
      "[aw]",
      "-c:a",
      "pcm_s16le",
      "-ar",
      String(AUDIO_RATE),
      "-f",
      "wav",
      tmp.wav,
    );
    // The take's stills are the card as it stands at their frames, drawn while ffmpeg encodes: no decode needed.
    const plan = stillsPlan(frames, width, height);
    const frameAt = (n: number) => cardAt(base, captions, n / job.fps);
    const [report, thumbJpg, stripJpg] = await Promise.all([
      runFfmpeg(args, {
        media: ctx.media,
        signal: ctx.signal,
        onProgress: (seconds) => ctx.report(seconds / duration),
      }),
      frameAt(plan.thumb).then(thumbJpeg),
      stripFromFrames(frameAt, plan),
    ]);
    // ffmpeg's last progress report counts the mp4's frames (its first video output); without one, ffprobe counts.
    const counted = report.frames ?? (await countFrames(tmp.mp4, ctx.media));
    if (counted !== frames)
      throw new Error(`animatic: ffmpeg delivered ${counted} frames instead of ${frames}`);
    await writeShowFile(ctx.fence, tmp.thumb, thumbJpg);
    await writeShowFile(ctx.fence, tmp.strip, stripJpg);
    await commit(ctx.fence, [
      [tmp.mp4, mp4],
      [tmp.wav, wav],
      [tmp.thumb, thumb],
      [tmp.strip, strip],
    ]);
    return {
      video: mp4,
      audio: wav,
      thumb,
      strip,
      frames: counted,
      picture: { width, height, fps: job.fps },
      notes: [...ctx.notes],
    };
  } catch (err) {
    await discard(ctx.fence, Object.values(tmp));
    throw err;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
