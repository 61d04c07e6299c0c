// Intro and outro around a cut, the episode title drawn on them in the show's subtitle style (size, place, colour,
// a soft glow, fades). The title clips are made at the cut's size, rate and encoder settings, so the cut's picture is
// joined as it is (copied); the join is decoded once to verify it, and only a cut that cannot be copied, or a join
// that does not decode cleanly, is re-encoded whole. The sound is laid again, each part cut to its picture's length.
import { access, mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { tempPath } from "../store/temp-names.ts";
import { clipSamples, concatList, fpsText, graphPath, letterbox, videoCodecArgs } from "./assemble-args.ts";
import { type ClipInfo, probeClip } from "./clip-probe.ts";
import { AUDIO_FORMAT, AUDIO_RATE, aacArgs } from "./encode-args.ts";
import { runFfmpeg } from "./ffmpeg.ts";
import type { MediaTools } from "./tools.ts";

/** The subtitle style of the series config's `publish.subtitle`, every key filled in. */
export interface SubtitleStyle {
  /** A font file; null: the first installed one of FONT_FILES. */
  font: string | null;
  /** Text height as a fraction of the frame height. */
  size: number;
  /** Top of the text as a fraction of the frame height. */
  y: number;
  color: string;
  glow: string;
  /** Glow radius as a fraction of the frame height. */
  glow_size: number;
  /** Seconds into the intro where the title starts fading in and is fully on. */
  intro_in: [number, number];
  /** Seconds into the outro where the title fades in, and where it fades out. */
  outro_in: [number, number];
  outro_out: [number, number];
}

export const SUBTITLE_DEFAULTS: SubtitleStyle = {
  font: null,
  size: 0.058,
  y: 0.56,
  color: "#F4E6D0",
  glow: "#FFB45A@0.8",
  glow_size: 0.008,
  intro_in: [4.0, 5.0],
  outro_in: [0.0, 1.0],
  outro_out: [4.5, 5.5],
};

/** Fonts tried, in order, when the style names none (Debian's and most Linux systems' common faces). */
export const FONT_FILES = [
  "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
  "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
  "/usr/share/fonts/TTF/DejaVuSans.ttf",
  "/usr/share/fonts/dejavu/DejaVuSans.ttf",
  "/System/Library/Fonts/Supplemental/Arial.ttf",
  "C:\\Windows\\Fonts\\arial.ttf",
];

const COLOR = /^#[0-9a-fA-F]{6}(@(0(\.\d+)?|1(\.0+)?))?$/;

/** The style as written, checked: the defaults fill what is missing; a key of the wrong shape is a problem. */
export function subtitleStyle(raw: Record<string, unknown>, folder: string): SubtitleStyle | string {
  const s: SubtitleStyle = { ...SUBTITLE_DEFAULTS };
  const problems: string[] = [];
  const fraction = (key: "size" | "y" | "glow_size", max: number) => {
    const v = raw[key];
    if (v === undefined) return;
    if (typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= max) s[key] = v;
    else problems.push(`subtitle ${key} must be a number from 0 to ${max}`);
  };
  fraction("size", 0.5);
  fraction("y", 1);
  fraction("glow_size", 0.1);
  for (const key of ["color", "glow"] as const) {
    const v = raw[key];
    if (v === undefined) continue;
    if (typeof v === "string" && COLOR.test(v)) s[key] = v;
    else problems.push(`subtitle ${key} must be a colour like #F4E6D0 or #FFB45A@0.8`);
  }
  for (const key of ["intro_in", "outro_in", "outro_out"] as const) {
    const v = raw[key];
    if (v === undefined) continue;
    const ok =
      Array.isArray(v) &&
      v.length === 2 &&
      v.every((x) => typeof x === "number" && Number.isFinite(x) && x >= 0) &&
      v[0] <= v[1];
    if (ok) s[key] = [v[0], v[1]];
    else problems.push(`subtitle ${key} must be [start, end] in seconds, start not after end`);
  }
  if (raw.font !== undefined) {
    if (typeof raw.font === "string" && raw.font.trim()) s.font = path.resolve(folder, raw.font.trim());
    else problems.push("subtitle font must be the path of a font file");
  }
  return problems.length ? problems.join("; ") : s;
}

/** Where the title is on: 0..1 over time `t` (drawtext's expression), from fade-in (and fade-out) seconds. */
export function alphaExpr(fadeIn: [number, number], fadeOut: [number, number] | null): string {
  const ramp = ([a, b]: [number, number], up: boolean) =>
    b > a ? (up ? `(t-${a})/${b - a}` : `(${b}-t)/${b - a}`) : up ? "1" : "0";
  const inPart = `if(lt(t,${fadeIn[0]}),0,if(lt(t,${fadeIn[1]}),${ramp(fadeIn, true)},1))`;
  if (!fadeOut) return inPart;
  return `if(lt(t,${fadeOut[0]}),${inPart},if(lt(t,${fadeOut[1]}),${ramp(fadeOut, false)},0))`;
}

export interface CutFormatFacts {
  width: number;
  height: number;
  fps: number;
  timescale: number | null;
}

/**
 * The filter graph of one title clip: the clip brought to the cut's size (letterboxed) and rate, the title drawn
 * twice (a blurred glow layer under the crisp text) with its fades, and the sound cut to the picture's length.
 */
export function titleGraph(o: {
  style: SubtitleStyle;
  font: string;
  textFile: string;
  format: CutFormatFacts;
  alpha: string;
  samples: number;
  sound: boolean;
}): string {
  const { width: w, height: h, fps } = o.format;
  const st = o.style;
  const size = Math.max(8, Math.round(st.size * h));
  const y = Math.round(st.y * h);
  const glow = Math.max(1, Math.round(st.glow_size * h));
  const text = `fontfile=${graphPath(o.font)}:textfile=${graphPath(o.textFile)}:fontsize=${size}:x=(w-text_w)/2:y=${y}:alpha='${o.alpha}'`;
  const picture = [
    `[0:v]fps=fps=${fpsText(fps)},${letterbox(w, h)},split[base][g]`,
    `[g]format=rgba,colorchannelmixer=aa=0,drawtext=${text}:fontcolor=${st.glow}:borderw=${glow}:bordercolor=${st.glow},format=yuva444p,gblur=sigma=${glow}[glow]`,
    `[base][glow]overlay=format=auto,drawtext=${text}:fontcolor=${st.color},format=yuv420p[v]`,
  ];
  const fit = `apad,atrim=end_sample=${o.samples},${AUDIO_FORMAT}[a]`;
  const sound = o.sound
    ? `[0:a:0]aresample=${AUDIO_RATE},asetpts=PTS-STARTPTS,${fit}`
    : `anullsrc=r=${AUDIO_RATE}:cl=stereo,${fit}`;
  return `${[...picture, sound].join(";\n")}\n`;
}

/** Why the cut's picture cannot be joined as it is to title clips encoded as the assembler encodes, or null. */
export function copyProblem(cut: ClipInfo): string | null {
  const v = cut.video;
  if (!v) return "the cut has no picture";
  if (v.codec !== "h264") return `the cut's picture is ${v.codec}, the titles are H.264`;
  if (v.pixFmt !== "yuv420p")
    return `the cut's pixel format is ${v.pixFmt ?? "unknown"}, the titles are yuv420p`;
  if (v.sar !== null && v.sar !== "1:1") return `the cut's pixel aspect is ${v.sar}`;
  if (v.width % 2 || v.height % 2) return `the cut's size ${v.width}x${v.height} is odd`;
  return null;
}

export interface TitleHooks {
  signal?: AbortSignal;
  /** The stage under way (`titles` with text `intro`/`outro`, `join`, `verify`, `reencode`) and the fraction done. */
  progress?(update: {
    stage: "titles" | "join" | "verify" | "reencode";
    text: string;
    progress: number;
  }): void;
}

export interface TitlesRequest {
  /** The cut (an mp4 with its sound). */
  cut: string;
  intro?: string | null;
  outro?: string | null;
  /** The episode title drawn on the intro and outro. */
  title: string;
  /** The series config's `publish.subtitle` as written. */
  style: Record<string, unknown>;
  /** The folder a relative `font` is read from (the episode). */
  folder: string;
  /** The titled cut (mp4); the caller names it and moves it into place. */
  out: string;
}

export interface Titled {
  /** The intro and outro clips put around the cut (null where there was none). */
  intro: string | null;
  outro: string | null;
  picture: "copied" | "re-encoded";
  why: string;
  seconds: number;
  frames: number;
}

interface Part {
  file: string;
  frames: number;
}

/**
 * Write `out`: the intro (titled), the cut, the outro (titled). Rejects with why (no intro or outro, a bad style, a
 * clip that cannot be read, ffmpeg's words); a failed or canceled run leaves no `out` behind.
 */
export async function wrapWithTitles(
  services: { readonly media: MediaTools },
  req: TitlesRequest,
  hooks: TitleHooks = {},
): Promise<Titled> {
  const intro = req.intro ?? null;
  const outro = req.outro ?? null;
  if (!intro && !outro) throw new Error("titles: the show has neither an intro nor an outro clip");
  const style = subtitleStyle(req.style, req.folder);
  if (typeof style === "string") throw new Error(`titles: ${style}`);
  const font = await fontFile(style);
  const media = services.media;
  const cut = await probeClip(services, req.cut);
  const v = cut.video;
  if (!v?.fps) throw new Error("titles: the cut has no picture or no frame rate");
  const format: CutFormatFacts = {
    width: v.width + (v.width % 2),
    height: v.height + (v.height % 2),
    fps: v.fps,
    timescale: v.timescale,
  };
  const cutFrames = v.frames ?? Math.round((v.duration ?? cut.duration ?? 0) * v.fps);
  const work = tempPath(req.out);
  await mkdir(work);
  const report = (stage: "titles" | "join" | "verify" | "reencode", text: string, progress: number) =>
    hooks.progress?.({ stage, text, progress });
  try {
    const textFile = path.join(work, "title.txt");
    await writeFile(textFile, req.title.replace(/\r?\n/g, " ").trim());
    const made = async (which: "intro" | "outro", file: string): Promise<Part> => {
      report("titles", which, 0);
      const info = await probeClip(services, file);
      if (!info.video) throw new Error(`titles: the ${which} ${path.basename(file)} has no picture`);
      const seconds = info.duration ?? info.video.duration ?? 0;
      const frames = Math.max(1, Math.round(seconds * format.fps));
      const graph = path.join(work, `${which}.graph`);
      const alpha =
        which === "intro" ? alphaExpr(style.intro_in, null) : alphaExpr(style.outro_in, style.outro_out);
      const samples = clipSamples([frames], format.fps)[0];
      await writeFile(
        graph,
        titleGraph({ style, font, textFile, format, alpha, samples, sound: !!info.audio }),
      );
      const out = path.join(work, `${which}.mp4`);
      const r = await runFfmpeg(
        [
          ...["-i", file, "-filter_complex_script", graph, "-map", "[v]", "-map", "[a]"],
          ...["-frames:v", String(frames), ...videoCodecArgs("full")],
          ...(format.timescale ? ["-video_track_timescale", String(format.timescale)] : []),
          ...aacArgs(),
          ...["-f", "mp4", out],
        ],
        {
          media,
          signal: hooks.signal,
          onProgress: (s) => report("titles", which, Math.min(1, (s * format.fps) / frames)),
        },
      );
      return { file: out, frames: r.frames ?? frames };
    };
    const parts: Part[] = [];
    if (intro) parts.push(await made("intro", intro));
    parts.push({ file: req.cut, frames: cutFrames });
    if (outro) parts.push(await made("outro", outro));
    const total = parts.reduce((n, p) => n + p.frames, 0);

    const problem = copyProblem(cut);
    let why = problem ?? "";
    if (!problem) {
      report("join", "", 0);
      await join(media, parts, format, work, req.out, hooks);
      report("verify", "", 0);
      const bad = await verify(media, req.out, total, hooks);
      if (bad === null) {
        return {
          intro,
          outro,
          picture: "copied",
          why: "copied: the titles match the cut",
          seconds: total / format.fps,
          frames: total,
        };
      }
      why = `the copied join did not verify (${bad})`;
    }
    report("reencode", why, 0);
    await reencode(media, parts, format, req.out, total, hooks);
    return {
      intro,
      outro,
      picture: "re-encoded",
      why: `re-encoded: ${why}`,
      seconds: total / format.fps,
      frames: total,
    };
  } catch (err) {
    await rm(req.out, { force: true });
    throw err;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function fontFile(style: SubtitleStyle): Promise<string> {
  const tried = style.font ? [style.font] : FONT_FILES;
  for (const f of tried) {
    if (
      await access(f).then(
        () => true,
        () => false,
      )
    )
      return f;
  }
  throw new Error(
    style.font
      ? `titles: the subtitle font ${style.font} cannot be read`
      : "titles: no font file to draw the title with (install fonts-dejavu-core or set publish.subtitle.font)",
  );
}

/** The sound of every part, decoded and cut to its picture's samples, joined into `[aout]`. */
function soundChains(parts: readonly Part[], fps: number, firstInput: number): string {
  const samples = clipSamples(
    parts.map((p) => p.frames),
    fps,
  );
  const chains = parts.map(
    (_, k) =>
      `[${firstInput + k}:a:0]aresample=${AUDIO_RATE},${AUDIO_FORMAT},asetpts=PTS-STARTPTS,apad,atrim=end_sample=${samples[k]}[a${k}]`,
  );
  chains.push(`${parts.map((_, k) => `[a${k}]`).join("")}concat=n=${parts.length}:v=0:a=1[aout]`);
  return chains.join(";\n");
}

const SOUND_OUT = [...aacArgs(), "-movflags", "+faststart"];

/** The pictures copied through the concat demuxer (each for its exact length), the sound laid again. */
async function join(
  media: MediaTools,
  parts: readonly Part[],
  format: CutFormatFacts,
  work: string,
  out: string,
  hooks: TitleHooks,
): Promise<void> {
  const list = path.join(work, "join.ffconcat");
  await writeFile(list, concatList(parts, format.fps));
  const graph = path.join(work, "join.graph");
  await writeFile(graph, `${soundChains(parts, format.fps, 1)}\n`);
  const total = parts.reduce((n, p) => n + p.frames, 0);
  await runFfmpeg(
    [
      // As the assembler joins: the pictures keep their own times, the sound starts at zero.
      ...["-copyts", "-f", "concat", "-safe", "0", "-i", list],
      ...parts.flatMap((p) => ["-i", p.file]),
      ...["-filter_complex_script", graph, "-map", "0:v:0", "-c:v", "copy", "-map", "[aout]"],
      ...SOUND_OUT,
      ...["-f", "mp4", out],
    ],
    {
      media,
      signal: hooks.signal,
      onProgress: (s) =>
        hooks.progress?.({ stage: "join", text: "", progress: Math.min(1, (s * format.fps) / total) }),
    },
  );
}

/** Decode the joined picture: null when every frame decodes without a word from the decoder, else what went wrong. */
async function verify(
  media: MediaTools,
  file: string,
  frames: number,
  hooks: TitleHooks,
): Promise<string | null> {
  const r = await runFfmpeg(["-v", "error", "-i", file, "-map", "0:v:0", "-f", "null", "-"], {
    media,
    signal: hooks.signal,
    onProgress: () => {},
  });
  const log = r.log.trim();
  if (log) return log.split("\n").slice(-1)[0];
  if (r.frames !== frames) return `${r.frames ?? "no"} frames decoded, ${frames} expected`;
  return null;
}

/** Every part decoded and encoded again into one picture at the cut's format, the sound laid as in the join. */
async function reencode(
  media: MediaTools,
  parts: readonly Part[],
  format: CutFormatFacts,
  out: string,
  total: number,
  hooks: TitleHooks,
): Promise<void> {
  const { width: w, height: h, fps } = format;
  const pictures = parts.map(
    (p, k) =>
      `[${k}:v:0]fps=fps=${fpsText(fps)},${letterbox(w, h)},trim=end_frame=${p.frames},setpts=PTS-STARTPTS[v${k}]`,
  );
  const graph = [
    ...pictures,
    `${parts.map((_, k) => `[v${k}]`).join("")}concat=n=${parts.length}:v=1:a=0[vout]`,
    soundChains(parts, fps, 0),
  ].join(";\n");
  await runFfmpeg(
    [
      ...parts.flatMap((p) => ["-i", p.file]),
      ...["-filter_complex", graph, "-map", "[vout]", "-map", "[aout]", ...videoCodecArgs("full")],
      ...SOUND_OUT,
      ...["-f", "mp4", out],
    ],
    {
      media,
      signal: hooks.signal,
      onProgress: (s) =>
        hooks.progress?.({ stage: "reencode", text: "", progress: Math.min(1, (s * fps) / total) }),
    },
  );
}
