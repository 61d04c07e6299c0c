// Real media for outputs: sizes, frame counts and durations read from the submitted graph (a picture's size
// followed along the links that carry it), pictures made with sharp and video/audio with ffmpeg (lavfi test
// sources), so downloads can be probed like real renders.
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

/** FLUX.1 Kontext's preferred sizes (FluxKontextImageScale picks the one nearest the picture's aspect). */
const KONTEXT_SIZES: [number, number][] = [
  [672, 1568],
  [688, 1504],
  [720, 1456],
  [752, 1392],
  [800, 1328],
  [832, 1248],
  [880, 1184],
  [944, 1104],
  [1024, 1024],
  [1104, 944],
  [1184, 880],
  [1248, 832],
  [1328, 800],
  [1392, 752],
  [1456, 720],
  [1504, 688],
  [1568, 672],
];
const SAMPLER_CLASSES = ["KSampler", "KSamplerAdvanced", "SamplerCustom", "SamplerCustomAdvanced"];

async function loadedSize(graph: Graph, id: string, inputDir: string): Promise<ImagePlan | undefined> {
  const image = graph[id]?.inputs?.image;
  if (typeof image !== "string") return undefined;
  try {
    const meta = await sharp(path.join(inputDir, image.replace(/ \[(input|output|temp)\]$/, ""))).metadata();
    if (meta.width && meta.height) return { width: meta.width, height: meta.height, batch: 1 };
  } catch {
    // unreadable: the caller falls back
  }
  return undefined;
}

/**
 * The size a picture (or latent) output has, followed back along the links that carry it as ComfyUI computes it:
 * samplers keep their latent's size, a switch passes the branch its boolean picks, TextEncodeQwenImage21's latent
 * takes the first reference's size at its `resolution`, Kontext and total-pixel scalers resize. Undefined when
 * the path runs through a class the double does not model.
 */
async function tracedSize(
  graph: Graph,
  from: unknown,
  def: DefOf,
  inputDir: string,
  depth = 0,
): Promise<ImagePlan | undefined> {
  if (!isLink(from) || !(from[0] in graph) || depth > 64) return undefined;
  const [id, slot] = from;
  const cls = String(classOf(graph, id));
  const inputs = graph[id]?.inputs ?? {};
  const follow = (name: string) => tracedSize(graph, inputs[name], def, inputDir, depth + 1);
  if (IMAGE_LATENTS.includes(cls)) {
    return {
      width: numberInput(graph, id, "width", def) ?? 512,
      height: numberInput(graph, id, "height", def) ?? 512,
      batch: numberInput(graph, id, "batch_size", def) ?? 1,
    };
  }
  if (cls === "LoadImage") return loadedSize(graph, id, inputDir);
  if (cls === "VAEDecode" || cls === "VAEDecodeTiled") return follow("samples");
  if (cls === "VAEEncode") return follow("pixels");
  if (SAMPLER_CLASSES.includes(cls)) return follow("latent_image");
  if (cls === "ComfySwitchNode") return follow(inputs.switch === true ? "on_true" : "on_false");
  if (cls === "FluxKontextImageScale") {
    const src = await follow("image");
    if (!src) return undefined;
    const aspect = src.width / src.height;
    const [width, height] = KONTEXT_SIZES.reduce((best, s) =>
      Math.abs(aspect - s[0] / s[1]) < Math.abs(aspect - best[0] / best[1]) ? s : best,
    );
    return { width, height, batch: src.batch };
  }
  if (cls === "ImageScaleToTotalPixels") {
    const src = await follow("image");
    if (!src) return undefined;
    const total = (numberInput(graph, id, "megapixels", def) ?? 1) * 1024 * 1024;
    const steps = numberInput(graph, id, "resolution_steps", def) ?? 1;
    const scale = Math.sqrt(total / (src.width * src.height));
    return {
      width: Math.round((src.width * scale) / steps) * steps,
      height: Math.round((src.height * scale) / steps) * steps,
      batch: src.batch,
    };
  }
  if (cls === "TextEncodeQwenImage21" && slot === 2) {
    const resolution = numberInput(graph, id, "resolution", def) ?? 1024;
    const first = Object.keys(inputs)
      .filter((k) => /^images\.image_\d+$/.test(k) && isLink(inputs[k]))
      .sort((a, b) => Number(a.split("_").pop()) - Number(b.split("_").pop()))[0];
    let width = resolution || 1024;
    let height = resolution || 1024;
    const src = first ? await follow(first) : undefined;
    if (first && !src) return undefined;
    if (src) {
      const ratio = src.width / src.height;
      width =
        resolution > 0
          ? Math.round(Math.sqrt(resolution * resolution * ratio) / 32) * 32
          : Math.round(src.width / 32) * 32;
      height =
        resolution > 0
          ? Math.round(Math.sqrt((resolution * resolution) / ratio) / 32) * 32
          : Math.round(src.height / 32) * 32;
      width = Math.max(32, width);
      height = Math.max(32, height);
    }
    // The latent holds a sixteenth of each side.
    return { width: Math.floor(width / 16) * 16, height: Math.floor(height / 16) * 16, batch: 1 };
  }
  return undefined;
}

export async function planImage(
  graph: Graph,
  saver: string,
  def: DefOf,
  inputDir: string,
): Promise<ImagePlan> {
  const traced = await tracedSize(graph, graph[saver]?.inputs?.images, def, inputDir);
  if (traced) return traced;
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
  return (
    (load ? await loadedSize(graph, load, inputDir) : undefined) ?? { width: 512, height: 512, batch: 1 }
  );
}

/** A video whose frames come from an input file the graph loads (LoadVideo), with the size the chain gives them. */
export interface LoadedVideoPlan {
  /** The loaded file (absolute). */
  file: string;
  width: number;
  height: number;
  fps: number;
  frames: number;
  /** The saver's video carries the loaded file's sound. */
  audio: boolean;
}

interface Probed {
  width: number;
  height: number;
  fps: number;
  frames: number;
}

async function probeVideo(file: string): Promise<Probed | undefined> {
  const tool = await findTool("ffprobe", process.env);
  if (tool.path === null) return undefined;
  try {
    const r = await execa(tool.path, [
      ...["-v", "error", "-select_streams", "v:0", "-count_packets"],
      ...["-show_entries", "stream=width,height,r_frame_rate,nb_read_packets", "-of", "json", file],
    ]);
    const st = JSON.parse(r.stdout).streams?.[0];
    const [n, d] = String(st.r_frame_rate).split("/").map(Number);
    return { width: st.width, height: st.height, fps: d ? n / d : n, frames: Number(st.nb_read_packets) };
  } catch {
    return undefined;
  }
}

/** A model file's own factor as its name says it (`RealESRGAN_x2.pth`, `4x-UltraSharp.pth`); 4 when it says none. */
export function modelFactor(name: unknown): number {
  const m = /(?:^|[^a-z0-9])x(\d)(?![0-9])|(\d)x(?:[^a-z0-9]|$)/i.exec(String(name));
  return m ? Number(m[1] ?? m[2]) : 4;
}

/**
 * Frames followed back from `from` to a LoadVideo, sized as ComfyUI's nodes size them: an upscale model multiplies
 * by its factor, ImageScale and the pad fit set the size (ImageScale's 0 keeps the aspect), SeedVR2 sets the short
 * edge, SUPIR scales then floors to multiples of 64, a blend keeps its first picture's size. Undefined through a
 * class the double does not model.
 */
async function tracedVideo(
  graph: Graph,
  from: unknown,
  def: DefOf,
  inputDir: string,
  depth = 0,
): Promise<(Probed & { file: string }) | undefined> {
  if (!isLink(from) || !(from[0] in graph) || depth > 64) return undefined;
  const [id, slot] = from;
  const cls = String(classOf(graph, id));
  const inputs = graph[id]?.inputs ?? {};
  const follow = (name: string) => tracedVideo(graph, inputs[name], def, inputDir, depth + 1);
  const num = (name: string) => numberInput(graph, id, name, def) ?? 0;
  if (cls === "GetVideoComponents" && slot === 0) return follow("video");
  if (cls === "LoadVideo") {
    const name = inputs.file;
    if (typeof name !== "string") return undefined;
    const file = path.join(inputDir, name.replace(/ \[(input|output|temp)\]$/, ""));
    const p = await probeVideo(file);
    return p ? { ...p, file } : undefined;
  }
  const src = await follow(
    cls === "ImageBlend"
      ? "image1"
      : cls === "ImageUpscaleWithModel"
        ? "image"
        : cls === "H3MotionBlur"
          ? "images"
          : "image",
  );
  if (!src) return undefined;
  if (cls === "ImageUpscaleWithModel") {
    const loader = inputs.upscale_model;
    const k = isLink(loader) ? modelFactor(graph[loader[0]]?.inputs?.model_name) : 4;
    return { ...src, width: src.width * k, height: src.height * k };
  }
  if (cls === "ImageScale") {
    let w = num("width");
    let h = num("height");
    if (w === 0 && h === 0) return src;
    if (w === 0) w = Math.max(1, Math.round((src.width * h) / src.height));
    if (h === 0) h = Math.max(1, Math.round((src.height * w) / src.width));
    return { ...src, width: w, height: h };
  }
  if (cls === "ResizeAndPadImage")
    return { ...src, width: num("target_width"), height: num("target_height") };
  if (cls === "SeedVR2VideoUpscaler") {
    const res = num("resolution");
    const portrait = src.height > src.width;
    const short = Math.min(src.width, src.height);
    const long = Math.round((Math.max(src.width, src.height) * res) / short / 2) * 2;
    return { ...src, width: portrait ? res : long, height: portrait ? long : res };
  }
  if (cls === "SUPIR_Upscale") {
    const k = num("scale_by") || 1;
    return {
      ...src,
      width: Math.floor((src.width * k) / 64) * 64,
      height: Math.floor((src.height * k) / 64) * 64,
    };
  }
  if (cls === "ImageBlend" || cls === "H3MotionBlur") return src;
  return undefined;
}

/** The plan of a SaveVideo whose CreateVideo's frames come from a loaded video, or undefined. */
export async function planLoadedVideo(
  graph: Graph,
  saver: string,
  def: DefOf,
  inputDir: string,
): Promise<LoadedVideoPlan | undefined> {
  const video = graph[saver]?.inputs?.video;
  if (!isLink(video) || classOf(graph, video[0]) !== "CreateVideo") return undefined;
  const create = graph[video[0]].inputs ?? {};
  const traced = await tracedVideo(graph, create.images, def, inputDir);
  if (!traced) return undefined;
  const fpsLink = create.fps;
  const fps = isLink(fpsLink) ? traced.fps : (numberInput(graph, video[0], "fps", def) ?? traced.fps);
  return {
    file: traced.file,
    width: traced.width,
    height: traced.height,
    fps,
    frames: traced.frames,
    audio: isLink(create.audio),
  };
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

  /** An mp4 of a loaded video's frames at the plan's size and rate, with its sound when the plan carries it. */
  async videoFrom(file: string, plan: LoadedVideoPlan): Promise<void> {
    await this.run([
      ...[
        "-i",
        plan.file,
        "-map",
        "0:v:0",
        ...(plan.audio ? ["-map", "0:a?", "-c:a", "aac", "-b:a", "128k"] : []),
      ],
      ...["-vf", `scale=${plan.width}:${plan.height}:flags=lanczos,setsar=1,fps=${plan.fps}`],
      ...["-frames:v", String(plan.frames)],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-movflags", "+faststart"],
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
