// Keyframe cuts: one exact frame (by decode index) of a neighbour shot's video take becomes a new take of the shot's
// keyframe reference (`source: frame`), picked when asked or when nothing is live yet. The neighbour defaults to
// the shot before it in the pass's cut (for the first frame) or after it (for the last), the take to the one the
// cut plays. Also the frame cutter tours use.
import { stat } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { type CutEntry, readCutList } from "../episode/cut.ts";
import { cutPick, folderTakes } from "../episode/cut-view.ts";
import type { Build } from "../episode/shotlists.ts";
import { readBuild } from "../episode/shotlists.ts";
import { hashFile } from "../episode/staleness.ts";
import { shotFolder, type TakeRecord, takeUsable } from "../episode/takes.ts";
import { badRequest, conflict, notFound, StudioError } from "../errors.ts";
import { countFrames, mediaTools, runFfmpeg } from "../media/ffmpeg.ts";
import type { MediaTools } from "../media/tools.ts";
import { episodeFence, guardPath, statShowOrNull } from "../paths/guarded.ts";
import { errorMessage } from "../store/json-guards.ts";
import { type KeyframeEnd, parseRefId } from "./ids.ts";
import { MAX_NOTE } from "./import.ts";
import { type LiveRef, pickTake } from "./live.ts";
import { liveRefAt } from "./live-ref.ts";
import { liveFence, type RefsPlace } from "./place.ts";
import { addTake, type RefTake } from "./takes.ts";

/** A frame as a request names it: a 0-based decode index (negative counts from the end), `first` or `last`. */
export type FrameSpec = number | "first" | "last";

export const FRAME_RULE =
  'frame must be a whole number (0-based decode index; negative counts from the end), "first" or "last"';

/** The decode index `spec` names in a video of `frames` frames, or 400 when it lies outside. */
export function frameIndex(spec: FrameSpec, frames: number): number {
  if (spec === "first") return 0;
  if (spec === "last") return frames - 1;
  if (!Number.isSafeInteger(spec)) throw badRequest(FRAME_RULE);
  const index = spec < 0 ? frames + spec : spec;
  if (index < 0 || index >= frames) {
    throw badRequest(
      `frame ${spec} is outside the take: it has ${frames} frame${frames === 1 ? "" : "s"} (0 to ${frames - 1}, or -1 to -${frames})`,
    );
  }
  return index;
}

/** The ffmpeg arguments that write decode index `index` of `video` as the PNG `out` (exact, not a seek). */
export function frameCutArgs(video: string, index: number, out: string): string[] {
  return [
    "-i",
    video,
    "-map",
    "0:v:0",
    "-vf",
    `select=eq(n\\,${index})`,
    "-frames:v",
    "1",
    "-f",
    "image2",
    "-c:v",
    "png",
    out,
  ];
}

/** Writes frame `index` of `video` to `out`; a video with fewer frames leaves nothing, which is an error here. */
export async function cutFrame(
  media: MediaTools,
  video: string,
  index: number,
  out: string,
  signal?: AbortSignal,
): Promise<void> {
  await runFfmpeg(frameCutArgs(video, index, out), { media, signal });
  const st = await stat(out).catch(() => null);
  if (!st || st.size === 0) throw new Error(`frame ${index} of ${path.basename(video)} could not be cut`);
}

/** The cut entry after `shot` (orphans and `out` entries skipped), or null when it ends the cut. */
export function nextInCut(cut: readonly CutEntry[], build: Build, shot: string): CutEntry | null {
  const at = cut.findIndex((e) => e.shot === shot);
  if (at < 0) return null;
  for (let i = at + 1; i < cut.length; i++) {
    const e = cut[i];
    if (build.shots.has(e.shot) && !e.out) return e;
  }
  return null;
}

export function previousInCut(cut: readonly CutEntry[], build: Build, shot: string): CutEntry | null {
  const at = cut.findIndex((e) => e.shot === shot);
  for (let i = at - 1; i >= 0; i--) {
    const e = cut[i];
    if (build.shots.has(e.shot) && !e.out) return e;
  }
  return null;
}

export interface KeyframeCutRequest {
  pass: Pass;
  shot: string;
  which: KeyframeEnd;
  sourceShot?: string | null;
  sourceTake?: number | null;
  frame?: FrameSpec | null;
  /** true: always pick; false: never; null: only when nothing is live. */
  pick?: boolean | null;
  note?: string | null;
}

export interface KeyframeCut {
  place: RefsPlace;
  live: LiveRef;
  take: RefTake;
  picked: boolean;
}

type CutServices = Pick<
  Services,
  "home" | "env" | "caches" | "locks" | "now" | "events" | "media" | "targets"
>;

const two = (n: number) => String(n).padStart(2, "0");

/** The source video: the take asked for, else the one the cut plays, else the newest usable one. */
async function sourceOf(
  services: CutServices,
  ep: string,
  req: KeyframeCutRequest,
  cut: readonly CutEntry[],
  sourceShot: string,
): Promise<{ take: TakeRecord; pass: Pass }> {
  const entry = cut.find((e) => e.shot === sourceShot);
  const pass = entry?.pass ?? req.pass;
  if (req.sourceTake != null) {
    const takes = await folderTakes(services, ep, req.pass, sourceShot);
    const t = takes.find((x) => x.take === req.sourceTake);
    if (!t) throw notFound(`${sourceShot} has no take ${req.sourceTake} in the ${req.pass} pass`);
    if (!takeUsable(t))
      throw conflict(`${sourceShot} t${two(t.take)} is not usable: it has no finished video`);
    return { take: t, pass: req.pass };
  }
  const takes = await folderTakes(services, ep, pass, sourceShot);
  if (entry) {
    const pick = cutPick(entry, req.pass, takes);
    if (entry.take !== undefined && !pick.usable) {
      throw conflict(
        `${sourceShot}'s take in the cut (t${two(entry.take)}) is not usable: pick a finished take or name source_take`,
      );
    }
    if (pick.take && pick.usable) return { take: pick.take, pass: pick.pass };
  }
  for (let i = takes.length - 1; i >= 0; i--) if (takeUsable(takes[i])) return { take: takes[i], pass };
  throw conflict(`${sourceShot} has no usable take in the ${pass} pass to cut a frame from`);
}

/** Cuts the frame, adds it as a take of `shot:<shot>:<which>`, picks it as asked; events as the contract orders. */
export async function cutKeyframe(
  services: CutServices,
  ep: string,
  req: KeyframeCutRequest,
): Promise<KeyframeCut> {
  const note = req.note?.trim() ?? "";
  if (note.length > MAX_NOTE) throw badRequest(`note is ${note.length} characters; at most ${MAX_NOTE}`);
  const build = await readBuild(services, ep, req.pass);
  if (!build) throw notFound(`the ${req.pass} pass has no build: build the episode first`);
  if (!build.shots.has(req.shot)) throw notFound(`${req.shot} is in no build of the ${req.pass} pass`);
  const cut = await readCutList(services, ep, req.pass);
  let sourceShot = req.sourceShot ?? null;
  if (sourceShot === null) {
    const neighbour =
      req.which === "first" ? previousInCut(cut, build, req.shot) : nextInCut(cut, build, req.shot);
    if (!neighbour) {
      throw badRequest(
        req.which === "first"
          ? `${req.shot} opens the ${req.pass} cut: no shot before it to take a first frame from (name source_shot)`
          : `${req.shot} ends the ${req.pass} cut: no shot after it to take a last frame from (name source_shot)`,
      );
    }
    sourceShot = neighbour.shot;
  } else if (!build.shots.has(sourceShot)) {
    throw notFound(`${sourceShot} is in no build of the ${req.pass} pass`);
  }
  const { take: source, pass: sourcePass } = await sourceOf(services, ep, req, cut, sourceShot);
  // No media tools is a 500 before anything is written.
  await mediaTools(services.media);
  const fence = episodeFence(ep);
  const video = await guardPath(
    fence,
    path.join(shotFolder(ep, sourcePass, sourceShot), `${source.stem}.mp4`),
  );
  const unreadable = (err: unknown) =>
    err instanceof StudioError
      ? err
      : conflict(
          `${sourceShot} t${two(source.take)}'s video could not be read: ${errorMessage(err).split("\n")[0].slice(0, 300)}`,
        );
  const frames = await countFrames(video, services.media).catch((err) => {
    throw unreadable(err);
  });
  if (frames < 1) throw unreadable(new Error("it holds no frames"));
  const index = frameIndex(req.frame ?? (req.which === "first" ? "last" : "first"), frames);
  const sha1 = await hashFile(fence, video);

  const { place, live } = await liveRefAt(services, ep, `shot:${req.shot}:${req.which}`);
  const ref = parseRefId(live.ref.id);
  const fields: Record<string, unknown> = {
    source: "frame",
    source_shot: sourceShot,
    source_take: source.take,
    source_pass: sourcePass,
    source_frame: index,
    source_frames: frames,
    source_mp4: path.relative(ep, video).split(path.sep).join("/"),
    ...(sha1 ? { source_sha1: sha1 } : {}),
    ...(note ? { note } : {}),
  };
  const take = await addTake(services, place, ref, {
    view: null,
    ext: "png",
    write: async (tmp) => {
      await cutFrame(services.media, video, index, tmp).catch((err) => {
        throw unreadable(err);
      });
      Object.assign(fields, await pictureSize(tmp));
    },
    fields,
  });
  services.events.emit("studio.ref", { ep, ref: ref.id, view: null, take: take.take, status: take.status });
  const liveExists = (await statShowOrNull(await liveFence(place), live.file).catch(() => null)) !== null;
  const pick = req.pick === true || (req.pick == null && !liveExists);
  if (pick) {
    // pickTake sends `picked`, then the episode.
    await pickTake(services, place, live, null, take.take);
  } else {
    services.events.emit("studio.episode", { ep });
  }
  return { place, live, take, picked: pick };
}

/** A picture's width and height, as its header says. */
export async function pictureSize(file: string): Promise<{ width?: number; height?: number }> {
  const meta = await sharp(file)
    .metadata()
    .catch(() => null);
  return meta?.width && meta.height ? { width: meta.width, height: meta.height } : {};
}
