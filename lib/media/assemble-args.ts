// ffmpeg arguments and side files of an assembly, pure: a clip's re-encode, the concat demuxer's list and the
// sound track's filter graph. Kept to filters the shipped ffmpeg (a 2018 4.x build) already has.
import { AUDIO_FORMAT, AUDIO_RATE, aacArgs, h264Args } from "./encode-args.ts";

/** A clip's picture as the cut plays it: its file, its own rate, the frames trimmed off each end and kept. */
export interface ClipPicture {
  file: string;
  srcFps: number;
  trimIn: number;
  trimOut: number;
  frames: number;
}

/** A clip's sound: a file (null: silence) placed `start` seconds into the clip, `offset` seconds into the file. */
export interface ClipSound {
  file: string | null;
  start: number;
  offset: number;
  gain: number;
}

/** How hard the encoder works: `draft` for cuts made to check timing, `full` for the cut that is kept. */
export type EncodeEffort = "draft" | "full";

/** A frame rate as ffmpeg reads it exactly: `24`, `30000/1001`, else the decimal. */
export function fpsText(fps: number): string {
  if (Number.isInteger(fps)) return String(fps);
  const ntsc = (fps * 1001) / 1000;
  if (Math.abs(ntsc - Math.round(ntsc)) < 1e-3) return `${Math.round(ntsc) * 1000}/1001`;
  return String(fps);
}

/** Encoder settings every re-encoded clip shares, so re-encoded and copied clips join as one stream. */
export function videoCodecArgs(effort: EncodeEffort): string[] {
  // A draft is for timing and review: faster; the full cut keeps more of the picture.
  return h264Args(effort === "full" ? { preset: "medium", crf: 17 } : { preset: "veryfast", crf: 20 });
}

/** A picture brought to `width`x`height` whole (letterboxed, never cropped), square pixels, 8-bit 4:2:0. */
export function letterbox(width: number, height: number): string {
  return `scale=${width}:${height}:force_original_aspect_ratio=decrease,pad=${width}:${height}:(ow-iw)/2:(oh-ih)/2,setsar=1,format=yuv420p`;
}

/** The filter chain that brings a clip's picture to the cut: rate, trims, size (letterboxed), pixel format. */
export function videoFilter(clip: ClipPicture, width: number, height: number, fps: number): string {
  const steps: string[] = [];
  if (Math.abs(clip.srcFps - fps) > fps * 1e-4) steps.push(`fps=fps=${fpsText(fps)}`);
  if (clip.trimIn || clip.trimOut)
    steps.push(
      `trim=start_frame=${clip.trimIn}:end_frame=${clip.trimIn + clip.frames}`,
      "setpts=PTS-STARTPTS",
    );
  steps.push(letterbox(width, height));
  return steps.join(",");
}

/** Arguments that re-encode a clip's picture (no sound: the join lays the sound track) into `out`. */
export function reencodeArgs(
  clip: ClipPicture,
  o: {
    width: number;
    height: number;
    fps: number;
    effort: EncodeEffort;
    timescale: number | null;
    out: string;
  },
): string[] {
  return [
    "-i",
    clip.file,
    "-map",
    "0:v:0",
    "-an",
    "-sn",
    "-dn",
    "-vf",
    videoFilter(clip, o.width, o.height, o.fps),
    "-frames:v",
    String(clip.frames),
    ...videoCodecArgs(o.effort),
    ...(o.timescale ? ["-video_track_timescale", String(o.timescale)] : []),
    "-f",
    "mp4",
    o.out,
  ];
}

/** The concat demuxer's list: every file with its exact length, so each starts where the last one ends. */
export function concatList(parts: readonly { file: string; frames: number }[], fps: number): string {
  const lines = ["ffconcat version 1.0"];
  for (const p of parts) {
    lines.push(`file '${p.file.replace(/'/g, "'\\''")}'`, `duration ${(p.frames / fps).toFixed(6)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** Samples of each clip in the sound track, from the running frame total so rounding never adds up. */
export function clipSamples(frames: readonly number[], fps: number): number[] {
  let total = 0;
  return frames.map((f) => {
    const from = Math.round((total * AUDIO_RATE) / fps);
    total += f;
    return Math.round((total * AUDIO_RATE) / fps) - from;
  });
}

export interface SoundPart {
  sound: ClipSound;
  /** Seconds into the untrimmed clip where the played part starts (trim_in at the cut's rate). */
  from: number;
  /** Samples the clip lasts in the cut. */
  samples: number;
}

/** A file name as an option value inside a filter graph script (option level, then graph level escaping). */
export function graphPath(file: string): string {
  return file.replace(/[\\':]/g, "\\$&").replace(/[\\'[\],;]/g, "\\$&");
}

/**
 * The sound track's filter graph: each clip's sound (or silence) cut to the clip's exact sample count, then all
 * joined into `[aout]`. Sound files are opened by `amovie` inside the graph rather than as inputs, so a long
 * cut never meets the command line's length limit. Decoding and re-encoding the sound once is what keeps it in
 * step: copied AAC would bring each clip's encoder padding along, and every join would push the sound later
 * than the picture.
 */
export function soundGraph(parts: readonly SoundPart[]): string {
  const chains: string[] = [];
  parts.forEach((p, k) => {
    const { sound, samples } = p;
    const silence = (n: number, label: string) =>
      `anullsrc=r=${AUDIO_RATE}:cl=stereo,atrim=end_sample=${n},${AUDIO_FORMAT}[${label}]`;
    if (sound.file === null) {
      chains.push(silence(samples, `a${k}`));
      return;
    }
    const at = sound.start + p.from - sound.offset;
    const src = `amovie=filename=${graphPath(sound.file)},aresample=${AUDIO_RATE},${AUDIO_FORMAT},asetpts=PTS-STARTPTS`;
    const gain = sound.gain !== 1 ? `,volume=${sound.gain}` : "";
    const fit = `apad,atrim=end_sample=${samples},${AUDIO_FORMAT}`;
    const skip = Math.round(at * AUDIO_RATE);
    if (skip >= 0) {
      const trim = skip > 0 ? `,atrim=start_sample=${skip},asetpts=PTS-STARTPTS` : "";
      chains.push(`${src}${trim}${gain},${fit}[a${k}]`);
    } else {
      // The sound starts after the played part begins: silence first.
      chains.push(
        silence(-skip, `p${k}`),
        `${src}${gain}[s${k}]`,
        `[p${k}][s${k}]concat=n=2:v=0:a=1,${fit}[a${k}]`,
      );
    }
  });
  const labels = parts.map((_, k) => `[a${k}]`).join("");
  chains.push(`${labels}concat=n=${parts.length}:v=0:a=1[aout]`);
  return `${chains.join(";\n")}\n`;
}

/**
 * The join: pictures copied through the concat demuxer, the sound track made by `graphFile`. `-copyts` keeps
 * the pictures' own times: otherwise the clips' AAC priming (sound that starts before zero) would shift every
 * picture later than the new sound track.
 */
export function joinArgs(o: {
  listFile: string;
  graphFile: string;
  out: string;
  effort: EncodeEffort;
}): string[] {
  return [
    "-copyts",
    "-f",
    "concat",
    "-safe",
    "0",
    "-i",
    o.listFile,
    "-filter_complex_script",
    o.graphFile,
    "-map",
    "0:v:0",
    "-c:v",
    "copy",
    "-map",
    "[aout]",
    // A draft is for timing: the fast coder; the full cut keeps the better one.
    ...aacArgs({ fast: o.effort === "draft" }),
    "-movflags",
    "+faststart",
    "-f",
    "mp4",
    o.out,
  ];
}
