// A frame of a video becoming a reference candidate: an exact frame (by decode index) of a shot's video take, or of
// a video kept in the show's `refs/_videos/` at a time, is added as a take with `source: frame` (a character's
// three-quarter view unless another is named), picked as asked.
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { folderTakes } from "../episode/cut-view.ts";
import { readBuild } from "../episode/shotlists.ts";
import { hashFile } from "../episode/staleness.ts";
import { shotFolder, takeUsable } from "../episode/takes.ts";
import { badRequest, conflict, notFound, StudioError } from "../errors.ts";
import { countFrames, mediaTools, probe } from "../media/ffmpeg.ts";
import { episodeFence, type Fence, folderFence, guardPath, statShowOrNull } from "../paths/guarded.ts";
import { errorMessage, type JsonObject } from "../store/json-guards.ts";
import { type CatalogRef, catalogRef, readCatalog } from "./catalog.ts";
import { type CharacterView, isCharacterView, parseRefId, type RefView } from "./ids.ts";
import { MAX_NOTE } from "./import.ts";
import { cutFrame, type FrameSpec, frameIndex, pictureSize } from "./keyframe-cut.ts";
import { wireTake } from "./list-takes.ts";
import { pickTake } from "./live.ts";
import { liveRefOf } from "./live-ref.ts";
import { liveFence, type RefsPlace, refsPlace, videosDir } from "./place.ts";
import { addTake, type RefTake } from "./takes.ts";

/** Where the frame comes from: a shot's video take at a frame, or a kept video at a time. */
export type FrameSource =
  | { kind: "take"; pass: Pass; shot: string; take: number; frame: FrameSpec }
  | { kind: "video"; video: string; time: number };

export interface FromFrameRequest {
  source: FrameSource;
  ref: string;
  /** The view the frame becomes; null or left out: a character's three-quarter view, none for the rest. */
  view?: RefView | null;
  /** true: pick the frame; false: never; null: only when nothing is live. */
  pick?: boolean | null;
  note?: string | null;
}

export interface FrameCandidate {
  place: RefsPlace;
  c: CatalogRef;
  take: RefTake;
  picked: boolean;
}

type FrameServices = Pick<
  Services,
  "home" | "env" | "caches" | "locks" | "now" | "events" | "media" | "targets"
>;

const two = (n: number) => String(n).padStart(2, "0");

/** The view a frame of `c` lands in: a character's named view (three-quarter by default); no view for the rest. */
export function frameView(
  c: Pick<CatalogRef, "ref" | "kind" | "views">,
  view: RefView | null,
): RefView | null {
  const id = c.ref.id;
  if (c.kind === "voice") throw badRequest(`${id} is a voice: a frame cannot become a voice sample`);
  if (c.views.length > 0) {
    if (view === null) return "01_threequarter";
    if (!isCharacterView(view)) {
      throw badRequest(
        `a frame becomes one view of ${id}: 01_threequarter, 02_side, 03_back or 04_face (got ${view})`,
      );
    }
    return view;
  }
  if (view !== null) throw badRequest(`${id} has no views: leave view out (got ${view})`);
  return null;
}

/** The decode index at `time` seconds of a video of `frames` frames at `fps`, or 400 outside it. */
export function timeIndex(time: number, fps: number, frames: number, name: string): number {
  const index = Math.round(time * fps);
  if (!(time >= 0) || index >= frames) {
    const end = Math.round(((frames - 1) / fps) * 1000) / 1000;
    throw badRequest(
      `time ${time} is outside ${name}: it has ${frames} frame${frames === 1 ? "" : "s"} at ${Math.round(fps * 1000) / 1000} fps (0 to ${end} s)`,
    );
  }
  return index;
}

/**
 * The real path of a kept video named episode-relative (as GET /studio/refs/videos lists it): a file directly in
 * the series home's `refs/_videos/`, else 400; 404 when no such file is kept.
 */
export async function keptVideoPath(
  place: RefsPlace,
  video: string,
): Promise<{ file: string; fence: Fence }> {
  const dir = videosDir(place);
  const outside = () =>
    badRequest(
      `video must be a file kept in the show's refs/_videos/ (POST /studio/refs/video keeps one; GET /studio/refs/videos lists them), got ${JSON.stringify(video.slice(0, 200))}`,
    );
  if (
    !video ||
    video.includes("\0") ||
    video.includes("\\") ||
    path.isAbsolute(video) ||
    /^[A-Za-z]:/.test(video)
  )
    throw outside();
  const abs = path.resolve(place.ep, video);
  const rel = path.relative(dir, abs);
  if (!rel || rel.startsWith("..") || path.isAbsolute(rel) || rel.includes(path.sep) || rel.startsWith("."))
    throw outside();
  const fence = folderFence(dir, "the show's refs/_videos/");
  const st = await statShowOrNull(fence, abs).catch((err: unknown) => {
    if (err instanceof StudioError) throw outside();
    throw err;
  });
  if (!st?.isFile()) throw notFound(`no kept video ${JSON.stringify(video)} in refs/_videos/`);
  return { file: await guardPath(fence, abs), fence };
}

interface Cut {
  video: string;
  fence: Fence;
  index: number;
  fields: Record<string, unknown>;
}

/** The video, the frame index and the sidecar fields that say where the frame came from. */
async function locate(services: FrameServices, place: RefsPlace, source: FrameSource): Promise<Cut> {
  const ep = place.ep;
  const unreadable = (what: string, err: unknown) =>
    err instanceof StudioError
      ? err
      : conflict(`${what}'s video could not be read: ${errorMessage(err).split("\n")[0].slice(0, 300)}`);
  if (source.kind === "take") {
    const build = await readBuild(services, ep, source.pass);
    if (!build) throw notFound(`the ${source.pass} pass has no build: build the episode first`);
    if (!build.shots.has(source.shot))
      throw notFound(`${source.shot} is in no build of the ${source.pass} pass`);
    const takes = await folderTakes(services, ep, source.pass, source.shot);
    const t = takes.find((x) => x.take === source.take);
    const label = `${source.shot} t${two(source.take)}`;
    if (!t) throw notFound(`${source.shot} has no take ${source.take} in the ${source.pass} pass`);
    if (!takeUsable(t)) throw conflict(`${label} is not usable: it has no finished video`);
    await mediaTools(services.media);
    const fence = episodeFence(ep);
    const video = await guardPath(
      fence,
      path.join(shotFolder(ep, source.pass, source.shot), `${t.stem}.mp4`),
    );
    const frames = await countFrames(video, services.media).catch((err) => {
      throw unreadable(label, err);
    });
    if (frames < 1) throw unreadable(label, new Error("it holds no frames"));
    const index = frameIndex(source.frame, frames);
    const sha1 = await hashFile(fence, video);
    return {
      video,
      fence,
      index,
      fields: {
        source: "frame",
        source_shot: source.shot,
        source_take: source.take,
        source_pass: source.pass,
        source_frame: index,
        source_frames: frames,
        source_mp4: path.relative(ep, video).split(path.sep).join("/"),
        ...(sha1 ? { source_sha1: sha1 } : {}),
      },
    };
  }
  const { file, fence } = await keptVideoPath(place, source.video);
  await mediaTools(services.media);
  const name = path.basename(file);
  const [info, frames] = await Promise.all([
    probe(file, services.media),
    countFrames(file, services.media),
  ]).catch((err) => {
    throw unreadable(name, err);
  });
  if (frames < 1 || !info.video) throw unreadable(name, new Error("it holds no frames"));
  const fps =
    info.video.fps && info.video.fps > 0
      ? info.video.fps
      : info.duration && info.duration > 0
        ? frames / info.duration
        : 24;
  const index = timeIndex(source.time, fps, frames, name);
  const sha1 = await hashFile(fence, file);
  return {
    video: file,
    fence,
    index,
    fields: {
      source: "frame",
      source_video: path.relative(place.ep, file).split(path.sep).join("/"),
      source_time: source.time,
      source_frame: index,
      source_frames: frames,
      ...(sha1 ? { source_sha1: sha1 } : {}),
    },
  };
}

/** Cuts the frame into a new take of the reference, picked as asked; events `studio.ref` ok, `picked`, episode. */
export async function frameCandidate(
  services: FrameServices,
  epReal: string,
  req: FromFrameRequest,
): Promise<FrameCandidate> {
  const note = req.note?.trim() ?? "";
  if (note.length > MAX_NOTE) throw badRequest(`note is ${note.length} characters; at most ${MAX_NOTE}`);
  const id = parseRefId(req.ref);
  const place = await refsPlace(services, epReal);
  const c = catalogRef(await readCatalog(services, place), id.id);
  const view = frameView(c, req.view ?? null);
  const cut = await locate(services, place, req.source);
  const fields = { ...cut.fields, ...(note ? { note } : {}) };
  let take: RefTake;
  try {
    take = await addTake(services, place, c.ref, {
      view,
      ext: "png",
      write: async (tmp) => {
        await cutFrame(services.media, cut.video, cut.index, tmp);
        Object.assign(fields, await pictureSize(tmp));
      },
      fields,
    });
  } catch (err) {
    if (err instanceof StudioError) throw err;
    throw conflict(`frame ${cut.index} could not be cut: ${errorMessage(err).split("\n")[0].slice(0, 300)}`);
  }
  services.events.emit("studio.ref", {
    ep: epReal,
    ref: c.ref.id,
    view,
    take: take.take,
    status: take.status,
  });
  const live = await liveRefOf(place, c);
  const liveExists = (await statShowOrNull(await liveFence(place), live.file).catch(() => null)) !== null;
  const pick = req.pick === true || (req.pick == null && !liveExists);
  if (pick) {
    // pickTake sends `picked`, then the episode.
    await pickTake(services, place, live, view, take.take);
  } else {
    services.events.emit("studio.episode", { ep: epReal });
  }
  return { place, c, take, picked: pick };
}

/** The candidate as the listing shows a take (paths episode-relative). */
export function listedFrame(made: FrameCandidate): JsonObject {
  const rel = (abs: string) => path.relative(made.place.ep, abs).split(path.sep).join("/");
  return wireTake(made.take, rel);
}

/** The other views a character's frame leads to: those asked, else the three it is not. */
export function otherViews(made: CharacterView, asked: readonly CharacterView[] | null): CharacterView[] {
  const all: CharacterView[] = ["01_threequarter", "02_side", "03_back", "04_face"];
  return (asked ?? all).filter((v, i, list) => v !== made && list.indexOf(v) === i);
}
