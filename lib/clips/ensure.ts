// The default Simple-mode project: `<root>/Clips/` with its series config and the episode `clips/`, made on first
// use and left as it is after (a part someone removed is made again; nothing present is rewritten).
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import { conflict } from "../errors.ts";
import { resolveFolder } from "../paths/episode.ts";
import { folderFence, statShowOrNull } from "../paths/guarded.ts";
import { errorCode } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import {
  CLIPS_EPISODE,
  clipsRoot,
  configText,
  simpleScript,
  simpleSeries,
  writeProjectFiles,
} from "./new-clip.ts";

/** The show folder of the default Clips project, inside its root. */
export const CLIPS_FOLDER = "Clips";
const CLIPS_TITLE = "Clips";

/** POST /studio/clips/ensure: the Clips project's episode, and whether this call made any of it. */
export async function ensureClips(
  services: Pick<Services, "home" | "env" | "caches" | "locks">,
  rootValue: string | null | undefined,
): Promise<{ ep: string; made: boolean }> {
  const root = await clipsRoot(services, rootValue);
  const show = path.join(root, CLIPS_FOLDER);
  // Two calls at once make the project once.
  return withLock(services, `clips project\0${show}`, async () => {
    await mkdir(show, { recursive: true }).catch((err: unknown) => {
      const code = errorCode(err);
      if (code === "EEXIST" || code === "ENOTDIR") {
        throw conflict(`${show} is a file, not a folder: move it aside to make the Clips project there`);
      }
      throw err;
    });
    // A Clips link leading out of the roots is refused here (403), before anything is written through it.
    const real = await resolveFolder(show, services, "root");
    const fence = folderFence(real, "the Clips folder");
    const ep = path.join(show, CLIPS_EPISODE);
    const [series, script] = await Promise.all([
      statShowOrNull(fence, path.join(real, "series.json")),
      statShowOrNull(fence, path.join(real, CLIPS_EPISODE, `${CLIPS_EPISODE}.md`)),
    ]);
    if (series && script) return { ep, made: false };
    await writeProjectFiles(real, {
      series: series ? null : configText(simpleSeries(CLIPS_TITLE, CLIPS_FOLDER)),
      script: script ? null : simpleScript(CLIPS_TITLE),
    });
    return { ep, made: true };
  });
}
