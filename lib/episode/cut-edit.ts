// The cut's edits: replace a pass's list, pick a take, reset, copy (api extras 1.10; 6, rules 5 and 6).
// Each runs under the episode lock and answers the whole cut.json as stored.
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { badRequest, conflict, notFound } from "../errors.ts";
import { parseSeriesJson } from "../series/load.ts";
import { isObject, isWhole } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import {
  type CutEntry,
  type CutFile,
  compactEntry,
  ENTRY_FIELDS,
  normaliseList,
  readCutFile,
  writeCut,
} from "./cut.ts";
import { readBuild } from "./shotlists.ts";
import { readSources } from "./sources.ts";
import { latestUsable, listTakes, type TakeRecord, takeStatus, takeUsable } from "./takes.ts";

export const CUT_WHAT = ["order", "trims", "audio", "all"] as const;
export type CutWhat = (typeof CUT_WHAT)[number];

// Ranges of the original's audio source fields.
const AUDIO_RANGES: Record<string, [number, number]> = {
  gain: [0, 4],
  start: [0, 86400],
  offset: [-86400, 86400],
};

/**
 * PUT /cut's per-entry checks (no duplicates, no unknown fields, whole-frame trims), then each entry made
 * compact. Throws 400 naming the shot and field.
 */
export function checkCutEntries(entries: readonly unknown[], pass: Pass): CutEntry[] {
  const known = new Set<string>(ENTRY_FIELDS);
  const seen = new Set<string>();
  const out: CutEntry[] = [];
  entries.forEach((raw, i) => {
    if (!isObject(raw)) throw badRequest(`entries[${i}]: a cut entry is an object with a shot id`);
    if (typeof raw.shot !== "string" || raw.shot.trim() === "") {
      throw badRequest(`entries[${i}]: shot is required (a shot id)`);
    }
    const shot = raw.shot;
    const unknown = Object.keys(raw)
      .filter((k) => !known.has(k))
      .sort();
    if (unknown.length) throw badRequest(`${shot}: unknown cut field(s) ${unknown.join(", ")}`);
    if (raw.take != null && !(isWhole(raw.take) && raw.take >= 1)) {
      throw badRequest(`${shot}: take must be a take number (a whole number from 1) or null`);
    }
    if (raw.pass != null && raw.pass !== "final" && raw.pass !== "proxy") {
      throw badRequest(`${shot}: pass must be 'final' or 'proxy', not ${JSON.stringify(raw.pass)}`);
    }
    for (const k of ["trim_in", "trim_out"] as const) {
      const v = raw[k];
      if (v != null && !(isWhole(v) && v >= 0)) {
        throw badRequest(`${shot}: ${k} must be a whole number of frames >= 0 (got ${JSON.stringify(v)})`);
      }
    }
    for (const k of ["locked", "out", "flag"] as const) {
      if (raw[k] != null && typeof raw[k] !== "boolean")
        throw badRequest(`${shot}: ${k} must be true or false`);
    }
    if (raw.note != null && typeof raw.note !== "string") throw badRequest(`${shot}: note must be text`);
    if (raw.audio != null) checkAudio(shot, raw.audio);
    if (seen.has(shot)) throw badRequest(`${shot} is in the cut twice`);
    seen.add(shot);
    out.push(compactEntry(raw, pass)!);
  });
  return out;
}

function checkAudio(shot: string, audio: unknown): void {
  if (!isObject(audio) || typeof audio.source !== "string" || audio.source === "") {
    throw badRequest(`${shot}: audio must be an object with a source (e.g. {"source": "take", ...}) or null`);
  }
  for (const [k, [lo, hi]] of Object.entries(AUDIO_RANGES)) {
    const v = audio[k];
    if (v == null) continue;
    if (typeof v !== "number" || !Number.isFinite(v) || v < lo || v > hi) {
      throw badRequest(`${shot}: audio.${k} must be a number from ${lo} to ${hi}`);
    }
  }
  if (audio.take != null && !(isWhole(audio.take) && audio.take >= 1)) {
    throw badRequest(`${shot}: audio.take must be a take number`);
  }
  if (audio.pass != null && audio.pass !== "final" && audio.pass !== "proxy") {
    throw badRequest(`${shot}: audio.pass must be 'final' or 'proxy'`);
  }
}

/**
 * The pass's frame rate: the series config's `series.fps`, else the pass's shot list `defaults.fps`, else 24
 * (api extras 1.10). Trims count frames at this rate.
 */
export async function passFps(services: Pick<Services, "caches">, ep: string, pass: Pass): Promise<number> {
  try {
    const sources = await readSources(ep);
    const raw = sources.series ? parseSeriesJson(sources.series.text) : null;
    const fps = isObject(raw) && isObject(raw.series) ? Number(raw.series.fps) : Number.NaN;
    if (fps > 0) return fps;
  } catch {
    // An unreadable config falls through to the build's rate.
  }
  const build = await readBuild(services, ep, pass);
  const fps = Number(build?.docs[build.seriesTarget]?.defaults?.fps);
  return fps > 0 ? fps : 24;
}

/** The take the entry plays (its own pick, else the newest usable of the pass it plays from), or null. */
export async function entryTake(
  services: Pick<Services, "caches">,
  ep: string,
  listPass: Pass,
  e: CutEntry,
): Promise<TakeRecord | null> {
  const takes = await listTakes(services, ep, e.pass ?? listPass, e.shot);
  if (e.take !== undefined) return takes.find((t) => t.take === e.take) ?? null;
  return latestUsable(takes);
}

/** The take's length in frames at `fps` (the cut's rate), when the saver recorded its frame count. */
export function takeFramesAt(t: TakeRecord | null, fps: number): number | null {
  const frames = t?.sidecar?.frames;
  if (typeof frames !== "number" || !(frames > 0)) return null;
  const own = t?.sidecar?.fps;
  return typeof own === "number" && own > 0 ? (frames * fps) / own : frames;
}

const leavesAFrame = (frames: number, tin: number, tout: number) => frames - tin - tout >= 1 - 1e-9;

/** 400 when an entry's trims leave less than one frame of its take (only when the frame count is known). */
async function checkTrims(
  services: Pick<Services, "caches">,
  ep: string,
  pass: Pass,
  entries: readonly CutEntry[],
): Promise<void> {
  const fps = await passFps(services, ep, pass);
  for (const e of entries) {
    const tin = e.trim_in ?? 0;
    const tout = e.trim_out ?? 0;
    if (tin === 0 && tout === 0) continue;
    const t = await entryTake(services, ep, pass, e);
    const frames = takeFramesAt(t, fps);
    if (frames !== null && t && !leavesAFrame(frames, tin, tout)) {
      throw badRequest(
        `${e.shot}: trim_in ${tin} + trim_out ${tout} leave less than one frame of take ${t.take} ` +
          `(${Math.round(frames)} frames)`,
      );
    }
  }
}

/** PUT /cut: replace the pass's list with the checked entries (orphans allowed; `locked` is not enforced). */
export function replaceCut(
  services: Pick<Services, "caches" | "locks">,
  ep: string,
  pass: Pass,
  entries: readonly unknown[],
  now: Date,
): Promise<CutFile> {
  const clean = checkCutEntries(entries, pass);
  return withLock(services, ep, async () => {
    await checkTrims(services, ep, pass, clean);
    const stored = await readCutFile(ep);
    return (await writeCut(services, ep, stored, { ...stored.file, [pass]: clean }, now)).cut;
  });
}

async function builtOrder(services: Pick<Services, "caches">, ep: string, pass: Pass): Promise<string[]> {
  const build = await readBuild(services, ep, pass);
  if (!build) throw notFound(`the ${pass} pass has no build: build the episode first`);
  return build.order;
}

export interface PickInput {
  pass: Pass;
  shot: string;
  take: number | null;
  fromPass: Pass | null;
  force: boolean;
}

/** PUT /pick: lock and usability are separate refusals; `force` lifts both. Writes the full order. */
export function pickTake(
  services: Pick<Services, "caches" | "locks">,
  ep: string,
  input: PickInput,
  now: Date,
): Promise<CutFile> {
  const { pass, shot, take, force } = input;
  const from = input.fromPass ?? pass;
  return withLock(services, ep, async () => {
    const order = await builtOrder(services, ep, pass);
    const stored = await readCutFile(ep);
    const list = normaliseList(stored.file[pass], pass, order);
    const entry = list.find((e) => e.shot === shot);
    if (!entry) throw notFound(`${shot} is not in the ${pass} build or the ${pass} cut`);
    let record: TakeRecord | undefined;
    if (take !== null) {
      record = (await listTakes(services, ep, from, shot)).find((t) => t.take === take);
      if (!record) throw notFound(`${shot} has no ${from} take ${take}`);
    }
    if (entry.locked && !force) {
      throw conflict(`${shot} is locked in the ${pass} cut: unlock it first, or pick anyway with force`, {
        locked: true,
      });
    }
    if (record && !takeUsable(record) && !force) {
      const status = takeStatus(record);
      const why = status === "ok" ? "its video is missing" : status;
      throw conflict(`${shot} ${from} take ${take} is not usable (${why}); pick it anyway with force`);
    }
    if (take === null) delete entry.take;
    else entry.take = take;
    if (from !== pass) entry.pass = from;
    else delete entry.pass;
    return (await writeCut(services, ep, stored, { ...stored.file, [pass]: list }, now)).cut;
  });
}

const wants = (what: CutWhat, part: "order" | "trims" | "audio") => what === "all" || what === part;

/**
 * POST /cut/reset: `order` puts the pass's script order back (orphans after, in their current order;
 * picks, locks, notes, `out` and `flag` kept); `trims` / `audio` clear those except on locked entries.
 */
export function resetCut(
  services: Pick<Services, "caches" | "locks">,
  ep: string,
  pass: Pass,
  what: CutWhat,
  now: Date,
): Promise<CutFile> {
  return withLock(services, ep, async () => {
    const order = await builtOrder(services, ep, pass);
    const stored = await readCutFile(ep);
    let list = normaliseList(stored.file[pass], pass, order);
    if (wants(what, "order")) {
      const at = new Map(order.map((id, i) => [id, i]));
      const inScript = list.filter((e) => at.has(e.shot)).sort((a, b) => at.get(a.shot)! - at.get(b.shot)!);
      list = [...inScript, ...list.filter((e) => !at.has(e.shot))];
    }
    for (const e of list) {
      if (e.locked) continue;
      if (wants(what, "trims")) {
        delete e.trim_in;
        delete e.trim_out;
      }
      if (wants(what, "audio")) delete e.audio;
    }
    return (await writeCut(services, ep, stored, { ...stored.file, [pass]: list }, now)).cut;
  });
}

/**
 * POST /cut/copy: one pass's order, trims and/or audio onto the other. Picks, placeholder passes,
 * locks, notes and flags are never copied; locked target entries keep their trims, audio and `out`.
 */
export function copyCut(
  services: Pick<Services, "caches" | "locks">,
  ep: string,
  from: Pass,
  to: Pass,
  what: CutWhat,
  now: Date,
): Promise<CutFile> {
  return withLock(services, ep, async () => {
    const fromOrder = await builtOrder(services, ep, from);
    const toOrder = await builtOrder(services, ep, to);
    const stored = await readCutFile(ep);
    const source = normaliseList(stored.file[from], from, fromOrder);
    let list = normaliseList(stored.file[to], to, toOrder);
    const bySource = new Map(source.map((e, i) => [e.shot, { e, i }]));

    if (wants(what, "order")) list = copyOrder(list, bySource);
    if (wants(what, "trims")) {
      const [fromFps, toFps] = [await passFps(services, ep, from), await passFps(services, ep, to)];
      for (const e of list) {
        const src = bySource.get(e.shot)?.e;
        if (!src || e.locked) continue;
        let tin = Math.round(((src.trim_in ?? 0) * toFps) / fromFps);
        let tout = Math.round(((src.trim_out ?? 0) * toFps) / fromFps);
        const frames = takeFramesAt(await entryTake(services, ep, to, e), toFps);
        if (frames !== null && !leavesAFrame(frames, tin, tout)) {
          // Cut down so at least one frame of the target take stays, taking from trim_out first.
          const room = Math.max(0, Math.floor(frames - 1 + 1e-9));
          tout = Math.max(0, Math.min(tout, room - tin));
          tin = Math.min(tin, room - tout);
        }
        setTrim(e, "trim_in", tin);
        setTrim(e, "trim_out", tout);
      }
    }
    if (wants(what, "audio")) {
      for (const e of list) {
        const src = bySource.get(e.shot)?.e;
        if (!src || e.locked) continue;
        if (src.audio) e.audio = structuredClone(src.audio);
        else delete e.audio;
      }
    }
    return (await writeCut(services, ep, stored, { ...stored.file, [to]: list }, now)).cut;
  });
}

function setTrim(e: CutEntry, key: "trim_in" | "trim_out", value: number): void {
  if (value > 0) e[key] = value;
  else delete e[key];
}

// Entries both passes have follow the source's order; an entry only the target has stays right after the
// entry it follows now (at the front when it leads). `out` comes from the source unless the entry is locked.
function copyOrder(list: CutEntry[], bySource: Map<string, { e: CutEntry; i: number }>): CutEntry[] {
  const shared = list
    .filter((e) => bySource.has(e.shot))
    .sort((a, b) => bySource.get(a.shot)!.i - bySource.get(b.shot)!.i);
  for (const e of shared) {
    if (e.locked) continue;
    if (bySource.get(e.shot)!.e.out) e.out = true;
    else delete e.out;
  }
  const result = [...shared];
  list.forEach((e, i) => {
    if (bySource.has(e.shot)) return;
    const after = i === 0 ? -1 : result.findIndex((r) => r.shot === list[i - 1].shot);
    result.splice(after + 1, 0, e);
  });
  return result;
}
