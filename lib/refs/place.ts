// Where an episode's reference files live under the series-home rule: series references keep their candidates,
// picks and overrides under the folder that holds the series config in force, keyframes always in the episode;
// live files sit at the paths the config names, relative to the config's folder, and may climb out of the
// episode only where that config opens (the parent when the config is the parent's, else `../refs`, `../audio`).
import path from "node:path";
import type { Services } from "../context.ts";
import { type Fence, folderFence } from "../paths/guarded.ts";
import { realpathNearest } from "../paths/real.ts";
import { resolveInEpisode } from "../paths/relative.ts";
import { realRoots } from "../paths/roots.ts";
import { type SeriesHome, seriesHome } from "../paths/series-home.ts";
import type { RefId } from "./ids.ts";

export interface RefsPlace {
  /** The real episode folder. */
  ep: string;
  /** The series config in force and the folder holding it (the episode when there is none). */
  series: SeriesHome;
  /** The real configured roots. */
  roots: readonly string[];
}

type PlaceServices = Pick<Services, "home" | "env" | "caches">;

export async function refsPlace(services: PlaceServices, epReal: string): Promise<RefsPlace> {
  const roots = await realRoots(services);
  const series = await seriesHome(services, epReal, roots);
  return { ep: epReal, series, roots };
}

/** The folder whose `refs/` keeps the ref's candidates, picks and overrides. */
export function homeOf(place: RefsPlace, ref: Pick<RefId, "scope">): string {
  return ref.scope === "shot" ? place.ep : place.series.home;
}

/** Candidates and sidecars of one reference: `<home>/refs/_takes/<key>/`. */
export const takesDir = (place: RefsPlace, ref: RefId) =>
  path.join(homeOf(place, ref), "refs", "_takes", ref.key);

/** Discarded candidates: `<home>/refs/_takes/_trash/<key>/`. */
export const trashDir = (place: RefsPlace, ref: RefId) =>
  path.join(homeOf(place, ref), "refs", "_takes", "_trash", ref.key);

export const picksFile = (place: RefsPlace, ref: Pick<RefId, "scope">) =>
  path.join(homeOf(place, ref), "refs", "_picks.json");

export const overridesFile = (place: RefsPlace, ref: Pick<RefId, "scope">) =>
  path.join(homeOf(place, ref), "refs", "_overrides.json");

/** The show's kept videos (frames are cut from them): `<series home>/refs/_videos/`. */
export const videosDir = (place: RefsPlace) => path.join(place.series.home, "refs", "_videos");

/** Reads and writes of candidates, picks and overrides stay inside the ref's home. */
export function takesFence(place: RefsPlace, ref: Pick<RefId, "scope">): Fence {
  const home = homeOf(place, ref);
  return folderFence(home, home === place.ep ? "the episode folder" : "the show folder");
}

/** A keyframe's live file: `refs/shots/<shot>/<first|last>.png`, the shot id made file-safe. */
export function keyframeFile(place: RefsPlace, shot: string, which: "first" | "last"): string {
  return path.join(place.ep, "refs", "shots", shot.replace(/[^A-Za-z0-9_.-]/g, "_"), `${which}.png`);
}

/** The episode-relative form of a path the series config names (relative to the config's folder). */
export function episodeRelative(place: RefsPlace, configPath: string): string {
  const norm = configPath.replaceAll("\\", "/");
  if (place.series.home === place.ep) return norm;
  const rel = path.relative(place.ep, path.join(place.series.home, norm)).replaceAll("\\", "/");
  return rel;
}

/**
 * The real path of a live file the config names, checked against what the config opens (400 for a path that
 * climbs elsewhere, 403 for a link leading out); the file need not exist yet.
 */
export function liveFile(place: RefsPlace, configPath: string, field = "path"): Promise<string> {
  return resolveInEpisode(place.ep, episodeRelative(place, configPath), {
    field,
    series: place.series,
    roots: place.roots,
    mustExist: false,
  });
}

/**
 * Writes of live files stay where a config path may lead: the episode, and above it the parent (config in the
 * parent) or the parent's refs/ and audio/ (the episode's own config naming them). The fence folders are the
 * real paths of those places (a shared refs/ may itself be a link to storage inside a root).
 */
export async function liveFence(place: RefsPlace): Promise<Fence> {
  const parent = path.dirname(place.ep);
  if (place.series.inParent) return folderFence(parent, "the show folder");
  if (!place.series.opensParentRefsAudio) return folderFence(place.ep, "the episode folder");
  const shared = await Promise.all(
    ["refs", "audio"].map(async (d) => (await realpathNearest(path.join(parent, d))).real),
  );
  return { dirs: [place.ep, ...shared], what: "the episode folder and the show's refs/ and audio/" };
}
