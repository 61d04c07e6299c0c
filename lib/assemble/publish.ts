// Publishing an assembled cut: the show's intro and outro put around it with the episode title drawn on them
// (lib/media/titles.ts), written as `<ep>/publish/<cut name>.mp4` under a temp name and renamed into place.
import { rename, rm } from "node:fs/promises";
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { loadViewInputs } from "../episode/view-inputs.ts";
import { type Titled, wrapWithTitles } from "../media/titles.ts";
import { episodeFence, mkdirShow } from "../paths/guarded.ts";
import { tempPath } from "../store/temp-names.ts";
import { episodeTitle, showTitles } from "./titles-config.ts";

/** Where the published copy of an assembled cut goes, episode-relative. */
export const publishedName = (cut: string) => `publish/${path.basename(cut)}`;

/**
 * Publish the assembled cut `cut` (episode-relative): answers the published file (episode-relative) and what the
 * titles did, or rejects with why (no intro nor outro, a bad style, ffmpeg's words).
 */
export async function publishCut(
  services: Pick<Services, "home" | "targets" | "caches" | "media">,
  ep: string,
  pass: Pass,
  cut: string,
  hooks: { signal?: AbortSignal; progress?(update: { progress: number; step: string }): void } = {},
): Promise<{ published: string; titles: Titled }> {
  const vi = await loadViewInputs(services, ep, pass);
  const titles = await showTitles(ep, vi?.seriesRaw ?? null);
  if (!titles.intro && !titles.outro)
    throw new Error(`publishing needs the show's intro or outro: none of ${titles.absent.join(", ")} exists`);
  const name = publishedName(cut);
  const out = path.join(ep, name);
  await mkdirShow(episodeFence(ep), path.dirname(out));
  const tmp = tempPath(out);
  try {
    const made = await wrapWithTitles(
      services,
      {
        cut: path.join(ep, cut),
        intro: titles.intro,
        outro: titles.outro,
        title: await episodeTitle(services, ep),
        style: titles.subtitle,
        folder: ep,
        out: tmp,
      },
      {
        signal: hooks.signal,
        progress: ({ stage, text, progress }) =>
          hooks.progress?.({ progress, step: stage === "titles" ? `titles: ${text}` : stage }),
      },
    );
    await rename(tmp, out);
    return { published: name, titles: made };
  } finally {
    await rm(tmp, { force: true });
  }
}
