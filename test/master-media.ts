// Real media for the master and upscaled-assemble tests: takes made with ffmpeg (a test pattern and a tone), and
// upscales of them written as an upscale job leaves them (`<stem>.up.mp4` at the new size, `<stem>.up.json`
// stamped with the take's mp4), so freshness is judged for real.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { sourceStamp } from "../lib/upscale/fresh.ts";
import type { Studio } from "./support/studio-episode.ts";

export interface ClipSpec {
  frames?: number;
  fps?: number;
  width?: number;
  height?: number;
  /** Tone frequency; 0 for a mute clip. */
  tone?: number;
  /** Tone level in dBFS (default -20). */
  level?: number;
  codec?: "libx264" | "libx265";
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

export async function makeClip(ffmpeg: string, file: string, c: ClipSpec = {}): Promise<void> {
  const { frames = 12, fps = 24, width = 448, height = 256, tone = 440, level = -20 } = c;
  const seconds = frames / fps;
  const gain = 10 ** (level / 20);
  await execa(ffmpeg, [
    "-v",
    "error",
    "-y",
    "-f",
    "lavfi",
    "-i",
    `testsrc2=size=${width}x${height}:rate=${fps}:duration=${seconds}`,
    ...(tone
      ? ["-f", "lavfi", "-i", `sine=frequency=${tone}:sample_rate=48000:duration=${seconds},volume=${gain}`]
      : []),
    "-frames:v",
    String(frames),
    "-c:v",
    c.codec ?? "libx264",
    "-preset",
    "ultrafast",
    "-pix_fmt",
    "yuv420p",
    ...(tone ? ["-c:a", "aac", "-ar", "48000", "-ac", "2"] : []),
    "-f",
    "mp4",
    file,
  ]);
}

export const takeDir = (ep: string, pass: "final" | "proxy", shot: string) =>
  path.join(ep, pass === "final" ? "renders" : "renders_proxy", shot);

/** A finished take whose mp4 is a real clip; answers its mp4's path. */
export async function realTake(
  s: Studio,
  ffmpeg: string,
  ep: string,
  pass: "final" | "proxy",
  shot: string,
  n: number,
  c: ClipSpec & { target?: string; backend?: string } = {},
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

/** Frames, size and codec of a file's first video stream, and its duration. */
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
