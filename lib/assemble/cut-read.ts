// Reading a built pass's cut as it plays: its frame rate, each cut entry with the takes it may play (and the takes
// its sound may come from), and each file's streams. Assembling and the timeline export read the cut this one way.
import type { Pass } from "../compile/types.ts";
import { type CutEntry, readCutList } from "../episode/cut.ts";
import { folderTakes } from "../episode/cut-view.ts";
import { type Build, readStory } from "../episode/shotlists.ts";
import type { TakeRecord } from "../episode/takes.ts";
import { type ClipInfo, wavInfo } from "../media/clip-probe.ts";
import { type ProbeServices, probeClipCached } from "../media/probe-cache.ts";
import type { WithCaches } from "../store/caches.ts";
import { errorCode, type JsonObject } from "../store/json-guards.ts";
import type { CutShot } from "./plan.ts";

export interface CutRead {
  /** The series target's shot-list defaults (size, fps, master track). */
  defaults: JsonObject;
  /** The pass's frame rate: the shot list's, else the series', else 24. */
  fps: number;
  /** The cut's entries in cut order. */
  cut: CutEntry[];
  /** Each entry with its shot's takes (and its sound's takes), as the clip chooser reads them. */
  shots: CutShot[];
}

const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v) && v > 0;

/** The pass's cut with the takes every entry may play, read from the episode folder. */
export async function readCutShots(
  services: WithCaches,
  ep: string,
  pass: Pass,
  build: Build,
): Promise<CutRead> {
  const defaults = build.docs[build.seriesTarget]?.defaults ?? {};
  const fps = isNum(defaults.fps) ? defaults.fps : ((await readStory(services, ep))?.series.fps ?? 24);
  const cut = await readCutList(services, ep, pass);
  const shots: CutShot[] = await Promise.all(
    cut.map(async (entry) => {
      const a = entry.audio;
      let audioTakes: readonly TakeRecord[] | null = null;
      if (a && a.source === "take") {
        const p = a.pass === "final" || a.pass === "proxy" ? a.pass : pass;
        audioTakes = await folderTakes(services, ep, p, typeof a.shot === "string" ? a.shot : entry.shot);
      }
      return {
        entry,
        orphan: !build.shots.has(entry.shot),
        takes: await folderTakes(services, ep, entry.pass ?? pass, entry.shot),
        audioTakes,
      };
    }),
  );
  return { defaults, fps, cut, shots };
}

/**
 * A file's streams (remembered per file version), or why they cannot be read: "the file is gone", else the
 * probe's first line. `wavHeader`: a plain wav's format is read from its header (no length), which is all a join
 * needs of a sound file and saves starting ffprobe.
 */
export async function probeOrWhy(
  services: ProbeServices,
  file: string,
  opts: { wavHeader?: boolean } = {},
): Promise<ClipInfo | string> {
  try {
    if (opts.wavHeader && file.endsWith(".wav")) {
      const wav = await wavInfo(file);
      if (wav) return wav;
    }
    return await probeClipCached(services, file);
  } catch (err) {
    if (errorCode(err) === "ENOENT") return "the file is gone";
    return (err instanceof Error ? err.message : String(err)).split("\n")[0];
  }
}
