// Reads an episode's build for one pass: every target's shot list merged into one shot map, in script order.
import path from "node:path";
import type { Entry, Pass, ShotlistDoc } from "../compile/types.ts";
import { StudioError } from "../errors.ts";
import { episodeFence, readShowDir, readShowJson, readShowText, statShowOrNull } from "../paths/guarded.ts";
import { storyFromJson } from "../script/story.ts";
import type { Story } from "../script/types.ts";
import { cacheSlot, type WithCaches } from "../store/caches.ts";

/** The reference's default target: a shot list without `target` is an H3 Ref2VA document. */
export const UNNAMED_TARGET = "minimax_h3_ref2va";

export interface BuiltShot {
  id: string;
  /** The compiled entry (seed is a bigint). Shared with the cache: do not mutate. */
  entry: Entry;
  target: string;
  sequence: string;
  /** Position in the script, 0-based. */
  index: number;
}

export interface Build {
  pass: Pass;
  seriesTarget: string;
  docs: Record<string, ShotlistDoc>;
  shots: Map<string, BuiltShot>;
  /** Shot ids in script order. */
  order: string[];
}

export const shotlistDir = (ep: string) => path.join(ep, "shotlist");

const BUILDS = cacheSlot("builds", () => new Map<string, { key: string; build: Build }>());
const STORIES = cacheSlot("stories", () => new Map<string, { key: string; story: Story }>());

/** The pass's build, or null when the pass has not been built (no `shotlist[_proxy].json`). */
export async function readBuild(services: WithCaches, ep: string, pass: Pass): Promise<Build | null> {
  const cache = services.caches.of(BUILDS);
  const fence = episodeFence(ep);
  const dir = shotlistDir(ep);
  let names: string[];
  try {
    names = await readShowDir(fence, dir);
  } catch (err) {
    if (err instanceof StudioError) throw err;
    return null;
  }
  const main = pass === "final" ? "shotlist.json" : "shotlist_proxy.json";
  if (!names.includes(main)) return null;
  const others = names
    .filter((n) => n !== main && n.startsWith("shotlist.") && n.endsWith(".json"))
    .filter((n) => (pass === "proxy" ? n.endsWith("_proxy.json") : !n.endsWith("_proxy.json")))
    .sort();
  const files = [main, ...others];
  const stats = await Promise.all(files.map((f) => statShowOrNull(fence, path.join(dir, f))));
  const key = files.map((f, i) => `${f}:${stats[i]?.mtimeMs}:${stats[i]?.size}`).join("|");
  const cacheKey = `${ep}\0${pass}`;
  const hit = cache.get(cacheKey);
  if (hit && hit.key === key) return hit.build;

  const docs: Record<string, ShotlistDoc> = {};
  let seriesTarget = UNNAMED_TARGET;
  for (const f of files) {
    const doc = (await readShowJson(services, fence, path.join(dir, f), `shotlist/${f}`)) as
      | ShotlistDoc
      | undefined;
    if (!doc) continue;
    const target =
      doc.target ??
      (f === main ? UNNAMED_TARGET : f.slice("shotlist.".length).replace(/(_proxy)?\.json$/, ""));
    if (f === main) seriesTarget = target;
    docs[target] = doc;
  }
  const shots = new Map<string, BuiltShot>();
  for (const [target, doc] of Object.entries(docs)) {
    for (const entry of doc.shots ?? []) {
      const id = String(entry.id);
      shots.set(id, { id, entry, target, sequence: String(entry.sequence ?? ""), index: -1 });
    }
  }
  const story = await readStory(services, ep);
  const scriptOrder = story ? story.sequences.flatMap((s) => s.shots.map((shot) => shot.id)) : [];
  const inScript = new Set(scriptOrder);
  const order = [
    ...scriptOrder.filter((id) => shots.has(id)),
    ...[...shots.keys()].filter((id) => !inScript.has(id)),
  ];
  order.forEach((id, i) => {
    const s = shots.get(id);
    if (s) s.index = i;
  });
  const build: Build = { pass, seriesTarget, docs, shots, order };
  cache.set(cacheKey, { key, build });
  return build;
}

/** `shotlist/shots.json` (the story IR), or null when absent or unreadable. */
export async function readStory(services: WithCaches, ep: string): Promise<Story | null> {
  const storyCache = services.caches.of(STORIES);
  const fence = episodeFence(ep);
  const file = path.join(shotlistDir(ep), "shots.json");
  const st = await statShowOrNull(fence, file);
  if (!st) return null;
  const key = `${st.mtimeMs}:${st.size}`;
  const hit = storyCache.get(ep);
  if (hit && hit.key === key) return hit.story;
  try {
    const story = storyFromJson(await readShowText(fence, file));
    storyCache.set(ep, { key, story });
    return story;
  } catch {
    return null;
  }
}
