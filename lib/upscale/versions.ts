// Which version of a take a cut plays: the take itself, its fresh upscale, or its fresh post-process over that
// upscale. Assemble (`upscaled`), the master and the timeline export all ask here, so they agree.
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { FileProbe } from "../episode/staleness.ts";
import { listTakes, passFolder, safeShot, takeStem } from "../episode/takes.ts";
import type { WithCaches } from "../store/caches.ts";
import { positive } from "../store/json-guards.ts";
import { episodeProbe, judgeVersions, type PostState, type UpscaleState } from "./fresh.ts";

export type VersionKind = "take" | "upscale" | "post";

export interface PlayedVersion {
  /** Absolute path of the mp4 to play, or null when the take has no video. */
  file: string | null;
  kind: VersionKind;
  width: number | null;
  height: number | null;
  /** What plays and why, in words: "its post", "its upscale (its post is stale)", "its take (not upscaled yet)". */
  why: string;
}

export interface PlayOptions {
  /** Play upscales at all (false: always the take). */
  upscaled: boolean;
  /** `present`: a fresh post where there is one; `off`: upscales only. */
  post: "off" | "present";
  /** A probe shared by the caller's other look-ups in one request. */
  probe?: FileProbe;
}

/** Why the upscale cannot play, in words. */
function upscaleWhy(up: UpscaleState | null): string {
  if (!up) return "not upscaled yet";
  if (up.status === "queued") return "its upscale is on its way";
  if (up.status === "failed") return "its last upscale failed";
  if (!up.mp4) return "its upscale's mp4 is missing";
  return "its upscale was made from an older take";
}

/** The words for a fresh upscale that plays while its post cannot. */
function postWhy(post: PostState | null): string {
  if (!post) return "";
  if (post.status === "queued") return " (a post is on its way: master again after)";
  if (post.status === "failed") return " (its last post failed)";
  return " (its post is stale)";
}

/** Decide from the take's judged versions (pure apart from the sizes they record). */
export function chooseVersion(
  take: { mp4: string | null; width: number | null; height: number | null },
  up: UpscaleState | null,
  post: PostState | null,
  opts: Pick<PlayOptions, "upscaled" | "post">,
): PlayedVersion {
  const asTake = (why: string): PlayedVersion => ({
    file: take.mp4,
    kind: "take",
    width: take.width,
    height: take.height,
    why,
  });
  if (!opts.upscaled) return asTake("its take");
  if (!up?.fresh || !up.mp4) return asTake(`its take (${upscaleWhy(up)})`);
  if (opts.post === "present" && post?.fresh && post.mp4) {
    return {
      file: post.mp4,
      kind: "post",
      width: positive(post.record?.width) ?? positive(up.record?.width),
      height: positive(post.record?.height) ?? positive(up.record?.height),
      why: "its post",
    };
  }
  return {
    file: up.mp4,
    kind: "upscale",
    width: positive(up.record?.width),
    height: positive(up.record?.height),
    why: `its upscale${opts.post === "present" ? postWhy(post) : ""}`,
  };
}

/** What the cut plays for one take of a shot (`ep` is the real episode path). */
export async function playedVersion(
  services: WithCaches,
  ep: string,
  pass: Pass,
  shot: string,
  take: number,
  opts: PlayOptions,
): Promise<PlayedVersion> {
  const t = (await listTakes(services, ep, pass, shot)).find((x) => x.take === take);
  const stem = t?.stem ?? takeStem(shot, take);
  const files = t?.files ?? [];
  const mp4 = files.includes(`${stem}.mp4`)
    ? path.join(ep, passFolder(pass), safeShot(shot), `${stem}.mp4`)
    : null;
  const takeFacts = {
    mp4,
    width: positive(t?.sidecar?.width),
    height: positive(t?.sidecar?.height),
  };
  if (!opts.upscaled) return chooseVersion(takeFacts, null, null, opts);
  const v = await judgeVersions(
    services,
    { ep, pass, shot, stem, files },
    opts.probe ?? episodeProbe(services, ep),
  );
  return chooseVersion(takeFacts, v.upscale, v.post, opts);
}
