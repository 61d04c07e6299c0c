// Real media for outputs: sizes, frame counts and durations read from the submitted graph, pictures made with
// sharp and video/audio with ffmpeg (lavfi test sources), so downloads can be probed like real renders.
import path from "node:path";
import { execa, type ResultPromise } from "execa";
import sharp from "sharp";
import { findTool } from "../../../lib/media/tools.ts";
import type { NodeDef } from "./catalogue.ts";
import type { Graph } from "./types.ts";

export interface VideoPlan {
  width: number;
  height: number;
  frames: number;
  fps: number;
  /** Seconds of audio to mux in, or null for a silent video. */
  audioSeconds: number | null;
}
export interface ImagePlan {
  width: number;
  height: number;
  batch: number;
}

type DefOf = (classType: string) => NodeDef | undefined;

function isLink(v: unknown): v is [string, number] {
  return Array.isArray(v) && v.length === 2 && typeof v[0] === "string";
}

/** A widget's number: a literal, or the value of a Primitive* node it links to; else the class default. */
export function numberInput(graph: Graph, id: string, field: string, def: DefOf): number | undefined {
  const node = graph[id];
  let v = node?.inputs?.[field];
  if (isLink(v)) {
    const src = graph[v[0]];
    v =
      typeof src?.class_type === "string" && src.class_type.startsWith("Primitive")
        ? src.inputs?.value
        : undefined;
  }
  if (typeof v === "number" && Number.isFinite(v)) return v;
  const cls = typeof node?.class_type === "string" ? def(node.class_type) : undefined;
  const spec = cls?.required?.[field] ?? cls?.optional?.[field];
  if (spec?.t === "scalar" && typeof spec.opts.default === "number") return spec.opts.default;
  return undefined;
}

/** Upstream nodes of `id` in breadth-first order (nearest first), excluding `id`. */
export function ancestors(graph: Graph, id: string, only?: string[]): string[] {
  const seen = new Set<string>([id]);
  const out: string[] = [];
  let frontier = [id];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const n of frontier) {
      for (const [name, v] of Object.entries(graph[n]?.inputs ?? {})) {
        if (n === id && only && !only.includes(name)) continue;
        if (isLink(v) && v[0] in graph && !seen.has(v[0])) {
          seen.add(v[0]);
          out.push(v[0]);
          next.push(v[0]);
        }
      }
    }
    frontier = next;
  }
  return out;
}

const classOf = (graph: Graph, id: string) => graph[id]?.class_type;
const VIDEO_LATENTS = [
  "EmptyLTXVLatentVideo",
  "EmptyHunyuanLatentVideo",
  "EmptyMochiLatentVideo",
  "EmptyCosmosLatentVideo",
  "WanImageToVideo",
  "WanFirstLastFrameToVideo",
  "WanVaceToVideo",
  "Wan22ImageToVideoLatent",
  "MiniMaxH3ImageToVideo",
  "MiniMaxH3ReferenceToVideo",
];
const IMAGE_LATENTS = ["EmptyFlux2LatentImage", "EmptySD3LatentImage", "EmptyLatentImage", "EmptyImage"];

const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);

export function planVideo(graph: Graph, saver: string, def: DefOf): VideoPlan {
  const up = ancestors(graph, saver);
  let width = 512;
  let height = 512;
  let frames = 25;
  const latent = up.find((id) => VIDEO_LATENTS.includes(String(classOf(graph, id))));
  if (latent) {
    // LTX-2.5 renders its base stage at half size and the x2 latent upsampler doubles it (scale 0.5).
    const scale =
      classOf(graph, latent) === "EmptyLTXVLatentVideo" &&
      up.some((id) => classOf(graph, id) === "LTXVLatentUpsampler")
        ? 2
        : 1;
    width = (numberInput(graph, latent, "width", def) ?? 384) * scale;
    height = (numberInput(graph, latent, "height", def) ?? 256) * scale;
    frames = numberInput(graph, latent, "length", def) ?? frames;
  } else {
    const img = up.find((id) => IMAGE_LATENTS.includes(String(classOf(graph, id))));
    if (img) {
      width = numberInput(graph, img, "width", def) ?? width;
      height = numberInput(graph, img, "height", def) ?? height;
      frames = numberInput(graph, img, "batch_size", def) ?? frames;
    }
  }
  const fps =
    firstNumber(graph, [saver], ["fps", "frame_rate"], def, false) ??
    firstNumber(
      graph,
      up.filter((id) => classOf(graph, id) === "CreateVideo"),
      ["fps"],
      def,
    ) ??
    firstNumber(
      graph,
      up.filter((id) => classOf(graph, id) === "LTXVConditioning"),
      ["frame_rate"],
      def,
    ) ??
    firstNumber(
      graph,
      up.filter((id) => classOf(graph, id) === "LTXVEmptyLatentAudio"),
      ["frame_rate"],
      def,
    ) ??
    24;
  let audioSeconds: number | null = null;
  const audioFrom = [saver, ...up.filter((id) => classOf(graph, id) === "CreateVideo")].find((id) =>
    isLink(graph[id]?.inputs?.audio),
  );
  if (audioFrom) {
    const audioUp = ancestors(graph, audioFrom, ["audio"]);
    audioSeconds = audioPlanFrom(graph, audioUp, def) ?? frames / fps;
  }
  return {
    width: even(width),
    height: even(height),
    frames: Math.max(1, Math.round(frames)),
    fps,
    audioSeconds,
  };
}

function firstNumber(
  graph: Graph,
  ids: string[],
  fields: string[],
  def: DefOf,
  useDefault = true,
): number | undefined {
  for (const id of ids) {
    for (const f of fields) {
      const raw = graph[id]?.inputs?.[f];
      if (!useDefault && raw === undefined) continue;
      const v = numberInput(graph, id, f, def);
      if (v !== undefined && v > 0) return v;
    }
  }
  return undefined;
}

function audioPlanFrom(graph: Graph, up: string[], def: DefOf): number | undefined {
  const ltx = up.find((id) => classOf(graph, id) === "LTXVEmptyLatentAudio");
  if (ltx) {
    const frames = numberInput(graph, ltx, "frames_number", def) ?? 97;
    const rate = numberInput(graph, ltx, "frame_rate", def) ?? 25;
    return frames / rate;
  }
  const empty = up.find((id) => classOf(graph, id) === "EmptyLatentAudio");
  if (empty) return numberInput(graph, empty, "seconds", def);
  return undefined;
}

export function planAudio(graph: Graph, saver: string, def: DefOf): number {
  return audioPlanFrom(graph, ancestors(graph, saver), def) ?? 5;
}

export async function planImage(
  graph: Graph,
  saver: string,
  def: DefOf,
  inputDir: string,
): Promise<ImagePlan> {
  const up = ancestors(graph, saver);
  const latent = up.find((id) => IMAGE_LATENTS.includes(String(classOf(graph, id))));
  if (latent) {
    return {
      width: numberInput(graph, latent, "width", def) ?? 512,
      height: numberInput(graph, latent, "height", def) ?? 512,
      batch: numberInput(graph, latent, "batch_size", def) ?? 1,
    };
  }
  const load = up.find((id) => classOf(graph, id) === "LoadImage");
  const image = load ? graph[load].inputs?.image : undefined;
  if (typeof image === "string") {
    try {
      const meta = await sharp(
        path.join(inputDir, image.replace(/ \[(input|output|temp)\]$/, "")),
      ).metadata();
      if (meta.width && meta.height) return { width: meta.width, height: meta.height, batch: 1 };
    } catch {
      // fall through to the default size
    }
  }
  return { width: 512, height: 512, batch: 1 };
}

/** Writes the files; tracks its ffmpeg children so `close()` can stop them. */
export class MediaMaker {
  private readonly procs = new Set<ResultPromise>();
  private ffmpegPath: Promise<string> | null = null;
  private previewJpeg: Promise<Buffer> | null = null;

  private ffmpeg(): Promise<string> {
    this.ffmpegPath ??= findTool("ffmpeg", process.env).then((t) => {
      if (t.path === null) throw new Error(t.error);
      return t.path;
    });
    return this.ffmpegPath;
  }

  private async run(args: string[]): Promise<void> {
    const proc = execa(await this.ffmpeg(), ["-hide_banner", "-loglevel", "error", "-y", ...args], {
      timeout: 60_000,
    });
    this.procs.add(proc);
    try {
      await proc;
    } finally {
      this.procs.delete(proc);
    }
  }

  async png(file: string, width: number, height: number, seed: number): Promise<void> {
    const data = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 3;
        data[i] = Math.floor((x * 255) / Math.max(1, width - 1));
        data[i + 1] = Math.floor((y * 255) / Math.max(1, height - 1));
        data[i + 2] = (seed * 53) & 0xff;
      }
    }
    await sharp(data, { raw: { width, height, channels: 3 } })
      .png({ compressionLevel: 4 })
      .toFile(file);
  }

  async video(file: string, plan: VideoPlan, container: "mp4" | "webm" | "gif"): Promise<void> {
    // The source itself stops after `frames` frames, so an audio track keeps its own full length.
    const src = [
      "-f",
      "lavfi",
      "-i",
      `testsrc2=size=${plan.width}x${plan.height}:rate=${plan.fps},trim=end_frame=${plan.frames}`,
    ];
    const frames = ["-frames:v", String(plan.frames)];
    if (container === "gif") return this.run([...src, ...frames, file]);
    if (container === "webm") {
      return this.run([
        ...src,
        ...frames,
        ...["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "0", "-crf", "45"],
        file,
      ]);
    }
    const audio =
      plan.audioSeconds !== null
        ? [
            "-f",
            "lavfi",
            "-i",
            `sine=frequency=440:sample_rate=48000:duration=${plan.audioSeconds.toFixed(4)}`,
          ]
        : [];
    const maps =
      plan.audioSeconds !== null ? ["-map", "0:v", "-map", "1:a", "-c:a", "aac", "-b:a", "64k"] : [];
    await this.run([
      ...src,
      ...audio,
      ...maps,
      ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"],
      ...["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709"],
      ...["-movflags", "+faststart"],
      file,
    ]);
  }

  async audio(file: string, seconds: number, format: "flac" | "wav"): Promise<void> {
    await this.run([
      ...["-f", "lavfi", "-i", `sine=frequency=220:sample_rate=44100:duration=${seconds.toFixed(4)}`],
      ...["-ac", "2", "-c:a", format === "wav" ? "pcm_s16le" : "flac"],
      file,
    ]);
  }

  /** A small JPEG for binary preview frames. */
  preview(): Promise<Buffer> {
    this.previewJpeg ??= sharp({ create: { width: 64, height: 64, channels: 3, background: "#3060a0" } })
      .jpeg()
      .toBuffer();
    return this.previewJpeg;
  }

  stopAll(): void {
    for (const p of this.procs) p.kill("SIGKILL");
    this.procs.clear();
  }
}
