// Continuity chains (contract rendering rules 7 and 8): the shot before a continuing shot in the cut, the take the
// cut plays there, and the first frame cut from that take's last frame (before queueing and again at job start).
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { type CutEntry, readCutList } from "../episode/cut.ts";
import { type CutPick, cutPick, folderTakes } from "../episode/cut-view.ts";
import type { Build } from "../episode/shotlists.ts";
import { shotFolder } from "../episode/takes.ts";
import { runFfmpeg } from "../media/ffmpeg.ts";
import type { MediaTools } from "../media/tools.ts";
import {
  episodeFence,
  type Fence,
  guardPath,
  mkdirShow,
  removeShow,
  renameShow,
  statShowOrNull,
} from "../paths/guarded.ts";
import { tempPath } from "../store/temp-names.ts";

/** The cut entry before `shot` (orphans and `out` entries skipped), or null when it leads. */
export function previousInCut(cut: readonly CutEntry[], build: Build, shot: string): CutEntry | null {
  const at = cut.findIndex((e) => e.shot === shot);
  for (let i = at - 1; i >= 0; i--) {
    const e = cut[i];
    if (build.shots.has(e.shot) && !e.out) return e;
  }
  return null;
}

/** The take the cut plays for `entry` now (its pick, else the latest usable take of the pass it names). */
export async function playing(
  services: Pick<Services, "caches">,
  ep: string,
  listPass: Pass,
  entry: CutEntry,
): Promise<CutPick> {
  const pass = entry.pass ?? listPass;
  return cutPick(entry, listPass, await folderTakes(services, ep, pass, entry.shot));
}

/** The mp4 of a picked take, absolute. */
export const pickVideo = (ep: string, pick: CutPick, shot: string): string | null =>
  pick.take && pick.usable ? path.join(shotFolder(ep, pick.pass, shot), `${pick.take.stem}.mp4`) : null;

/** Whether the keyframe at `frame` is missing or older than the clip it should be cut from (both in the fence). */
export async function frameOutdated(
  fence: Fence,
  frame: string,
  video: string,
): Promise<"missing" | "older" | null> {
  const [f, v] = await Promise.all([statShowOrNull(fence, frame), statShowOrNull(fence, video)]);
  if (!f) return "missing";
  if (v && f.mtimeMs < v.mtimeMs) return "older";
  return null;
}

/**
 * Write the last frame of `video` as the PNG `frame` (temp file and rename, so a reader never sees half); both
 * must really lie inside the fence, so a keyframe folder linked out of the episode is refused, not written.
 */
export async function cutLastFrame(
  fence: Fence,
  video: string,
  frame: string,
  media: MediaTools,
  signal?: AbortSignal,
): Promise<void> {
  const src = await guardPath(fence, video);
  const dir = await mkdirShow(fence, path.dirname(frame));
  const tmp = tempPath(path.join(dir, path.basename(frame)), ".png");
  try {
    // From one second before the end, each decoded frame overwrites the picture: the last one stays.
    await runFfmpeg(
      ["-sseof", "-1", "-i", src, "-map", "0:v:0", "-update", "1", "-f", "image2", "-c:v", "png", tmp],
      { media, signal },
    );
    await renameShow(fence, tmp, frame);
  } finally {
    await removeShow(fence, tmp);
  }
}

/**
 * At job start: the first frame cut again from the take the cut plays now before `shot`, when there is one.
 * `ep` is the episode's real path: the frame and the clip stay inside it.
 */
export async function recutAtStart(
  services: Pick<Services, "caches" | "media">,
  ep: string,
  pass: Pass,
  build: Build,
  shot: string,
  frame: string,
  signal?: AbortSignal,
): Promise<{ shot: string; take: number; pass: Pass } | null> {
  const cut = await readCutList(services, ep, pass);
  const prev = previousInCut(cut, build, shot);
  if (!prev) return null;
  const pick = await playing(services, ep, pass, prev);
  const video = pickVideo(ep, pick, prev.shot);
  if (!video || pick.number === null) return null;
  await cutLastFrame(episodeFence(ep), video, frame, services.media, signal);
  return { shot: prev.shot, take: pick.number, pass: pick.pass };
}
