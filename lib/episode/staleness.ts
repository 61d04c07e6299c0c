// Why a take no longer matches what its shot's next render would make (contract "Staleness"; script format 4.17):
// script, ref, preset, target, chain, or unknown for a take from before sidecars.
import { createHash } from "node:crypto";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import type { Entry, Pass } from "../compile/types.ts";
import { type Fence, openShowFile, realInside } from "../paths/guarded.ts";
import { presetHash, storyHash } from "../script/canonical.ts";
import { type Caches, cacheSlot, type WithCaches } from "../store/caches.ts";
import { isObject, str } from "../store/json-guards.ts";
import type { TakeRecord } from "./takes.ts";

export type StaleReason = "script" | "ref" | "preset" | "target" | "chain" | "unknown";

// ------------------------------------------------------------------------------------------- file state

export interface FileState {
  exists: boolean;
  /** `size:mtime_ns:ino`, or `-` when the file is missing. */
  key: string;
  size: bigint;
  mtimeNs: bigint;
}

const MISSING: FileState = { exists: false, key: "-", size: -1n, mtimeNs: -1n };
const SHA1S = cacheSlot(
  "file SHA-1s",
  () => new Map<string, { key: string; sha1: Promise<string | null> }>(),
);
const CHUNK = 1 << 20;

/**
 * Where an episode's recorded inputs may really lie: its show folder, which holds the episode, its series home
 * and the show's refs/ and audio/ (every place a relative reference path may lead).
 */

/**
 * SHA-1 of a file read in chunks, so a large picture or clip never blocks the event loop; null when it cannot be
 * read or really lies outside the fence (then it is never opened).
 */
export async function hashFile(fence: Fence, abs: string): Promise<string | null> {
  const handle = await openShowFile(fence, abs).catch(() => null);
  if (!handle) return null;
  try {
    const hash = createHash("sha1");
    const buf = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, CHUNK, null);
      if (bytesRead === 0) return hash.digest("hex");
      hash.update(buf.subarray(0, bytesRead));
    }
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

const LISTINGS = cacheSlot(
  "gate folder listings",
  () => new Map<string, { key: string; names: ReadonlySet<string>; racy: boolean }>(),
);
const NO_NAMES: ReadonlySet<string> = new Set();

/** A folder's entry names, re-read only when its mtime moves (or moved too recently to trust); none outside the fence. */
async function folderNames(caches: Caches, fence: Fence, dir: string): Promise<ReadonlySet<string>> {
  const listings = caches.of(LISTINGS);
  const real = await realInside(fence, dir);
  const st = real === null ? null : await stat(real, { bigint: true }).catch(() => null);
  if (real === null || !st?.isDirectory()) {
    listings.delete(dir);
    return NO_NAMES;
  }
  const key = `${real}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}`;
  const hit = listings.get(dir);
  if (hit && hit.key === key && !hit.racy) return hit.names;
  const names = new Set(await readdir(real).catch(() => []));
  listings.set(dir, { key, names, racy: Date.now() - Number(st.mtimeNs / 1_000_000n) < 100 });
  return names;
}

/**
 * File facts for one request: each path is stat'ed once however many takes name it, and a file's SHA-1 is
 * hashed only when its size, mtime or inode moved since the last time (kept across requests). Below a gate
 * folder (the episode's `refs/shots`, one subfolder per shot) a file whose subfolder is not listed is
 * missing without a stat of its own: most shots have no keyframes, and a failed stat is the dear kind.
 * A file that really lies outside the fence (a link leading out) counts as missing and is never opened.
 */
export class FileProbe {
  private readonly states = new Map<string, Promise<FileState>>();
  private readonly caches: Caches;
  private readonly fence: Fence;
  private readonly gates: readonly string[];
  private readonly gateNames = new Map<string, Promise<ReadonlySet<string>>>();

  /** `services`' caches keep the listings and the SHA-1s across requests. */
  constructor(services: WithCaches, fence: Fence, gates: readonly string[] = []) {
    this.caches = services.caches;
    this.fence = fence;
    this.gates = gates.map((g) => path.resolve(g) + path.sep);
  }

  private async gated(abs: string): Promise<boolean> {
    for (const gate of this.gates) {
      if (!abs.startsWith(gate)) continue;
      const first = abs.slice(gate.length).split(path.sep)[0];
      let names = this.gateNames.get(gate);
      if (!names) {
        names = folderNames(this.caches, this.fence, gate.slice(0, -1));
        this.gateNames.set(gate, names);
      }
      return !(await names).has(first);
    }
    return false;
  }

  state(abs: string): Promise<FileState> {
    let p = this.states.get(abs);
    if (!p) {
      p = this.read(abs);
      this.states.set(abs, p);
    }
    return p;
  }

  private async read(abs: string): Promise<FileState> {
    if (await this.gated(abs)) return MISSING;
    const real = await realInside(this.fence, abs);
    const st = real === null ? null : await stat(real, { bigint: true }).catch(() => null);
    if (!st?.isFile()) return MISSING;
    return { exists: true, key: `${st.size}:${st.mtimeNs}:${st.ino}`, size: st.size, mtimeNs: st.mtimeNs };
  }

  async exists(abs: string): Promise<boolean> {
    return (await this.state(abs)).exists;
  }

  async sha1(abs: string): Promise<string | null> {
    const st = await this.state(abs);
    if (!st.exists) return null;
    const sha1Cache = this.caches.of(SHA1S);
    const hit = sha1Cache.get(abs);
    if (hit && hit.key === st.key) return hit.sha1;
    const sha1 = hashFile(this.fence, abs);
    sha1Cache.set(abs, { key: st.key, sha1 });
    return sha1;
  }
}

// ------------------------------------------------------------------------------------------- hashes

const HASHES = cacheSlot("entry hashes", () => ({
  story: new WeakMap<Entry, string>(),
  preset: new WeakMap<Entry, { defaults: Record<string, unknown>; hash: string }>(),
}));

/** storyHash of a (cached, unchanging) entry, computed once per entry object. */
export function entryStoryHash(services: WithCaches, entry: Entry): string {
  const storyHashes = services.caches.of(HASHES).story;
  let h = storyHashes.get(entry);
  if (h === undefined) {
    h = storyHash(entry);
    storyHashes.set(entry, h);
  }
  return h;
}

export function entryPresetHash(
  services: WithCaches,
  defaults: Record<string, unknown>,
  entry: Entry,
): string {
  const presetHashes = services.caches.of(HASHES).preset;
  const hit = presetHashes.get(entry);
  if (hit && hit.defaults === defaults) return hit.hash;
  const hash = presetHash(defaults, entry);
  presetHashes.set(entry, { defaults, hash });
  return hash;
}

// ------------------------------------------------------------------------------------------- inputs

/** What the take's own target would render now: its entry and that target's pass defaults. */
export interface CurrentEntry {
  entry: Entry;
  /** Null when unknown (a target the build has no document for): `preset` is then not judged. */
  defaults: Record<string, unknown> | null;
}

/** The shot before this one in the cut (orphans and `out` entries skipped) and the take the cut plays there. */
export interface ChainView {
  prevShot: string | null;
  prevTake: number | null;
  prevPass: Pass | null;
  /** The `finished` time of that take's sidecar. */
  prevFinished: string | null;
}

export interface StaleInputs {
  /** The pass the takes belong to (a `continued_from` without `pass` means this one). */
  pass: Pass;
  /** The target the shot's next render uses. */
  nextTarget: string;
  /** The current entry for a target, or null when the shot cannot be compiled for it. */
  current(target: string): CurrentEntry | null;
  /** An absolute path for a reference path as sidecars and entries record it. */
  resolve(p: string): string;
  probe: FileProbe;
  chain: ChainView;
  /** Where the entries' hashes are kept. */
  caches: Caches;
}

/** A sidecar from before sidecars carried provenance (no story hash or target) cannot be judged. */
export function isPreSidecar(sidecar: Record<string, unknown> | null): boolean {
  return sidecar === null || str(sidecar.shot_hash) === null || str(sidecar.target) === null;
}

/** `script`: the story hash recorded at render time is not the current entry's. */
export function scriptStale(services: WithCaches, sidecar: Record<string, unknown>, entry: Entry): boolean {
  const recorded = str(sidecar.shot_hash);
  return recorded !== null && recorded !== entryStoryHash(services, entry);
}

/** `preset`: the pass defaults or the entry's own model/LoRA/steps moved since the take (when it recorded a hash). */
export function presetStale(
  services: WithCaches,
  sidecar: Record<string, unknown>,
  cur: CurrentEntry,
): boolean {
  const recorded = str(sidecar.preset_hash);
  if (recorded === null || cur.defaults === null) return false;
  return recorded !== entryPresetHash(services, cur.defaults, cur.entry);
}

/** `chain`: a latent continuation whose previous shot, take or render moved. */
export function chainStale(sidecar: Record<string, unknown>, chain: ChainView, pass: Pass): boolean {
  const from = sidecar.continued_from;
  if (!isObject(from)) return false;
  if (chain.prevShot === null || chain.prevShot !== from.shot) return true;
  if (chain.prevTake === null || chain.prevTake !== from.take) return true;
  const fromPass = from.pass === "final" || from.pass === "proxy" ? from.pass : pass;
  if (chain.prevPass !== fromPass) return true;
  // Re-rendered: the take continued from finished again after this one did.
  const prev = chain.prevFinished ? Date.parse(chain.prevFinished) : Number.NaN;
  const finished = str(sidecar.finished);
  const own = finished ? Date.parse(finished) : Number.NaN;
  return Number.isFinite(prev) && Number.isFinite(own) && prev > own;
}

// Files composed for the take itself (reference sheet, dialogue slice) live in its folder and never change.
const TAKE_FILE = /^renders(_proxy)?[\\/]/;

/** The reference paths a sidecar recorded that can move under it. */
export function recordedRefs(sidecar: Record<string, unknown>): { path: string; sha1: string | null }[] {
  const out: { path: string; sha1: string | null }[] = [];
  const refs = Array.isArray(sidecar.refs) ? sidecar.refs : [];
  for (const r of refs) {
    if (!isObject(r)) continue;
    const p = str(r.path);
    if (p === null || TAKE_FILE.test(p)) continue;
    out.push({ path: p, sha1: str(r.sha1) });
  }
  const missing = Array.isArray(sidecar.missing_refs) ? sidecar.missing_refs : [];
  for (const m of missing) {
    const p = isObject(m) ? str(m.path) : null;
    if (p !== null && !TAKE_FILE.test(p)) out.push({ path: p, sha1: null });
  }
  return out;
}

/**
 * `ref`: a recorded file changed (its SHA-1 now differs, or it is gone), or a file the take rendered without
 * (recorded with no SHA-1, listed in `missing_refs`, or a keyframe its entry reads that the take did not
 * record) exists now, so a render would use it.
 */
export async function refStale(
  sidecar: Record<string, unknown>,
  entry: Entry | null,
  inp: Pick<StaleInputs, "resolve" | "probe">,
): Promise<boolean> {
  if (!Array.isArray(sidecar.refs) && !Array.isArray(sidecar.missing_refs)) return false;
  const recorded = recordedRefs(sidecar);
  const used = new Set<string>();
  const checks: Promise<boolean>[] = [];
  for (const r of recorded) {
    const abs = inp.resolve(r.path);
    if (r.sha1 !== null) {
      used.add(abs);
      checks.push(inp.probe.sha1(abs).then((now) => now !== r.sha1));
    } else {
      checks.push(inp.probe.exists(abs));
    }
  }
  const keyframes = entry && isObject(entry.keyframes) ? Object.values(entry.keyframes) : [];
  for (const k of keyframes) {
    const p = str(k);
    if (p === null) continue;
    const abs = inp.resolve(p);
    if (!used.has(abs) && !recorded.some((r) => inp.resolve(r.path) === abs))
      checks.push(inp.probe.exists(abs));
  }
  return (await Promise.all(checks)).some(Boolean);
}

/** Every reason the take is stale, in the order script, ref, preset, target, chain; `[unknown]` before sidecars. */
export async function takeStale(t: TakeRecord, inp: StaleInputs): Promise<StaleReason[]> {
  const sc = t.sidecar;
  const target = sc?.target;
  if (sc === null || isPreSidecar(sc) || !target) return ["unknown"];
  const cur = inp.current(target);
  const out: StaleReason[] = [];
  if (cur && scriptStale(inp, sc, cur.entry)) out.push("script");
  if (await refStale(sc, cur?.entry ?? null, inp)) out.push("ref");
  if (cur && presetStale(inp, sc, cur)) out.push("preset");
  if (target !== inp.nextTarget) out.push("target");
  if (chainStale(sc, inp.chain, inp.pass)) out.push("chain");
  return out;
}

const RESOLVERS = cacheSlot("reference resolvers", () => new Map<string, (p: string) => string>());

/**
 * Absolute path of a reference as recorded: absolute as is; keyframes and take files in the episode; the rest
 * from the series home (the folder of the series config, whose paths they are). Memoised per episode.
 */
export function refResolver(services: WithCaches, ep: string, home: string): (p: string) => string {
  const resolvers = services.caches.of(RESOLVERS);
  const key = `${ep}\0${home}`;
  let resolver = resolvers.get(key);
  if (!resolver) {
    const seen = new Map<string, string>();
    resolver = (p: string) => {
      let abs = seen.get(p);
      if (abs === undefined) {
        const norm = p.replaceAll("\\", "/");
        if (path.isAbsolute(norm)) abs = path.resolve(norm);
        else if (norm.startsWith("refs/shots/") || TAKE_FILE.test(norm)) abs = path.resolve(ep, norm);
        else abs = path.resolve(home, norm);
        if (seen.size > 10_000) seen.clear();
        seen.set(p, abs);
      }
      return abs;
    };
    if (resolvers.size > 1000) resolvers.clear();
    resolvers.set(key, resolver);
  }
  return resolver;
}

/** The gate folder of an episode's keyframes (see FileProbe). */
export const keyframeGate = (ep: string) => path.join(ep, "refs", "shots");
