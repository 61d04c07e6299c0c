// Loudness to a target (EBU R128, ffmpeg's two-pass `loudnorm`): a first pass measures the sound, the second applies
// the gain those measures call for (one linear gain when the peaks allow it), the picture copied; the written file is
// then measured again, so what is reported is what the file holds, not what the filter meant to do.
import { rm } from "node:fs/promises";
import { probeClip } from "./clip-probe.ts";
import { aacArgs } from "./encode-args.ts";
import { runFfmpeg } from "./ffmpeg.ts";
import type { MediaTools } from "./tools.ts";

export interface LoudnessTarget {
  /** Integrated loudness, LUFS (−70..−5). */
  target: number;
  /** Highest true peak, dBTP (−9..0). */
  truePeak: number;
}

/** A file's loudness; null where the sound is silent (loudnorm says `-inf`). */
export interface LoudnessFigures {
  /** Integrated loudness, LUFS. */
  integrated: number | null;
  /** True peak, dBTP. */
  truePeak: number | null;
  /** Loudness range, LU. */
  range: number | null;
  /** The gate's threshold, LUFS. */
  threshold: number | null;
}

/** One loudnorm report: what it measured of its input and (for the second pass) how it normalised. */
export interface LoudnormReport {
  input: LoudnessFigures;
  /** loudnorm's own estimate of its output (the file is measured again rather than trusting it). */
  output: LoudnessFigures;
  /** `linear`: one gain for the whole file; `dynamic`: gain riding the sound (peaks or range did not allow one). */
  type: "linear" | "dynamic" | null;
  /** The gain offset loudnorm proposes for a second pass, LU. */
  offset: number | null;
}

export const LOUDNESS_DEFAULT: LoudnessTarget = { target: -16, truePeak: -1 };

/** Why a target cannot be used, or null. */
export function loudnessProblem(t: LoudnessTarget): string | null {
  if (!Number.isFinite(t.target) || t.target < -70 || t.target > -5)
    return `the loudness target must be between -70 and -5 LUFS (got ${t.target})`;
  if (!Number.isFinite(t.truePeak) || t.truePeak < -9 || t.truePeak > 0)
    return `the true peak limit must be between -9 and 0 dBTP (got ${t.truePeak})`;
  return null;
}

/**
 * The range target: never below what was measured (a smaller one makes loudnorm ride the gain), 11 LU by default,
 * within what every ffmpeg since 4.0 accepts (1..20).
 */
export function rangeTarget(measured: number | null): number {
  const wanted = measured === null ? 11 : Math.max(11, Math.ceil(measured) + 1);
  return Math.min(20, Math.max(1, wanted));
}

const fixed = (n: number) => String(Math.round(n * 100) / 100);

/** The first pass's filter: measure only (the output is thrown away). */
export function measureFilter(t: LoudnessTarget): string {
  return `loudnorm=I=${fixed(t.target)}:TP=${fixed(t.truePeak)}:LRA=11:print_format=json`;
}

/** The arguments of a measuring pass over `file`'s first sound stream. */
export function measureArgs(file: string, t: LoudnessTarget): string[] {
  return ["-i", file, "-map", "0:a:0", "-vn", "-sn", "-dn", "-af", measureFilter(t), "-f", "null", "-"];
}

/** The second pass's filter, from the first pass's measures (which must not be silent). */
export function normaliseFilter(t: LoudnessTarget, measured: LoudnormReport): string {
  const m = measured.input;
  if (m.integrated === null || m.truePeak === null || m.range === null || m.threshold === null)
    throw new Error("loudness: the sound is silent, there is nothing to normalise");
  const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
  return [
    `loudnorm=I=${fixed(t.target)}`,
    `TP=${fixed(t.truePeak)}`,
    `LRA=${rangeTarget(m.range)}`,
    `measured_I=${fixed(clamp(m.integrated, -99, 0))}`,
    `measured_TP=${fixed(clamp(m.truePeak, -99, 99))}`,
    `measured_LRA=${fixed(clamp(m.range, 0, 99))}`,
    `measured_thresh=${fixed(clamp(m.threshold, -99, 0))}`,
    `offset=${fixed(clamp(measured.offset ?? 0, -99, 99))}`,
    "linear=true",
    "print_format=json",
  ].join(":");
}

/** The second pass: the picture copied, the first sound stream normalised into 48 kHz stereo AAC. */
export function normaliseArgs(
  inFile: string,
  outFile: string,
  t: LoudnessTarget,
  measured: LoudnormReport,
  video: boolean,
): string[] {
  return [
    "-i",
    inFile,
    ...(video ? ["-map", "0:v:0", "-c:v", "copy"] : ["-vn"]),
    "-map",
    "0:a:0",
    "-af",
    normaliseFilter(t, measured),
    // loudnorm works at 192 kHz: brought back to the cut's rate.
    ...aacArgs(),
    "-sn",
    "-dn",
    "-movflags",
    "+faststart",
    outFile,
  ];
}

/** loudnorm's JSON from the end of ffmpeg's log; rejects when the log holds none. */
export function parseLoudnorm(log: string): LoudnormReport {
  const at = log.lastIndexOf("Parsed_loudnorm");
  const open = log.indexOf("{", at < 0 ? 0 : at);
  const close = log.indexOf("}", open);
  if (at < 0 || open < 0 || close < 0) throw new Error("loudness: ffmpeg printed no loudnorm report");
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(log.slice(open, close + 1)) as Record<string, unknown>;
  } catch {
    throw new Error("loudness: ffmpeg's loudnorm report is not JSON");
  }
  const n = (key: string): number | null => {
    const v = Number.parseFloat(String(data[key] ?? ""));
    return Number.isFinite(v) ? v : null;
  };
  const figures = (side: "input" | "output"): LoudnessFigures => ({
    integrated: n(`${side}_i`),
    truePeak: n(`${side}_tp`),
    range: n(`${side}_lra`),
    threshold: n(`${side}_thresh`),
  });
  const type = String(data.normalization_type ?? "").toLowerCase();
  return {
    input: figures("input"),
    output: figures("output"),
    type: type === "linear" || type === "dynamic" ? type : null,
    offset: n("target_offset"),
  };
}

export interface LoudnessHooks {
  signal?: AbortSignal;
  /** Fraction done (0..1) and what is happening, for a person. */
  progress?(update: { progress: number; step: string }): void;
}

export interface Normalised {
  target: LoudnessTarget;
  /** The input as the first pass measured it. */
  input: LoudnessFigures;
  /** The written file as measured again. */
  output: LoudnessFigures;
  /** How loudnorm applied the gain. */
  type: "linear" | "dynamic" | null;
  ms: number;
}

/** Measure `file`'s first sound stream (a whole decode of the sound; the picture is not read). */
export async function measureLoudness(
  media: MediaTools,
  file: string,
  hooks: LoudnessHooks = {},
  span: [number, number, string] = [0, 1, "measuring loudness"],
  seconds = 0,
): Promise<LoudnormReport> {
  const [from, to, step] = span;
  const report = await runFfmpeg(measureArgs(file, LOUDNESS_DEFAULT), {
    media,
    signal: hooks.signal,
    onProgress: (s) =>
      hooks.progress?.({ progress: from + (to - from) * (seconds > 0 ? Math.min(1, s / seconds) : 0), step }),
  });
  return parseLoudnorm(report.log);
}

/**
 * Write `outFile` as `inFile` with its sound brought to `target` (picture copied), and answer the measures before
 * and after. A silent or sound-less input, or a bad target, rejects with why; a failed or canceled run leaves no
 * output behind.
 */
export async function normaliseLoudness(
  services: { readonly media: MediaTools },
  inFile: string,
  outFile: string,
  target: LoudnessTarget = LOUDNESS_DEFAULT,
  hooks: LoudnessHooks = {},
): Promise<Normalised> {
  const problem = loudnessProblem(target);
  if (problem) throw new Error(`loudness: ${problem}`);
  const started = Date.now();
  const info = await probeClip(services, inFile);
  if (!info.audio) throw new Error(`loudness: ${inFile} has no sound to normalise`);
  const seconds = info.duration ?? 0;
  const media = services.media;
  const first = await measureLoudness(media, inFile, hooks, [0, 0.3, "measuring loudness"], seconds);
  if (first.input.integrated === null)
    throw new Error("loudness: the sound is silent, there is nothing to normalise");
  const step = "normalising loudness";
  try {
    const second = await runFfmpeg(normaliseArgs(inFile, outFile, target, first, info.video !== null), {
      media,
      signal: hooks.signal,
      onProgress: (s) =>
        hooks.progress?.({ progress: 0.3 + 0.5 * (seconds > 0 ? Math.min(1, s / seconds) : 0), step }),
    });
    const again = await measureLoudness(media, outFile, hooks, [0.8, 1, "measuring the result"], seconds);
    hooks.progress?.({ progress: 1, step: "loudness done" });
    const type = parseLoudnorm(second.log).type;
    return { target, input: first.input, output: again.input, type, ms: Date.now() - started };
  } catch (err) {
    await rm(outFile, { force: true });
    throw err;
  }
}
