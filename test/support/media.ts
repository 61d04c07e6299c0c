// Real media for tests: clips made with ffmpeg's test sources (a moving pattern or a flat colour, a tone or none),
// takes and upscales written as the render and upscale jobs leave them (so freshness is judged for real), and what a
// test reads back of a file (streams, sound packets, the brightness of a box). Plus the temp folder or the studio
// with the host's ffmpeg that these tests run in.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll } from "vitest";
import type { JobKinds } from "../../lib/jobs/kinds.ts";
import type { StudioJobStore } from "../../lib/jobs/store.ts";
import { mediaTools } from "../../lib/media/ffmpeg.ts";
import { sourceStamp } from "../../lib/upscale/fresh.ts";
import { WorkerPool } from "../../workers/pool.ts";
import { hostMedia } from "./ctx.ts";
import { makeStudio, type Studio } from "./studio-episode.ts";

export interface ClipSpec {
  /** Frames (default 12) at `fps` (default 24). */
  frames?: number;
  fps?: number;
  /** Default 448x256. */
  width?: number;
  height?: number;
  /** Tone frequency (default 440); 0 for a mute clip. */
  tone?: number;
  /** Gain in dB on ffmpeg's sine (default -20, a quiet tone; 0 keeps the sine's own level). */
  level?: number;
  /** The picture's encoder (default libx264, ultrafast). */
  codec?: "libx264" | "libx265" | "mpeg4";
  /** A flat colour (`0x202020`) instead of the moving test pattern. */
  color?: string;
  /**
   * Flat grey frames, the first `ramp` bright and each next one 5 brighter, encoded lossless: a frame's mean says
   * which frame of which clip is showing.
   */
  ramp?: number;
}

/** Three shots of half a second (12 frames at 24 fps). */
export const SHORT = [
  "= e01  The Long Night",
  "# sq01 kitchen",
  "## sh010",
  "dur: 0.5",
  "Ada waits.",
  "## sh020",
  "dur: 0.5",
  "Bo waits.",
  "## sh030",
  "dur: 0.5",
  "Cy runs.",
].join("\n");

/** Write `file` (an mp4): the spec's picture for exactly its frames, with its tone for as long (AAC 48 kHz stereo). */
export async function makeClip(ffmpeg: string, file: string, c: ClipSpec = {}): Promise<string> {
  const { frames = 12, fps = 24, width = 448, height = 256, tone = 440, level = -20 } = c;
  const codec = c.codec ?? "libx264";
  const seconds = frames / fps;
  const source = c.color || c.ramp !== undefined ? `color=c=${c.color ?? "black"}:` : "testsrc2=";
  const ramp = c.ramp !== undefined ? `,geq=lum='${c.ramp}+N*5':cb=128:cr=128` : "";
  const picture = `${source}size=${width}x${height}:rate=${fps}:duration=${seconds}${ramp}`;
  await execa(ffmpeg, [
    ...["-v", "error", "-y", "-f", "lavfi", "-i", picture],
    ...(tone
      ? [
          ...["-f", "lavfi", "-i"],
          `sine=frequency=${tone}:sample_rate=48000:duration=${seconds},volume=${10 ** (level / 20)}`,
        ]
      : []),
    // The sources' durations make the length: a frame limit would stop the muxer before the last sound packets.
    ...["-c:v", codec],
    ...(codec === "mpeg4" ? [] : ["-preset", "ultrafast"]),
    ...(c.ramp !== undefined ? ["-qp", "0"] : []),
    ...["-pix_fmt", "yuv420p"],
    ...(tone ? ["-c:a", "aac", "-ar", "48000", "-ac", "2"] : []),
    ...["-f", "mp4", file],
  ]);
  return file;
}

/** Write `file` (a wav or any sound format by its name): a tone of `seconds`, stereo at 48 kHz unless `format` says. */
export async function makeTone(
  ffmpeg: string,
  file: string,
  seconds: number,
  frequency = 220,
  format: { rate?: number; channels?: number } = {},
): Promise<string> {
  const tone = `sine=frequency=${frequency}:sample_rate=${format.rate ?? 48000}:duration=${seconds}`;
  await execa(ffmpeg, [
    "-v",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    tone,
    "-ac",
    String(format.channels ?? 2),
    file,
  ]);
  return file;
}

export const takeDir = (ep: string, pass: "final" | "proxy", shot: string) =>
  path.join(ep, pass === "final" ? "renders" : "renders_proxy", shot);

/** A finished take whose mp4 is a real clip; with `wav`, also its sound as `<stem>_h3.wav` (mono 44.1 kHz). */
export async function realTake(
  s: Studio,
  ffmpeg: string,
  ep: string,
  pass: "final" | "proxy",
  shot: string,
  n: number,
  c: ClipSpec & { target?: string; backend?: string; wav?: boolean } = {},
): Promise<string> {
  const stem = await s.take(ep, pass, shot, n, {
    frames: c.frames ?? 12,
    fps: c.fps ?? 24,
    sidecar: {
      width: c.width ?? 448,
      height: c.height ?? 256,
      ...(c.target ? { target: c.target } : {}),
      ...(c.backend ? { backend: c.backend } : {}),
    },
  });
  const file = path.join(takeDir(ep, pass, shot), `${stem}.mp4`);
  await makeClip(ffmpeg, file, c);
  if (c.wav) {
    const wav = path.join(takeDir(ep, pass, shot), `${stem}_h3.wav`);
    await execa(ffmpeg, ["-v", "error", "-i", file, "-vn", "-ac", "1", "-ar", "44100", wav]);
  }
  return file;
}

/**
 * An upscale of take `n` as an upscale job leaves it: the mp4 at `width`×`height` (same frames and tone) and the
 * record, stamped with the take's mp4 as it is now. `record` adds or replaces fields (status, keep, recipe_hash).
 */
export async function realUpscale(
  ffmpeg: string,
  ep: string,
  pass: "final" | "proxy",
  shot: string,
  n: number,
  c: ClipSpec & { record?: Record<string, unknown> } = {},
): Promise<string> {
  const stem = `${shot}_t${String(n).padStart(2, "0")}`;
  const dir = takeDir(ep, pass, shot);
  const up = path.join(dir, `${stem}.up.mp4`);
  await makeClip(ffmpeg, up, { width: 896, height: 512, ...c });
  const stamp = await sourceStamp(ep, path.join(dir, `${stem}.mp4`));
  if (!stamp) throw new Error(`no take mp4 for ${stem}`);
  const record = {
    shot,
    take: n,
    status: "ok",
    queued: "2025-01-01T00:00:00Z",
    finished: "2025-01-01T00:01:00Z",
    method: "resample",
    mode: "resample",
    route: "pixel",
    upscaler: "ffmpeg lanczos",
    scale: 2,
    width: c.width ?? 896,
    height: c.height ?? 512,
    quality: "review",
    mp4: `${stem}.up.mp4`,
    audio: "copied",
    source_size: stamp.source_size,
    source_mtime_ns: `@${stamp.source_mtime_ns}@`,
    source_sha1: stamp.source_sha1,
    ...c.record,
  };
  // The stamp's nanoseconds are an integer literal, as the saver writes them.
  const text = JSON.stringify(record, null, 2).replace(/"@(\d+)@"/, "$1");
  await writeFile(path.join(dir, `${stem}.up.json`), text);
  return up;
}

/** Frames (decoded and counted), size, codec and pixel format of a file's first video stream, its sound, duration. */
export async function videoOf(ffmpeg: string, file: string) {
  const { stdout } = await execa(ffmpeg.replace(/ffmpeg$/, "ffprobe"), [
    "-v",
    "error",
    "-count_frames",
    "-show_entries",
    "stream=codec_type,codec_name,width,height,nb_read_frames,pix_fmt,profile:format=duration",
    "-of",
    "json",
    file,
  ]);
  const data = JSON.parse(stdout) as {
    streams: Record<string, string | number>[];
    format: { duration: string };
  };
  const v = data.streams.find((x) => x.codec_type === "video");
  const a = data.streams.find((x) => x.codec_type === "audio");
  return {
    codec: v?.codec_name,
    profile: v?.profile,
    pixFmt: v?.pix_fmt,
    width: Number(v?.width),
    height: Number(v?.height),
    frames: Number(v?.nb_read_frames),
    audio: a?.codec_name ?? null,
    duration: Number(data.format.duration),
  };
}

/** MD5 of the first sound stream's packets as they are (no decode): equal when the sound was copied bit for bit. */
export async function soundPackets(ffmpeg: string, file: string): Promise<string> {
  const { stdout } = await execa(ffmpeg, [
    ...["-v", "error", "-i", file, "-map", "0:a:0", "-c", "copy", "-f", "md5", "-"],
  ]);
  return stdout.trim();
}

/** The mean grey level (0 black, 255 white) of the box `w:h:x:y` of the frame at `second` (default the first). */
export async function boxMean(ffmpeg: string, file: string, box: string, second = 0): Promise<number> {
  const { stdout } = await execa(
    ffmpeg,
    [
      ...["-v", "error", ...(second ? ["-ss", String(second)] : []), "-i", file],
      ...["-frames:v", "1", "-vf", `crop=${box},format=gray`, "-f", "rawvideo", "-"],
    ],
    { encoding: "buffer" },
  );
  const bytes = stdout as unknown as Uint8Array;
  return bytes.reduce((a, b) => a + b, 0) / bytes.length;
}

/** Registers the hooks: a temp folder (`prefix` names it) and the host's ffmpeg, for tests of one media piece. */
export function useMediaDir(prefix: string): { dir: string; ffmpeg: string } {
  const m = { dir: "", ffmpeg: "" };
  beforeAll(async () => {
    m.dir = await mkdtemp(path.join(os.tmpdir(), `studio-${prefix}-`));
    m.ffmpeg = (await mediaTools(hostMedia)).ffmpeg;
  });
  afterAll(() => rm(m.dir, { recursive: true, force: true }));
  return m;
}

export interface MediaStudio {
  s: Studio;
  /** The host's ffmpeg (the studio runs the machine's, as the README's set-up does). */
  ffmpeg: string;
  /** The job store, and a started worker pool running the kinds asked for (none: no pool). */
  store: StudioJobStore;
  pool: WorkerPool | null;
}

/** Registers the hooks: a studio with the host's media tools, with `kinds` a job pool running them; all gone after. */
export function useMediaStudio(kinds?: JobKinds): MediaStudio {
  const m = { pool: null } as MediaStudio;
  beforeAll(async () => {
    m.s = await makeStudio();
    const services = m.s.env.services;
    services.env.PATH = process.env.PATH;
    m.ffmpeg = (await mediaTools(services.media)).ffmpeg;
    m.store = await services.jobs();
    if (kinds) {
      m.pool = new WorkerPool({
        services,
        store: m.store,
        kinds,
        pollMs: 50,
        emit: (kind, data) => services.events.emit(kind, data),
      });
      m.pool.start();
    }
  });
  afterAll(async () => {
    await m.pool?.stop({ graceful: true });
    await m.store?.close();
    await m.s?.cleanup();
  });
  return m;
}
