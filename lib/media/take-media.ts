// The files made once when a take finishes: its thumbnail, its 8-cell strip and its sound as a wav.
// Each reads the clip and writes its file only where they really lie inside the fence the caller gives.
import path from "node:path";
import {
  type Fence,
  guardPath,
  mkdirShow,
  readShowFile,
  removeShow,
  renameShow,
  statShowOrNull,
  writeShowFile,
} from "../paths/guarded.ts";
import { tempPath } from "../store/temp-names.ts";
import { countFrames, probe, runFfmpeg } from "./ffmpeg.ts";
import type { MediaTools } from "./tools.ts";

export const THUMB_MAX_WIDTH = 512;
export const STRIP_CELL_MAX_WIDTH = 192;
export const STRIP_CELLS = 8;
const JPEG = { quality: 82, mozjpeg: true } as const;

const input = (file: string) => `file:${file}`;

async function nonEmpty(fence: Fence, file: string): Promise<boolean> {
  return ((await statShowOrNull(fence, file))?.size ?? 0) > 0;
}

/** The clip's checked real path and a temporary of `ext` beside `out` in its checked real folder. */
async function checked(fence: Fence, mp4: string, out: string, ext: string) {
  const src = await guardPath(fence, mp4);
  const dir = await mkdirShow(fence, path.dirname(out));
  return { src, scratch: tempPath(path.join(dir, path.basename(out)), ext) };
}

/** One decoded frame of `mp4` as PNG bytes: frame `index`, found by seeking to just before its time. */
async function grabFrame(
  fence: Fence,
  mp4: string,
  index: number,
  fps: number | null,
  media: MediaTools,
  scratch: string,
): Promise<Buffer> {
  // Half a frame early: a seek exactly on a frame's time can drop it on rounding; frames before it are skipped.
  const seek = fps && index > 0 ? ["-ss", ((index - 0.5) / fps).toFixed(6)] : [];
  try {
    await runFfmpeg(
      [...seek, "-i", input(mp4), "-map", "0:v:0", "-frames:v", "1", "-f", "image2", "-c:v", "png", scratch],
      {
        media,
      },
    );
  } catch (err) {
    if (seek.length === 0) throw err;
  }
  // A seek past the last frame writes nothing: fall back to the first frame.
  if (!(await nonEmpty(fence, scratch)) && seek.length) {
    await runFfmpeg(
      ["-i", input(mp4), "-map", "0:v:0", "-frames:v", "1", "-f", "image2", "-c:v", "png", scratch],
      { media },
    );
  }
  return readShowFile(fence, scratch);
}

/** The frame the thumbnail shows: a third into the clip. */
export const thumbFrame = (frames: number) => Math.floor(frames / 3);

/** The frame index of each cell: cell i shows the frame at (i + 0.5) / cells of the clip. */
export function stripFrames(frames: number, cells = STRIP_CELLS): number[] {
  return Array.from({ length: cells }, (_, i) =>
    Math.min(frames - 1, Math.floor(((i + 0.5) * frames) / cells)),
  );
}

/** Which frames a take's thumbnail and strip show and at what cell size, for a clip of `frames` at width × height. */
export interface StillsPlan {
  thumb: number;
  /** The strip's frame per cell (a clip with fewer frames than cells repeats frames). */
  picks: number[];
  /** The distinct frames of `picks`, in order: what one decode tiles side by side. */
  unique: number[];
  cellW: number;
  cellH: number;
}

export function stillsPlan(frames: number, width: number, height: number, cells = STRIP_CELLS): StillsPlan {
  if (!Number.isInteger(cells) || cells < 1) throw new RangeError("a strip needs at least one cell");
  // Even sides, so every cell has the same size whatever the scaler rounds.
  const cellW = Math.max(2, Math.floor(Math.min(STRIP_CELL_MAX_WIDTH, width) / 2) * 2);
  const cellH = Math.max(2, Math.round((cellW * height) / width / 2) * 2);
  const picks = stripFrames(frames, cells);
  return { thumb: thumbFrame(frames), picks, unique: [...new Set(picks)], cellW, cellH };
}

/**
 * Filter-graph chains taking `[<input>]` (the clip's frames, numbered from 0) to `[<thumb>]` (the thumbnail's frame)
 * and `[<strip>]` (the strip's distinct frames scaled and tiled in one row); each goes to its own PNG output.
 */
export function stillsFilters(plan: StillsPlan, input: string, thumb: string, strip: string): string {
  const select = plan.unique.map((i) => `eq(n,${i})`).join("+");
  return (
    `[${input}]split=2[${input}_t][${input}_s];` +
    `[${input}_t]select='eq(n,${plan.thumb})'[${thumb}];` +
    `[${input}_s]select='${select}',scale=${plan.cellW}:${plan.cellH},setsar=1,tile=${plan.unique.length}x1[${strip}]`
  );
}

/** ffmpeg output arguments writing the graph's `[label]` as one PNG file. */
export const pngOutput = (label: string, file: string) => [
  "-map",
  `[${label}]`,
  "-update",
  "1",
  "-f",
  "image2",
  "-c:v",
  "png",
  file,
];

/** `<stem>.jpg` from the thumbnail frame's PNG: at most 512 px wide. */
export async function thumbJpeg(png: Buffer): Promise<Buffer> {
  const { default: sharp } = await import("sharp");
  return sharp(png)
    .resize({ width: THUMB_MAX_WIDTH, withoutEnlargement: true })
    .flatten({ background: "#000000" })
    .jpeg(JPEG)
    .toBuffer();
}

/** `<stem>_strip.jpg` from the tile of the plan's distinct frames: its cells in `picks` order. */
export async function stripJpeg(tile: Buffer, plan: StillsPlan): Promise<Buffer> {
  const { default: sharp } = await import("sharp");
  const { cellW, cellH, unique } = plan;
  return stripFromCells(
    (frame) =>
      sharp(tile)
        .extract({ left: unique.indexOf(frame) * cellW, top: 0, width: cellW, height: cellH })
        .png()
        .toBuffer(),
    plan,
  );
}

/**
 * `<stem>_strip.jpg` from a picture of each of the plan's distinct frames (any size: each is scaled to its cell),
 * for an engine that knows its frames without decoding them.
 */
export async function stripFromFrames(
  frame: (index: number) => Promise<Buffer>,
  plan: StillsPlan,
): Promise<Buffer> {
  const { default: sharp } = await import("sharp");
  const cells = new Map<number, Promise<Buffer>>();
  for (const i of plan.unique)
    cells.set(
      i,
      frame(i).then((png) =>
        sharp(png).resize(plan.cellW, plan.cellH, { fit: "fill" }).png({ compressionLevel: 1 }).toBuffer(),
      ),
    );
  return stripFromCells((i) => cells.get(i) as Promise<Buffer>, plan);
}

async function stripFromCells(cell: (frame: number) => Promise<Buffer>, plan: StillsPlan): Promise<Buffer> {
  const { default: sharp } = await import("sharp");
  const { cellW, cellH, picks } = plan;
  const cells = await Promise.all(picks.map(cell));
  return sharp({ create: { width: cellW * picks.length, height: cellH, channels: 3, background: "#000000" } })
    .composite(cells.map((png, i) => ({ input: png, left: i * cellW, top: 0 })))
    .jpeg(JPEG)
    .toBuffer();
}

/** The clip's frame count and picture size, or an error naming what the still is for. */
async function framesOf(src: string, media: MediaTools, what: string) {
  const [info, frames] = await Promise.all([probe(src, media), countFrames(src, media)]);
  if (!info.video || frames < 1)
    throw new Error(`${path.basename(src)} has no video frames to make ${what} of`);
  return { frames, video: info.video };
}

/** `<stem>.jpg`: the frame a third into the clip, at most 512 px wide. */
export async function makeThumbnail(
  fence: Fence,
  mp4: string,
  jpgOut: string,
  media: MediaTools,
): Promise<void> {
  const { src, scratch } = await checked(fence, mp4, jpgOut, ".png");
  const { frames, video } = await framesOf(src, media, "a thumbnail");
  try {
    const png = await grabFrame(fence, src, thumbFrame(frames), video.fps, media, scratch);
    await writeShowFile(fence, jpgOut, await thumbJpeg(png));
  } finally {
    await removeShow(fence, scratch);
  }
}

/**
 * `<stem>_strip.jpg`: `cells` equal cells side by side (each at most 192 px wide), frames evenly spaced through
 * the clip. One decode pass picks the frames; a clip with fewer frames than cells repeats frames.
 */
export async function makeStrip(
  fence: Fence,
  mp4: string,
  jpgOut: string,
  media: MediaTools,
  cells = STRIP_CELLS,
): Promise<void> {
  if (!Number.isInteger(cells) || cells < 1) throw new RangeError("a strip needs at least one cell");
  const { src, scratch } = await checked(fence, mp4, jpgOut, ".png");
  const { frames, video } = await framesOf(src, media, "a strip");
  const plan = stillsPlan(frames, video.width, video.height, cells);
  const select = plan.unique.map((i) => `eq(n,${i})`).join("+");
  try {
    await runFfmpeg(
      [
        "-i",
        input(src),
        "-map",
        "0:v:0",
        "-vf",
        `select='${select}',scale=${plan.cellW}:${plan.cellH},setsar=1,tile=${plan.unique.length}x1`,
        "-frames:v",
        "1",
        "-f",
        "image2",
        "-c:v",
        "png",
        scratch,
      ],
      { media },
    );
    await writeShowFile(fence, jpgOut, await stripJpeg(await readShowFile(fence, scratch), plan));
  } finally {
    await removeShow(fence, scratch);
  }
}

/**
 * The thumbnail and the strip of a clip from one decode (one ffmpeg run with two picture outputs), for takes
 * whose engine did not make them while encoding.
 */
export async function makeStills(
  fence: Fence,
  mp4: string,
  thumbOut: string,
  stripOut: string,
  media: MediaTools,
): Promise<void> {
  const { src, scratch: thumbPng } = await checked(fence, mp4, thumbOut, ".png");
  const { scratch: tilePng } = await checked(fence, mp4, stripOut, ".png");
  const { frames, video } = await framesOf(src, media, "a thumbnail");
  const plan = stillsPlan(frames, video.width, video.height);
  try {
    await runFfmpeg(
      [
        "-i",
        input(src),
        "-filter_complex",
        `[0:v:0]null[f];${stillsFilters(plan, "f", "thumb", "strip")}`,
        ...pngOutput("thumb", thumbPng),
        ...pngOutput("strip", tilePng),
      ],
      { media },
    );
    const [thumb, tile] = await Promise.all([readShowFile(fence, thumbPng), readShowFile(fence, tilePng)]);
    const [thumbJpg, stripJpg] = await Promise.all([thumbJpeg(thumb), stripJpeg(tile, plan)]);
    await writeShowFile(fence, thumbOut, thumbJpg);
    await writeShowFile(fence, stripOut, stripJpg);
  } finally {
    await Promise.all([removeShow(fence, thumbPng), removeShow(fence, tilePng)]);
  }
}

/**
 * The clip's sound as a 48 kHz 16-bit wav of exactly the clip's length (AAC's trailing padding cut, a short
 * track padded), so peaks line up with the picture; a clip without sound gives silence of its length.
 */
export async function extractWav(
  fence: Fence,
  mp4: string,
  wavOut: string,
  media: MediaTools,
): Promise<void> {
  const { src, scratch: tmp } = await checked(fence, mp4, wavOut, ".wav");
  const info = await probe(src, media);
  // The picture's length (frames / fps), not the container's, which counts AAC padding on older muxers.
  const seconds = info.video?.fps ? (await countFrames(src, media)) / info.video.fps : info.duration;
  const length = seconds !== null && seconds > 0 ? ["-t", seconds.toFixed(6)] : [];
  const source = info.audio
    ? ["-i", input(src), "-map", "0:a:0", ...(length.length ? ["-af", "apad"] : [])]
    : ["-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo"];
  if (!info.audio && length.length === 0)
    throw new Error(`${path.basename(mp4)} has neither sound nor a length`);
  try {
    await runFfmpeg([...source, ...length, "-vn", "-ar", "48000", "-c:a", "pcm_s16le", "-f", "wav", tmp], {
      media,
    });
    await renameShow(fence, tmp, wavOut);
  } catch (err) {
    await removeShow(fence, tmp);
    throw err;
  }
}
