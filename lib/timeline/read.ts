// Reading what a timeline export needs: the pass's build and cut, the takes each entry plays (chosen and planned
// exactly as assembling would), each file's length and streams, and the episode's recorded track. Writes nothing.
import path from "node:path";
import { probeOrWhy, readCutShots } from "../assemble/cut-read.ts";
import { chooseClips, filesToProbe, planAssembly } from "../assemble/plan.ts";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { type CutEntry, episodeName } from "../episode/cut.ts";
import { type Build, readBuild } from "../episode/shotlists.ts";
import { conflict } from "../errors.ts";
import type { ClipInfo } from "../media/clip-probe.ts";
import { mediaTools } from "../media/ffmpeg.ts";
import { fileInside, showFence } from "../paths/guarded.ts";
import { num } from "../store/json-guards.ts";
import { mapLimit } from "../store/map-limit.ts";
import { playedVersion } from "../upscale/versions.ts";
import { type EpisodeTrack, placeTimeline, type Timeline } from "./model.ts";

export type TimelineServices = Pick<Services, "caches" | "media" | "env" | "home">;

const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v > 0;
const even = (n: number) => Math.max(2, Math.floor(n / 2) * 2);

/**
 * The pass's cut as a timeline. 409 when the pass is not built or when no shot of the cut can play; shots
 * without a usable take are left out and named in the timeline's notes (as `partial` assembling leaves them out).
 * `upscaled`: each clip's source is its take's fresh post, else its fresh upscale, else the take itself (noted).
 */
export async function readTimeline(
  services: TimelineServices,
  ep: string,
  pass: Pass,
  opts: { upscaled?: boolean } = {},
): Promise<Timeline> {
  const build = await readBuild(services, ep, pass);
  if (!build) throw conflict(`the ${pass} pass has not been built yet: build the episode first`);
  await mediaTools(services.media);
  const { defaults: d, fps, cut, shots } = await readCutShots(services, ep, pass, build);
  const chosen = chooseClips(ep, pass, shots);
  const versionNotes: string[] = [];
  let upscaledFile: string | null = null;
  const choices = opts.upscaled
    ? await mapLimit(chosen, 8, async (c) => {
        if (c.kind !== "clip") return c;
        const v = await playedVersion(services, ep, c.pass, c.shot, c.take, {
          upscaled: true,
          post: "present",
        });
        if (v.kind === "take" || !v.file) {
          versionNotes.push(`${c.shot} plays ${v.why}`);
          return c;
        }
        upscaledFile ??= v.file;
        return { ...c, file: v.file };
      })
    : chosen;
  const files = filesToProbe(choices);
  // Every file is probed (a wav too): the timeline needs each sound's length, not only its format.
  const found = await mapLimit(files, 4, (file) => probeOrWhy(services, file));
  const probes = new Map(files.map((f, i) => [f, found[i]]));
  const first = found.find((x): x is ClipInfo => typeof x !== "string" && x.video !== null);
  // An upscaled timeline is as large as its versions: the first one played sets the size.
  const upscaled = upscaledFile ? probes.get(upscaledFile) : undefined;
  const size =
    upscaled && typeof upscaled !== "string" && upscaled.video
      ? { width: even(upscaled.video.width), height: even(upscaled.video.height) }
      : isNum(d.width) && isNum(d.height)
        ? { width: even(d.width), height: even(d.height) }
        : first?.video
          ? { width: even(first.video.width), height: even(first.video.height) }
          : { width: 0, height: 0 };
  const plan = planAssembly(choices, probes, { fps, ...size });
  if (plan.clips.length === 0) {
    const why = plan.missing.length
      ? `: ${plan.missing.map((r) => `${r.shot} (${r.why})`).join(", ")}`
      : " (every shot is left out)";
    throw conflict(`nothing to export: no shot of the ${pass} cut has a usable take${why}`);
  }
  const soundSeconds = new Map<string, number | null>();
  const pictureAudio = new Map<string, boolean>();
  const pictureSize = new Map<string, { width: number; height: number }>();
  for (const [file, info] of probes) {
    if (typeof info === "string") continue;
    soundSeconds.set(file, info.duration ?? info.video?.duration ?? null);
    pictureAudio.set(file, info.audio !== null);
    if (info.video) pictureSize.set(file, { width: info.video.width, height: info.video.height });
  }
  const entries = new Map<string, CutEntry>(cut.map((e) => [e.shot, e]));
  const trackPath = typeof d.master_track === "string" ? d.master_track.trim() : "";
  const track = trackPath ? await readTrack(services, ep, trackPath, build.shots) : null;
  const name = await episodeName(services, ep);
  const timeline = placeTimeline({
    name,
    pass,
    choices,
    plan,
    entries,
    soundSeconds,
    pictureAudio,
    pictureSize,
    track,
  });
  for (const text of versionNotes) timeline.notes.push({ at: 0, text });
  timeline.notes.sort((a, b) => a.at - b.at);
  return timeline;
}

/** The recording the series config names (`audio.track`), with each built shot's window into it. */
async function readTrack(
  services: TimelineServices,
  ep: string,
  trackPath: string,
  shots: Build["shots"],
): Promise<EpisodeTrack> {
  const file = path.resolve(ep, ...trackPath.split(/[\\/]/));
  const windows = new Map<string, { in: number; out: number }>();
  for (const [id, s] of shots) {
    const a = num(s.entry.audio_in);
    const b = num(s.entry.audio_out);
    if (a !== null && b !== null && b > a) windows.set(id, { in: a, out: b });
  }
  // The track may sit in the show folder above the episode (a shared recording), never further out.
  const real = await fileInside(showFence(ep), file);
  if (real === null) return { file, path: trackPath, seconds: "the file is missing", windows };
  const info = await probeOrWhy(services, real);
  const seconds =
    typeof info === "string"
      ? info
      : !info.audio
        ? "it has no sound"
        : (info.duration ?? "its length cannot be read");
  return { file: real, path: trackPath, seconds, windows };
}
