// What the assembler needs to know about a clip (frame count, rate, size, formats, timescale), read with one
// ffprobe call. Asked of ffprobe each time: probe-cache.ts remembers the answers per file version.
import { open } from "node:fs/promises";
import { ToolRunError } from "./tool-runner.ts";
import type { MediaTools } from "./tools.ts";

export interface ClipVideo {
  codec: string;
  width: number;
  height: number;
  /** Frames per second (average rate, else the stream's base rate); null when the file does not say. */
  fps: number | null;
  /** Frame count from the container's index; null when it has none (then estimated from the duration). */
  frames: number | null;
  pixFmt: string | null;
  /** The stream's timescale (the denominator of its time base), e.g. 12288 for 24 fps out of ffmpeg. */
  timescale: number | null;
  /** Sample aspect ratio as `n:d`; null when unset. */
  sar: string | null;
  /** Seconds; null when unknown. */
  duration: number | null;
}

export interface ClipAudio {
  codec: string;
  sampleRate: number | null;
  channels: number | null;
}

export interface ClipInfo {
  duration: number | null;
  video: ClipVideo | null;
  audio: ClipAudio | null;
}

/** The clip's streams as ffprobe reads them now; rejects with ffprobe's message when the file is not media. */
export async function probeClip(services: { readonly media: MediaTools }, file: string): Promise<ClipInfo> {
  const result = await services.media
    .run("ffprobe", [
      "-v",
      "error",
      "-show_entries",
      "format=duration:stream=codec_type,codec_name,width,height,avg_frame_rate,r_frame_rate,pix_fmt,time_base,nb_frames,duration,sample_aspect_ratio,sample_rate,channels",
      "-of",
      "json",
      file,
    ])
    .catch((err: unknown) => {
      // The reason is ffprobe's last word on the file (what the assembly report shows), not the command.
      if (!(err instanceof ToolRunError)) throw err;
      throw new Error(err.stderr.trim().split("\n").pop() || err.message);
    });
  return parseProbe(String(result.stdout));
}

/**
 * A wav's format from its header, without starting ffprobe (a take's `_h3.wav` sits beside every take, and
 * starting a process per file is most of what probing a long cut costs). Null when it is not a plain RIFF wav.
 */
export async function wavInfo(file: string): Promise<ClipInfo | null> {
  const handle = await open(file, "r").catch(() => null);
  if (!handle) return null;
  try {
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    if (bytesRead < 12 || buf.toString("latin1", 0, 4) !== "RIFF" || buf.toString("latin1", 8, 12) !== "WAVE")
      return null;
    // Chunks follow the header: find `fmt ` (ffmpeg may write a LIST chunk first).
    for (let at = 12; at + 8 <= bytesRead; ) {
      const id = buf.toString("latin1", at, at + 4);
      const size = buf.readUInt32LE(at + 4);
      if (id === "fmt " && at + 16 <= bytesRead) {
        const channels = buf.readUInt16LE(at + 10);
        const sampleRate = buf.readUInt32LE(at + 12);
        if (!channels || !sampleRate) return null;
        return { duration: null, video: null, audio: { codec: "pcm", sampleRate, channels } };
      }
      at += 8 + size + (size % 2);
    }
    return null;
  } finally {
    await handle.close();
  }
}

type Fields = Record<string, string | number | undefined>;

/** ffprobe's JSON made into a ClipInfo (first video and first audio stream). */
export function parseProbe(json: string): ClipInfo {
  const data = JSON.parse(json) as { format?: Fields; streams?: Fields[] };
  const streams = data.streams ?? [];
  const v = streams.find((s) => s.codec_type === "video");
  const a = streams.find((s) => s.codec_type === "audio");
  return {
    duration: positive(data.format?.duration),
    video: v
      ? {
          codec: String(v.codec_name ?? ""),
          width: Number(v.width ?? 0),
          height: Number(v.height ?? 0),
          fps: rate(v.avg_frame_rate) ?? rate(v.r_frame_rate),
          frames: positive(v.nb_frames),
          pixFmt: v.pix_fmt ? String(v.pix_fmt) : null,
          timescale: timescaleOf(v.time_base),
          sar:
            v.sample_aspect_ratio && v.sample_aspect_ratio !== "0:1" ? String(v.sample_aspect_ratio) : null,
          duration: positive(v.duration),
        }
      : null,
    audio: a
      ? {
          codec: String(a.codec_name ?? ""),
          sampleRate: positive(a.sample_rate),
          channels: positive(a.channels),
        }
      : null,
  };
}

function positive(x: unknown): number | null {
  if (x === undefined || x === null || x === "N/A") return null;
  const n = Number(x);
  return Number.isFinite(n) && n > 0 ? n : null;
}

function rate(text: unknown): number | null {
  const [n, d] = String(text ?? "")
    .split("/")
    .map(Number);
  if (!n || !d) return null;
  return n / d;
}

function timescaleOf(text: unknown): number | null {
  const [n, d] = String(text ?? "")
    .split("/")
    .map(Number);
  return n === 1 && d > 0 ? d : null;
}
