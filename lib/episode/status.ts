// GET /studio/episode's answer (contract "Episode status"): every shot of the pass in cut order with its takes,
// cut pick, override, targets and missing references. The answer is JSON text assembled from per-shot pieces
// kept while nothing they depend on moved, so a 300-shot listing re-reads and re-serialises only what changed.
import { createHash } from "node:crypto";
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { showFence } from "../paths/guarded.ts";
import { cacheSlot } from "../store/caches.ts";
import { isObject, positive } from "../store/json-guards.ts";
import { fpsOf } from "./current-entry.ts";
import type { CutEntry } from "./cut.ts";
import { type CutPick, chainViews, cutPick, outOfOrder } from "./cut-view.ts";
import { type PassReads, passReads } from "./pass-reads.ts";
import {
  actionLine,
  overrideSummary,
  relTo,
  type ShotContext,
  shotContext,
  shotSlots,
  silentTarget,
  staleInputs,
  staleOf,
} from "./shot-context.ts";
import { missingRefs, type RefSlot } from "./shot-refs.ts";
import type { BuiltShot } from "./shotlists.ts";
import { type ChainView, FileProbe, keyframeGate, recordedRefs, refResolver } from "./staleness.ts";
import { DRAFT_LIFE_MS, takeAudio, takeExtras, takeSummary } from "./take-summary.ts";
import { passFolder, safeShot, type TakeRecord } from "./takes.ts";
import { episodeDefault } from "./target-choice.ts";
import { identities, loadViewInputs, type ViewInputs } from "./view-inputs.ts";

/** Episodes (and passes) whose whole answers and contexts are kept. */
const MAX_ANSWERS = 8;

const round3 = (x: number) => Math.round(x * 1000) / 1000;

// What the listing keeps between requests: per episode and pass the contexts made under the current inputs only
// (older ones hold older builds), the paths each take list recorded, each row's text with what it depends on, and
// the last whole answer.
const KEPT = cacheSlot("episode status", () => ({
  contexts: new Map<string, { key: string; byShot: Map<string, ShotContext> }>(),
  recordedPaths: new WeakMap<readonly TakeRecord[], string[]>(),
  rows: new Map<string, { deps: unknown[]; text: string }>(),
  answers: new Map<string, KeptAnswer>(),
}));

/** The last answer of an episode's pass and what it was made from, to hand it back untouched. */
interface KeptAnswer extends StatusAnswer {
  head: string;
  rows: string[];
  /** The inputs' key, every take list's identity and which drafts had expired. */
  made: string;
  /** Every file the answer looked at, and their states then. */
  files: string[];
  states: string;
}

/** shotContext for the listing: the same inputs (by key) give the same context. */
function cachedContext(vi: ViewInputs, built: BuiltShot): ShotContext {
  const { contexts } = vi.caches.of(KEPT);
  const where = `${vi.ep}\0${vi.pass}`;
  let entry = contexts.get(where);
  if (!entry || entry.key !== vi.key) {
    entry = { key: vi.key, byShot: new Map() };
    if (contexts.size >= MAX_ANSWERS) contexts.clear();
    contexts.set(where, entry);
  }
  let sc = entry.byShot.get(built.id);
  if (!sc || sc.built !== built) {
    sc = shotContext(vi, built);
    entry.byShot.set(built.id, sc);
  }
  return sc;
}

// ------------------------------------------------------------------------------------------- rows

interface RowInput {
  vi: ViewInputs;
  entry: CutEntry;
  order: number;
  scriptIndex: number | null;
  outOfOrder: boolean;
  sc: ShotContext | null;
  takes: readonly TakeRecord[];
  pick: CutPick;
  chain: ChainView;
  probe: FileProbe;
  now: Date;
  slots: RefSlot[];
  /** Takes of the shot an `audio: {source: take}` names, when it names one. */
  audioTakes: readonly TakeRecord[] | null;
}

function audioSource(
  r: RowInput,
): { file: string | null; why: string | null } | Promise<{ file: string | null; why: string | null }> {
  const { vi, entry, pick } = r;
  const a = entry.audio;
  if (!isObject(a)) {
    if (!pick.take) return { file: null, why: "no usable take" };
    const sound = takeAudio(pick.take, pick.pass, entry.shot, silentTarget(vi, pick.take.sidecar?.target));
    return { file: sound, why: sound ? null : "the take has no sound" };
  }
  if (a.source === "none") return { file: null, why: "silence" };
  if (a.source === "take") {
    const shot = typeof a.shot === "string" ? a.shot : entry.shot;
    const pass = a.pass === "final" || a.pass === "proxy" ? a.pass : vi.pass;
    const label = `sound of ${shot} t${String(a.take ?? "?").padStart(2, "0")} (${pass})`;
    const t = (r.audioTakes ?? []).find((x) => x.take === a.take);
    const file = t ? takeAudio(t, pass, shot, silentTarget(vi, t.sidecar?.target)) : null;
    return { file, why: file ? label : `${label} (missing)` };
  }
  if (a.source === "file" && typeof a.path === "string") {
    const abs = path.resolve(vi.ep, a.path);
    return r.probe.exists(abs).then((ok) => ({
      file: ok ? relTo(vi.ep, abs) : null,
      why: ok ? `file ${a.path}` : `file ${a.path} (missing)`,
    }));
  }
  return { file: null, why: `audio source ${String(a.source)}` };
}

async function buildRow(r: RowInput): Promise<Record<string, unknown>> {
  const { vi, entry, sc, pick } = r;
  const pass = vi.pass;
  const resolve = refResolver(vi, vi.ep, vi.home);
  const rel = (p: string) => relTo(vi.ep, resolve(p));
  const inp = staleInputs(vi, sc, r.probe, r.chain);
  const takes = await Promise.all(
    r.takes.map(async (t) => {
      const [stale, extras] = await Promise.all([
        staleOf(t, sc, inp),
        takeExtras(vi, vi.ep, pass, entry.shot, t, r.probe),
      ]);
      return takeSummary(t, {
        pass,
        shot: entry.shot,
        stale,
        extras,
        now: r.now,
        silent: silentTarget(vi, t.sidecar?.target),
      });
    }),
  );
  const audio = await audioSource(r);
  const e = sc?.built.entry;
  const builtFps = sc ? fpsOf(vi, sc.built.target) : null;
  const length = positive(e?.length);
  const cutFps = (pick.usable ? positive(pick.take?.sidecar?.fps) : null) ?? builtFps;
  const cut = {
    take: pick.number,
    picked: entry.take !== undefined,
    pass: pick.pass,
    placeholder: entry.pass !== undefined && entry.pass !== pass,
    usable: pick.usable,
    trim_in: entry.trim_in ?? 0,
    trim_out: entry.trim_out ?? 0,
    locked: entry.locked === true,
    note: entry.note ?? null,
    in_cut_file: vi.cutInFile.has(entry.shot),
    frames: pick.usable
      ? (positive(pick.take?.sidecar?.frames) ?? positive(pick.take?.sidecar?.length) ?? length)
      : null,
    out: entry.out === true,
    flag: entry.flag === true,
    fps: cutFps,
    order: r.order,
    script_index: r.scriptIndex,
    out_of_order: r.outOfOrder,
    audio: entry.audio ?? null,
    audio_file: audio.file,
    audio_why: audio.why,
  };
  if (!sc || !e) {
    return {
      shot: entry.shot,
      orphan: true,
      sequence: null,
      length: null,
      seconds: null,
      length_estimated: false,
      size: null,
      subjects: [],
      audio_policy: null,
      cut,
      override: { fields: [], stale: false },
      target: null,
      target_source: null,
      built_target: null,
      profile: null,
      missing_refs: [],
      audio_in: null,
      audio_out: null,
      takes,
    };
  }
  const exists = new Map<RefSlot, boolean>();
  await Promise.all(r.slots.map(async (s) => exists.set(s, await r.probe.exists(resolve(s.path)))));
  const row: Record<string, unknown> = {
    shot: entry.shot,
    orphan: false,
    sequence: sc.built.sequence || null,
    length,
    seconds: length !== null && builtFps ? round3(length / builtFps) : null,
    length_estimated: e.length_estimated === true,
    size: e.size ?? null,
    subjects: Array.isArray(e.subjects) ? e.subjects : [],
    audio_policy: e.audio_policy ?? null,
  };
  const action = actionLine(sc.story?.shot.action);
  if (action !== null) row.action = action;
  row.cut = cut;
  row.override = overrideSummary(vi, sc);
  row.target = sc.target;
  row.target_source = sc.source;
  row.built_target = sc.built.target;
  row.profile = typeof e.profile === "string" ? e.profile : null;
  row.missing_refs = missingRefs(r.slots, exists, rel);
  if (!sc.next.ok) row.retarget_error = `can't compile ${entry.shot} for ${sc.target}: ${sc.next.error}`;
  row.audio_in = typeof e.audio_in === "number" ? e.audio_in : null;
  row.audio_out = typeof e.audio_out === "number" ? e.audio_out : null;
  row.takes = takes;
  return row;
}

// ------------------------------------------------------------------------------------------- row cache

/** Reference paths the takes' sidecars recorded (the files `ref` staleness looks at). */
function takeRefPaths(vi: ViewInputs, takes: readonly TakeRecord[]): string[] {
  const { recordedPaths } = vi.caches.of(KEPT);
  let paths = recordedPaths.get(takes);
  if (!paths) {
    const set = new Set<string>();
    for (const t of takes) if (t.sidecar) for (const r of recordedRefs(t.sidecar)) set.add(r.path);
    paths = [...set];
    recordedPaths.set(takes, paths);
  }
  return paths;
}

/**
 * Everything a row's text depends on that the episode inputs' key does not cover: the take lists (by
 * identity), the state of every file it looks at, its chain neighbour and which drafts expired.
 */
async function rowDeps(
  r: RowInput,
  otherTakes: readonly TakeRecord[] | null,
): Promise<{ deps: unknown[]; files: Set<string> }> {
  const { vi, sc } = r;
  const resolve = refResolver(vi, vi.ep, vi.home);
  const files = new Set<string>();
  // A take's upscale and post records and the videos their stamps check (see takeExtras).
  const dir = path.join(vi.ep, passFolder(vi.pass), safeShot(r.entry.shot));
  for (const t of r.takes) {
    if (!t.files.some((f) => f.endsWith(".up.json") || f.endsWith(".post.json"))) continue;
    for (const end of [".up.json", ".post.json", ".mp4", ".up.mp4"])
      files.add(path.join(dir, `${t.stem}${end}`));
  }
  for (const p of takeRefPaths(vi, r.takes)) files.add(resolve(p));
  for (const s of r.slots) files.add(resolve(s.path));
  if (sc) {
    const targets = new Set<string>();
    for (const t of r.takes) if (typeof t.sidecar?.target === "string") targets.add(t.sidecar.target);
    for (const t of targets) {
      const kf = sc.current(t)?.entry.keyframes;
      if (isObject(kf)) for (const p of Object.values(kf)) if (typeof p === "string") files.add(resolve(p));
    }
  }
  const a = r.entry.audio;
  if (isObject(a) && a.source === "file" && typeof a.path === "string")
    files.add(path.resolve(vi.ep, a.path));
  const states = await Promise.all([...files].map((f) => r.probe.state(f)));
  const { identity } = identities(vi);
  const deps = [
    vi.key,
    r.order,
    identity(r.takes),
    identity(otherTakes),
    identity(r.audioTakes),
    r.chain.prevShot,
    r.chain.prevTake,
    r.chain.prevPass,
    r.chain.prevFinished,
    [...files].join("\n"),
    states.map((s) => s.key).join("\n"),
    expiredDrafts(r.takes, r.now),
  ];
  return { deps, files };
}

/** Which of the takes' drafts have expired by `now` (a row shows it), one digit per take. */
function expiredDrafts(takes: readonly TakeRecord[], now: Date): string {
  let out = "";
  for (const t of takes) {
    const d = t.sidecar?.draft;
    const made = isObject(d) && typeof d.made === "string" ? Date.parse(d.made) : Number.NaN;
    out += Number.isFinite(made) && made + DRAFT_LIFE_MS < now.getTime() ? "1" : "0";
  }
  return out;
}

// About 5 KB a row with ten takes: a few dozen episodes' worth.
const MAX_ROWS = 10_000;

const sameDeps = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((v, i) => v === b[i]);

// ------------------------------------------------------------------------------------------- the answer

/**
 * The episode status of `pass` as JSON text, or null when the pass has no build. Seeds are strings; no media
 * file is probed. (The sweep of queued takes whose job is gone belongs to the job queue and is not done here.)
 */
export async function episodeStatusText(
  services: Pick<Services, "home" | "targets" | "caches">,
  ep: string,
  pass: Pass,
  now: Date,
): Promise<string | null> {
  return (await episodeStatus(services, ep, pass, now))?.text ?? null;
}

/** The answer's text and its entity tag: a digest of the text, made once per different text. */
export interface StatusAnswer {
  text: string;
  etag: string;
}

/**
 * The episode status with its entity tag (see episodeStatusText), or null when the pass has no build. `reads`:
 * the build and take lists this request already read. When the inputs, every take list and the state of every
 * file the last answer looked at are unchanged, that answer comes back before any row is considered.
 */
export async function episodeStatus(
  services: Pick<Services, "home" | "targets" | "caches">,
  ep: string,
  pass: Pass,
  now: Date,
  reads: PassReads = passReads(services, ep, pass),
): Promise<StatusAnswer | null> {
  const vi = await loadViewInputs(services, ep, pass, { build: await reads.build() });
  if (!vi) return null;
  const { build } = vi;
  const kept = services.caches.of(KEPT);
  const probe = new FileProbe(services, showFence(ep), [keyframeGate(ep)]);
  const resolve = refResolver(services, ep, vi.home);
  const cut = vi.cut;
  const orphan = (shot: string) => !build.shots.has(shot);

  const ownTakes = await Promise.all(cut.map((e) => reads.takes(pass, e.shot)));
  const placeholders = await Promise.all(
    cut.map((e) => (e.pass !== undefined && e.pass !== pass ? reads.takes(e.pass, e.shot) : null)),
  );
  const picks = cut.map((e, i) => cutPick(e, pass, placeholders[i] ?? ownTakes[i]));
  const chains = chainViews(cut, picks, orphan);
  const scriptIndex = cut.map((e) => build.shots.get(e.shot)?.index ?? null);
  const moved = outOfOrder(scriptIndex);
  const audioTakes = await Promise.all(
    cut.map((e) => {
      const a = e.audio;
      if (!isObject(a) || a.source !== "take") return null;
      const shot = typeof a.shot === "string" ? a.shot : e.shot;
      const p = a.pass === "final" || a.pass === "proxy" ? a.pass : pass;
      return reads.takes(p, shot);
    }),
  );

  const answerKey = `${ep}\0${pass}`;
  const { answers } = kept;
  const last = answers.get(answerKey);
  const { identity } = identities(services);
  const lists = [ownTakes, placeholders, audioTakes]
    .map((l) => l.map((t) => identity(t)).join("."))
    .join("|");
  const made = `${vi.key}|${lists}|${ownTakes.map((t) => expiredDrafts(t, now)).join(".")}`;
  if (last?.made === made && (await fileStates(probe, last.files)) === last.states) return last;

  // A context may compile the shot for another target (an episode target set after the build): made in slices
  // so that a first listing of a long episode lets other requests through between them.
  const shotContexts: (ShotContext | null)[] = [];
  for (const [i, entry] of cut.entries()) {
    const built = build.shots.get(entry.shot);
    shotContexts.push(built ? cachedContext(vi, built) : null);
    if (i % 16 === 15) await new Promise((r) => setImmediate(r));
  }
  const files = new Set<string>();
  const rows = await Promise.all(
    cut.map(async (entry, order) => {
      const sc = shotContexts[order];
      const r: RowInput = {
        vi,
        entry,
        order,
        scriptIndex: scriptIndex[order],
        outOfOrder: moved[order],
        sc,
        takes: ownTakes[order],
        pick: picks[order],
        chain: chains[order],
        probe,
        now,
        slots: sc ? shotSlots(vi, sc) : [],
        audioTakes: audioTakes[order],
      };
      const { deps, files: looked } = await rowDeps(r, placeholders[order]);
      for (const f of looked) files.add(f);
      const key = `${ep}\0${pass}\0${entry.shot}`;
      const hit = kept.rows.get(key);
      if (hit && sameDeps(hit.deps, deps)) return hit.text;
      const text = JSON.stringify(await buildRow(r));
      if (kept.rows.size >= MAX_ROWS) kept.rows.clear();
      kept.rows.set(key, { deps, text });
      return text;
    }),
  );

  const doc = build.docs[build.seriesTarget];
  const d = doc?.defaults ?? {};
  const def = episodeDefault(vi.targetInputs);
  const head = {
    episode: doc?.episode ?? vi.story?.episode ?? path.basename(ep),
    title: doc?.title ?? vi.story?.title ?? "",
    pass,
    fps: positive(d.fps) ?? vi.story?.series.fps ?? 24,
    width: positive(d.width),
    height: positive(d.height),
    folder: passFolder(pass),
    target: def.target,
    target_source: def.source,
    series_target: vi.targetInputs.seriesTarget,
    track: await trackInfo(vi, resolve, probe, files),
  };
  const headText = JSON.stringify(head);
  const looked = [...files];
  const states = await fileStates(probe, looked);
  // Nothing moved at all: hand back the very same text (no 1.5 MB join; the route can reuse its bytes too).
  if (last && last.head === headText && sameDeps(last.rows, rows)) {
    Object.assign(last, { made, files: looked, states });
    return last;
  }
  const text = `${headText.slice(0, -1)},"shots":[${rows.join(",")}]}`;
  // Weak: the same answer may go out gzipped or not.
  const etag = `W/"${createHash("sha1").update(text).digest("base64url")}"`;
  if (answers.size >= MAX_ANSWERS) answers.clear();
  const answer: KeptAnswer = { head: headText, rows, text, etag, made, files: looked, states };
  answers.set(answerKey, answer);
  return answer;
}

/** The states of the files (the probe stats each once per request), as one comparable text. */
async function fileStates(probe: FileProbe, files: readonly string[]): Promise<string> {
  const states = await Promise.all(files.map((f) => probe.state(f)));
  return states.map((s) => s.key).join("\n");
}

/** The series config's recorded dialogue track (`audio.track`), or null when it names none. */
async function trackInfo(
  vi: ViewInputs,
  resolve: (p: string) => string,
  probe: FileProbe,
  looked: Set<string>,
): Promise<{ path: string; exists: boolean; seconds: null } | null> {
  const audio = vi.seriesRaw?.audio;
  const track = isObject(audio) ? audio.track : undefined;
  if (typeof track !== "string" || track.trim() === "") return null;
  const abs = resolve(track.trim());
  looked.add(abs);
  // The length would need the media read; the status never probes media.
  return { path: relTo(vi.ep, abs), exists: await probe.exists(abs), seconds: null };
}
