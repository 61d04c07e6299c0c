// Where a show's intro and outro clips are and how the episode title is drawn on them: the series config's
// `publish` block (`intro`/`outro` relative to the episode, `subtitle` style), else `_titles/INTRO.mp4` and
// `_titles/OUTRO.mp4` in the show folder. Published cuts and masters both wrap with these.
import path from "node:path";
import { readStory } from "../episode/shotlists.ts";
import { showFence, statShowOrNull } from "../paths/guarded.ts";
import type { WithCaches } from "../store/caches.ts";
import { isObject } from "../store/json-guards.ts";

export interface ShowTitles {
  /** Absolute paths of the clips that exist, null where there is none. */
  intro: string | null;
  outro: string | null;
  /** The `subtitle` style as written (every key optional). */
  subtitle: Record<string, unknown>;
  /** What was looked for and not found, for a person. */
  absent: string[];
}

/** The show's titles for `ep` (real path) from the series config's raw `publish` block. */
export async function showTitles(ep: string, seriesRaw: Record<string, unknown> | null): Promise<ShowTitles> {
  const block = isObject(seriesRaw?.publish) ? seriesRaw.publish : {};
  const show = path.dirname(ep);
  const fence = showFence(ep);
  const absent: string[] = [];
  const find = async (key: "intro" | "outro", fallback: string): Promise<string | null> => {
    const asked = block[key];
    const file =
      typeof asked === "string" && asked.trim() ? path.resolve(ep, asked) : path.join(show, fallback);
    const shown = typeof asked === "string" && asked.trim() ? `publish.${key} ${asked}` : fallback;
    // A clip outside the show folder is not one of its titles.
    const st = await statShowOrNull(fence, file).catch(() => null);
    if (st?.isFile()) return file;
    absent.push(shown);
    return null;
  };
  return {
    intro: await find("intro", "_titles/INTRO.mp4"),
    outro: await find("outro", "_titles/OUTRO.mp4"),
    subtitle: isObject(block.subtitle) ? block.subtitle : {},
    absent,
  };
}

/** The loudness a master is normalised to: series `publish.loudness` (LUFS, or {target, true_peak}), else -16/-1. */
export function loudnessTarget(seriesRaw: Record<string, unknown> | null): {
  target: number;
  truePeak: number;
} {
  const block = isObject(seriesRaw?.publish) ? seriesRaw.publish : {};
  const l = block.loudness;
  const num = (v: unknown, lo: number, hi: number) =>
    typeof v === "number" && Number.isFinite(v) && v >= lo && v <= hi ? v : null;
  if (typeof l === "number") return { target: num(l, -70, -5) ?? -16, truePeak: -1 };
  if (isObject(l)) return { target: num(l.target, -70, -5) ?? -16, truePeak: num(l.true_peak, -9, 0) ?? -1 };
  return { target: -16, truePeak: -1 };
}

/** The episode title drawn on the titles: the script's `=` line title, else the episode's name. */
export async function episodeTitle(services: WithCaches, ep: string): Promise<string> {
  const story = await readStory(services, ep).catch(() => null);
  return story?.title?.trim() || path.basename(ep);
}
