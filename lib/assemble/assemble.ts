// Assembling a pass's cut into one mp4: the plan (plan.ts), then only the clips that
// need it re-encoded into a temp folder, then one join that copies every picture stream and lays one sound
// track, written under a temp name and renamed into `renders[_proxy]/<ep>[_proxy].mp4` with its `_shots.txt`.
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { episodeName } from "../episode/cut.ts";
import { readBuild } from "../episode/shotlists.ts";
import { passFolder, safeShot } from "../episode/takes.ts";
import { badRequest } from "../errors.ts";
import {
  clipSamples,
  concatList,
  type EncodeEffort,
  fpsText,
  joinArgs,
  reencodeArgs,
  type SoundPart,
  soundGraph,
} from "../media/assemble-args.ts";
import { type ClipInfo, probeClip } from "../media/clip-probe.ts";
import { mediaTools, runFfmpeg } from "../media/ffmpeg.ts";
import { episodeFence, mkdirShow, statShowOrNull } from "../paths/guarded.ts";
import { writeFileAtomic } from "../store/atomic.ts";
import { withLock } from "../store/lock.ts";
import { mapLimit } from "../store/map-limit.ts";
import { assembleWorkPath, tempPath } from "../store/temp-names.ts";
import { probeOrWhy, readCutShots } from "./cut-read.ts";
import {
  type CutFormat,
  chooseClips,
  filesToProbe,
  type PlannedClip,
  planAssembly,
  type ReportRow,
} from "./plan.ts";

export interface AssembleOptions {
  /** Assemble what is usable and list the rest, instead of refusing. */
  partial?: boolean;
  /** The cut's size; default the pass's size from the series target's shot list. */
  size?: { width: number; height: number } | null;
  /**
   * The version of each take that plays (an upscaled cut, a master): its file instead of the take's mp4. Without
   * it every clip plays its take. With it and no `size`, the first upscale or post found sets the cut's size.
   */
  play?: (clip: { shot: string; take: number; pass: Pass; file: string }) => Promise<PlayedVersion>;
  /** Where the mp4 and its shot list go, episode-relative; default the pass's cut names. */
  names?: { mp4: string; shots: string };
  /** How hard re-encodes work; default by pass. */
  effort?: EncodeEffort;
}

/** The file a clip plays and what it is. */
export interface PlayedVersion {
  file: string;
  kind: "take" | "upscale" | "post";
  /** For a person: "its upscale", "its take (no fresh upscale)". */
  why: string;
}

export interface AssembleHooks {
  signal?: AbortSignal;
  /** Fraction done (0..1) and what is happening, for a person. */
  progress?(update: { progress: number; step: string }): void;
}

export interface AssembleReport {
  pass: Pass;
  fps: number;
  width: number;
  height: number;
  /** Where the size came from: the request's `size`, the pass's shot list, or the first clip. */
  size_from: "request" | "pass" | "clip";
  /** Clips joined, frames and seconds of the output (0 when nothing was written). */
  clips: number;
  frames: number;
  seconds: number;
  /** Clips whose picture stream was copied as it is, and those re-encoded. */
  copied: number;
  reencoded: number;
  /** Shots of the cut without a usable take, and those left out (`out` or no longer in the script). */
  missing: string[];
  out: string[];
  /** With played versions: the shots that played their take (scaled up to the cut's size) for want of one. */
  scaled_up?: string[];
  /** The `_shots.txt` list beside the output, episode-relative (null when nothing was written). */
  shots_file: string | null;
  /** One row per cut entry, in cut order. */
  rows: ReportRow[];
}

export interface AssembleAnswer {
  ok: boolean;
  /** The assembled mp4 (the published one when publishing), episode-relative; null when nothing was written. */
  output: string | null;
  report: AssembleReport;
  error?: string;
  /** Publishing: the assembled cut, and the published file (null when publishing failed). */
  cut?: string | null;
  published?: string | null;
}

const SIZE_MIN = 16;
const SIZE_MAX = 8192;

/** `WxH` with even sides within 16..8192, or a 400 saying what is wrong. */
export function parseSize(text: string): { width: number; height: number } {
  const m = /^\s*(\d+)\s*[xX×]\s*(\d+)\s*$/.exec(text);
  if (!m) throw badRequest(`size: "${text}" is not WxH (for example 1344x768)`);
  const width = Number(m[1]);
  const height = Number(m[2]);
  for (const side of [width, height]) {
    if (side < SIZE_MIN || side > SIZE_MAX)
      throw badRequest(`size: ${width}x${height}: each side must be between ${SIZE_MIN} and ${SIZE_MAX}`);
    if (side % 2) throw badRequest(`size: ${width}x${height}: both sides must be even (H.264 needs it)`);
  }
  return { width, height };
}

/** The proxy cut is for timing and review: encoded fast; the final cut keeps more of the picture. */
export function encodeEffort(pass: Pass): EncodeEffort {
  return pass === "final" ? "full" : "draft";
}

/** Where a pass's assembled cut (or its upscaled cut: `_up`) and its shot list go, episode-relative. */
export function assembledNames(name: string, pass: Pass, upscaled = false): { mp4: string; shots: string } {
  const base = `${passFolder(pass)}/${safeShot(name)}${pass === "proxy" ? "_proxy" : ""}${upscaled ? "_up" : ""}`;
  return { mp4: `${base}.mp4`, shots: `${base}_shots.txt` };
}

/** The pass's cut as assembling last wrote it (episode-relative paths and when), or null when there is none. */
export async function lastAssembled(
  services: Services,
  ep: string,
  pass: Pass,
): Promise<{ output: string; shots_file: string | null; modified: string } | null> {
  const names = assembledNames(await episodeName(services, ep), pass);
  const fence = episodeFence(ep);
  const mp4 = await statShowOrNull(fence, path.join(ep, ...names.mp4.split("/")));
  if (!mp4?.isFile()) return null;
  const shots = await statShowOrNull(fence, path.join(ep, ...names.shots.split("/")));
  return {
    output: names.mp4,
    shots_file: shots?.isFile() ? names.shots : null,
    modified: mp4.mtime.toISOString(),
  };
}

const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v > 0;
const even = (n: number) => Math.max(2, Math.floor(n / 2) * 2);

/**
 * Assemble `pass`'s cut of `ep`. Answers `ok: false` with the reason (and the report) when the cut cannot be
 * assembled; throws only for what a person must fix on the machine (no media tools: 500) or a cancel.
 */
export function assembleEpisode(
  services: Pick<Services, "env" | "now" | "caches" | "locks" | "media" | "home">,
  ep: string,
  pass: Pass,
  opts: AssembleOptions = {},
  hooks: AssembleHooks = {},
): Promise<AssembleAnswer> {
  // One assembly of an episode at a time in this process: two would race for the same output names.
  return withLock(services, `assemble\0${ep}`, () => assemble(services, ep, pass, opts, hooks));
}

async function assemble(
  services: Pick<Services, "env" | "now" | "caches" | "locks" | "media" | "home">,
  ep: string,
  pass: Pass,
  opts: AssembleOptions,
  hooks: AssembleHooks,
): Promise<AssembleAnswer> {
  const progress = (p: number, step: string) => hooks.progress?.({ progress: Math.min(1, p), step });
  progress(0, "reading the cut");
  const build = await readBuild(services, ep, pass);
  const blank = (fps: number, width: number, height: number): AssembleReport => ({
    pass,
    fps,
    width,
    height,
    size_from: opts.size ? "request" : "pass",
    clips: 0,
    frames: 0,
    seconds: 0,
    copied: 0,
    reencoded: 0,
    missing: [],
    out: [],
    shots_file: null,
    rows: [],
  });
  if (!build) {
    return {
      ok: false,
      output: null,
      report: blank(0, opts.size?.width ?? 0, opts.size?.height ?? 0),
      error: `the ${pass} pass has not been built yet: build the episode first`,
    };
  }
  await mediaTools(services.media);

  const { defaults: d, fps, shots } = await readCutShots(services, ep, pass, build);
  const chosen = chooseClips(ep, pass, shots);
  const played = new Map<string, PlayedVersion>();
  const play = opts.play;
  const choices = play
    ? await mapLimit(chosen, 8, async (c) => {
        if (c.kind !== "clip") return c;
        const v = await play(c);
        played.set(c.shot, v);
        return { ...c, file: v.file };
      })
    : chosen;
  const files = filesToProbe(choices);
  progress(0.02, `reading ${files.length} clip file(s)`);
  const found = await mapLimit(files, 4, (file) => probeOrWhy(services, file, { wavHeader: true }));
  const probes = new Map(files.map((f, i) => [f, found[i]]));

  let sizeFrom: AssembleReport["size_from"] = opts.size ? "request" : "pass";
  let size =
    opts.size ??
    (isNum(d.width) && isNum(d.height) ? { width: even(d.width), height: even(d.height) } : null);
  if (!opts.size && play) {
    // An upscaled cut is as large as its versions: the first one played sets the size.
    const version = choices.find((c) => c.kind === "clip" && played.get(c.shot)?.kind !== "take");
    const info = version?.kind === "clip" ? probes.get(version.file) : undefined;
    if (info && typeof info !== "string" && info.video) {
      size = { width: even(info.video.width), height: even(info.video.height) };
      sizeFrom = "clip";
    }
  }
  if (!size) {
    // No size in the shot list (an old build): the first clip's picture sets it.
    const first = found.find((x): x is ClipInfo => typeof x !== "string" && x.video !== null);
    size = first?.video
      ? { width: even(first.video.width), height: even(first.video.height) }
      : { width: 0, height: 0 };
    sizeFrom = "clip";
  }
  const format: CutFormat = { fps, width: size.width, height: size.height };
  const plan = planAssembly(choices, probes, format);
  const report: AssembleReport = {
    ...blank(fps, format.width, format.height),
    size_from: sizeFrom,
    missing: plan.missing.map((r) => r.shot),
    out: plan.rows.filter((r) => r.status === "out").map((r) => r.shot),
    rows: plan.rows,
  };
  if (play) {
    report.scaled_up = [];
    for (const row of plan.rows) {
      const v = played.get(row.shot);
      if (row.status !== "used" || !v) continue;
      row.why = `${v.why}; ${row.why}`;
      if (v.kind === "take") report.scaled_up.push(row.shot);
    }
  }
  if (plan.missing.length && !opts.partial) {
    const list = plan.missing.map((r) => `${r.shot} (${r.why})`).join(", ");
    const n = plan.missing.length;
    return {
      ok: false,
      output: null,
      report,
      error: `${n} shot${n > 1 ? "s" : ""} of the cut ${n > 1 ? "have" : "has"} no usable take: ${list}. Render ${n > 1 ? "them" : "it"}, or assemble with partial to leave ${n > 1 ? "them" : "it"} out`,
    };
  }
  if (plan.clips.length === 0) {
    return {
      ok: false,
      output: null,
      report,
      error: `nothing to assemble: no shot of the ${pass} cut has a usable take`,
    };
  }

  const name = await episodeName(services, ep);
  const names = opts.names ?? assembledNames(name, pass);
  const outDir = path.dirname(path.join(ep, names.mp4));
  // The output folder must really lie inside the episode (renders_proxy may be a link leading out).
  await mkdirShow(episodeFence(ep), outDir);
  const work = assembleWorkPath(outDir);
  await mkdir(work);
  const tmpOut = tempPath(path.join(outDir, path.basename(names.mp4)));
  try {
    const effort = opts.effort ?? encodeEffort(pass);
    const parts = await prepareClips(services, plan.clips, format, effort, work, hooks, progress);
    const total = parts.reduce((s, p) => s + p.frames, 0);
    const samples = clipSamples(
      parts.map((p) => p.frames),
      fps,
    );
    const sound: SoundPart[] = parts.map((p, k) => ({
      sound: p.clip.sound,
      from: p.clip.trimIn / fps,
      samples: samples[k],
    }));
    const listFile = path.join(work, "clips.ffconcat");
    const graphFile = path.join(work, "sound.graph");
    await writeFile(listFile, concatList(parts, fps));
    await writeFile(graphFile, soundGraph(sound));
    const seconds = total / fps;
    const joinFrom = reencodeShare(parts.filter((p) => p.reencoded).length);
    const step = `joining ${parts.length} clip${parts.length > 1 ? "s" : ""}`;
    progress(joinFrom, step);
    await runFfmpeg(joinArgs({ listFile, graphFile, out: tmpOut, effort }), {
      media: services.media,
      signal: hooks.signal,
      onProgress: (s) => progress(joinFrom + (0.98 - joinFrom) * Math.min(1, s / (seconds || 1)), step),
    });
    await rename(tmpOut, path.join(ep, names.mp4));

    const usedRows = report.rows.filter((r) => r.status === "used");
    parts.forEach((p, k) => {
      usedRows[k].frames = p.frames;
    });
    Object.assign(report, {
      clips: parts.length,
      frames: total,
      seconds: Math.round(seconds * 1000) / 1000,
      copied: parts.filter((p) => !p.reencoded).length,
      reencoded: parts.filter((p) => p.reencoded).length,
      shots_file: names.shots,
    });
    await writeFileAtomic(path.join(ep, names.shots), shotsText(name, report, services.now()));
    progress(1, "done");
    return { ok: true, output: names.mp4, report };
  } catch (err) {
    if (hooks.signal?.aborted) throw err;
    return { ok: false, output: null, report, error: `the assembly failed: ${firstLines(err)}` };
  } finally {
    await rm(work, { recursive: true, force: true });
    await rm(tmpOut, { force: true });
  }
}

interface Part {
  clip: PlannedClip;
  /** The file the join reads: the take itself, or its re-encode. */
  file: string;
  frames: number;
  reencoded: boolean;
}

/** Re-encodes running at once: short clips spend most of their time starting ffmpeg, long ones use every core. */
const REENCODE_AT_ONCE = Math.min(4, Math.max(2, Math.floor(os.availableParallelism() / 2)));

/** Where the re-encodes end on the progress scale; the join takes the rest. */
const reencodeShare = (todo: number) => 0.05 + (0.85 * todo) / (todo + 1);

/**
 * Re-encode the clips that need it into `work`, a few at a time; the first failure stops the others (and is
 * waited for, so nothing still writes into `work` when the caller removes it).
 */
async function prepareClips(
  services: Pick<Services, "caches" | "media">,
  clips: readonly PlannedClip[],
  format: CutFormat,
  effort: EncodeEffort,
  work: string,
  hooks: AssembleHooks,
  progress: (p: number, step: string) => void,
): Promise<Part[]> {
  // Re-encodes take the copied clips' timescale, so every piece of the join counts time the same way.
  const scales = new Map<number, number>();
  for (const c of clips)
    if (!c.reencode.length && c.timescale) scales.set(c.timescale, (scales.get(c.timescale) ?? 0) + 1);
  const timescale = [...scales.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  const parts: Part[] = clips.map((clip) => ({
    clip,
    file: clip.file,
    frames: clip.frames,
    reencoded: false,
  }));
  const todo = parts.map((p, i) => ({ p, i })).filter(({ p }) => p.clip.reencode.length > 0);
  if (todo.length === 0) return parts;

  const stop = new AbortController();
  const onAbort = () => stop.abort();
  hooks.signal?.addEventListener("abort", onAbort, { once: true });
  const share = reencodeShare(todo.length);
  const done = new Array<number>(todo.length).fill(0);
  const report = (step: string) =>
    progress(0.05 + ((share - 0.05) * done.reduce((a, b) => a + b, 0)) / todo.length, step);
  let next = 0;
  let failure: unknown = null;
  const worker = async () => {
    while (next < todo.length && !stop.signal.aborted) {
      const k = next++;
      const { p, i } = todo[k];
      const clip = p.clip;
      const out = path.join(work, `${String(i).padStart(5, "0")}.mp4`);
      const step = `re-encoding ${clip.shot} (${k + 1} of ${todo.length}): ${clip.reencode.join(", ")}`;
      report(step);
      try {
        const o = { width: format.width, height: format.height, fps: format.fps, effort, timescale, out };
        await runFfmpeg(reencodeArgs(clip, o), {
          media: services.media,
          signal: stop.signal,
          onProgress: (sec) => {
            done[k] = Math.min(1, (sec * format.fps) / clip.frames);
            report(step);
          },
        });
        // A rate conversion may round to a frame more or less: the join places each clip by its real length.
        const converted = clip.convertedFrames !== clip.srcFrames;
        const frames = converted ? ((await probeClip(services, out)).video?.frames ?? 0) : clip.frames;
        if (frames <= 0) throw new Error(`re-encoding ${clip.shot} made no frame`);
        Object.assign(p, { file: out, frames, reencoded: true });
        done[k] = 1;
      } catch (err) {
        if (failure === null) failure = err;
        stop.abort();
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(REENCODE_AT_ONCE, todo.length) }, worker));
  } finally {
    hooks.signal?.removeEventListener("abort", onAbort);
  }
  if (failure !== null) throw failure;
  hooks.signal?.throwIfAborted();
  return parts;
}

/** The `_shots.txt` beside the output: what was joined, in order, for a person. */
function shotsText(name: string, r: AssembleReport, now: Date): string {
  const lines = [
    `# ${name} ${r.pass} cut: ${r.clips} clip(s), ${r.frames} frames at ${fpsText(r.fps)} fps (${r.seconds} s), ${r.width}x${r.height}`,
    `# assembled ${now.toISOString()}; ${r.copied} copied, ${r.reencoded} re-encoded`,
  ];
  for (const row of r.rows) {
    const take = row.take !== null ? `t${String(row.take).padStart(2, "0")}` : "-";
    if (row.status === "used")
      lines.push(`${row.shot}\t${take}\t${row.pass}\t${row.frames} frames\t${row.why}`);
    else lines.push(`# ${row.status}: ${row.shot}\t${take}\t${row.pass}\t${row.why}`);
  }
  return `${lines.join("\n")}\n`;
}

function firstLines(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n").slice(0, 4).join(" / ");
}
