// Writing a new episode folder: the starter pair, a template config renamed, the one-shot skeleton script,
// rolled back whole when anything fails.
import { mkdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import { badRequest, conflict, forbidden, StudioError } from "../errors.ts";
import { episodeFence, writeShowFile } from "../paths/guarded.ts";
import { JsonSyntaxError } from "../series/errors.ts";
import { loadSeries, parseSeriesJson } from "../series/load.ts";
import { errorCode, errorMessage, isObject } from "../store/json-guards.ts";
import { type CheckResult, checkSources } from "./check.ts";
import { compileEnv } from "./compile-env.ts";
import { SERIES_FILE } from "./files.ts";
import { type EpisodeSummary, episodeSummary } from "./find.ts";
import { readSources } from "./sources.ts";
export type Obj = Record<string, unknown>;

const STARTER = new URL("./starter/", import.meta.url);

/** The shipped starter pair (series.json text and starter.md text). */
export async function starterPair(): Promise<{ series: string; script: string }> {
  const [series, script] = await Promise.all([
    readFile(new URL("series.json", STARTER), "utf8"),
    readFile(new URL("starter.md", STARTER), "utf8"),
  ]);
  return { series, script };
}

/** A config given in a body (JSON text or an object): it must parse and hold a `series` block, else 400. */
export function parseSeriesValue(value: unknown, field: string): { text: string | null; obj: Obj } {
  let raw: unknown = value;
  let text: string | null = null;
  if (typeof value === "string") {
    text = value;
    try {
      raw = parseSeriesJson(value);
    } catch (err) {
      if (err instanceof JsonSyntaxError) {
        throw badRequest(`${field}: ${err.message}`, { line: err.line, col: err.col });
      }
      throw err;
    }
  }
  if (!isObject(raw)) throw badRequest(`${field} must be a series config: a JSON object`);
  if (!isObject(raw.series)) {
    throw badRequest(`${field} has no \`series\` block: give at least {"series": {"id": …, "title": …}}`);
  }
  return { text, obj: raw };
}

/** JSON text of a config in the files' style: 2-space indent, final newline. */
export function configText(obj: Obj): string {
  return `${JSON.stringify(obj, null, 2)}\n`;
}

/** Sets `series.id` and `series.title` where given; true when anything changed. */
export function nameSeries(obj: Obj, id: string | undefined, title: string | undefined): boolean {
  const block = obj.series;
  // The config was checked to have a series block when it was read.
  if (!isObject(block)) return false;
  let changed = false;
  if (id !== undefined && block.id !== id) {
    block.id = id;
    changed = true;
  }
  if (title !== undefined && block.title !== title) {
    block.title = title;
    changed = true;
  }
  return changed;
}

interface PathField {
  get(): unknown;
  set(v: string): void;
}

// The places a config names files: sheets, voice samples, plates and the audio track (script format 3).
function pathFields(obj: Obj): PathField[] {
  const out: PathField[] = [];
  const each = (block: unknown, keys: string[]) => {
    if (!isObject(block)) return;
    for (const [id, entry] of Object.entries(block)) {
      if (id.startsWith("_") || !isObject(entry)) continue;
      for (const key of keys) out.push({ get: () => entry[key], set: (v) => (entry[key] = v) });
    }
  };
  each(obj.subjects, ["sheet", "voice_sample"]);
  each(obj.locations, ["plate"]);
  const audio = obj.audio;
  if (isObject(audio)) out.push({ get: () => audio.track, set: (v) => (audio.track = v) });
  return out;
}

const isRelative = (p: string) => !/^([\\/]|[A-Za-z]:)/.test(p);

/** The reference paths a config names, relative to the episode, `/`-separated, in config order. */
export function configRefs(obj: Obj): string[] {
  const out: string[] = [];
  for (const f of pathFields(obj)) {
    const v = f.get();
    if (typeof v !== "string" || v.trim() === "") continue;
    const p = v.trim().replace(/\\/g, "/");
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

/** A show folder's config copied into an episode: its relative paths now start one folder lower. */
export function rebaseToEpisode(obj: Obj): boolean {
  let changed = false;
  for (const f of pathFields(obj)) {
    const v = f.get();
    if (typeof v === "string" && v.trim() !== "" && isRelative(v)) {
      f.set(`../${v}`);
      changed = true;
    }
  }
  return changed;
}

/** `audio.track` follows the new episode's name where it carries the old one (`audio/ep01.wav` → `audio/ep02.wav`). */
export function renameTrack(obj: Obj, from: string, to: string): boolean {
  const audio = obj.audio;
  if (!isObject(audio) || typeof audio.track !== "string") return false;
  const escaped = from.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const renamed = audio.track.replace(new RegExp(`(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])`, "g"), to);
  if (renamed === audio.track) return false;
  audio.track = renamed;
  return true;
}

/** The episode header line: `= <id>  <title>`, or just `= <id>` without a title. */
function header(name: string, title: string | undefined): string {
  return title ? `= ${name}  ${title}` : `= ${name}`;
}

/** A header, one sequence on the config's first location, one 3-second shot of its first character. */
export function skeletonScript(name: string, title: string | undefined, config: Obj | null): string {
  let location = "";
  let character: { id: string; name: string } | null = null;
  try {
    const loaded = loadSeries(config);
    const locs = Object.entries(loaded.locations);
    location = (locs.find(([, l]) => !l.of) ?? locs[0])?.[0] ?? "";
    // Only a character with a design can be on screen; a voice-only one would fail the build.
    const id = loaded.characters.find((c) => (loaded.subjects[c].design ?? "").trim() !== "");
    if (id) character = { id, name: loaded.subjects[id].name };
  } catch {
    // A config that does not load still gets a skeleton; the check reports what is wrong with it.
    const locs = config && isObject(config.locations) ? Object.keys(config.locations) : [];
    location = locs.find((k) => !k.startsWith("_")) ?? "";
  }
  const lines = [header(name, title), "", `# sq01  ${location || "somewhere"}`, "", "## sh010"];
  if (character) lines.push(`who: ${character.id}`);
  lines.push("dur: 3", character ? `${character.name} stands still, waiting.` : "Nothing moves yet.", "");
  return lines.join("\n");
}

/** The starter script with its header line replaced by the new episode's. */
export function renameStarterScript(text: string, name: string, title: string | undefined): string {
  return text.replace(/^= (\S+)(?:[ \t]+([^\r\n]*?))?[ \t]*$/m, (_all, _id, old: string | undefined) =>
    header(name, title ?? old?.trim()),
  );
}

export interface WrittenEpisode {
  ep: string;
  files: string[];
  check: CheckResult;
  episode: EpisodeSummary | null;
}

/** `checkSources` on what is on disk now, as POST /studio/source/check would run it. */
export async function checkOnDisk(
  ctx: Pick<Services, "home" | "targets" | "caches">,
  ep: string,
): Promise<CheckResult> {
  const sources = await readSources(ep);
  const env = await compileEnv(ctx, sources.showDir ?? ep);
  return checkSources(
    { file: "script", scriptText: sources.script?.text ?? null, seriesText: sources.series?.text ?? null },
    env,
  );
}

/**
 * Creates `<parent>/<name>` holding the script (and the config when given), then checks it. The folder is made
 * first and exclusively, so an existing one is a 409 with nothing written; any later failure removes the folder.
 */
export async function writeEpisode(
  ctx: Pick<Services, "home" | "targets" | "caches">,
  parent: string,
  name: string,
  script: string,
  series: string | null,
): Promise<WrittenEpisode> {
  const ep = path.join(parent, name);
  try {
    await mkdir(ep);
  } catch (err) {
    const code = errorCode(err);
    if (code === "EEXIST") {
      throw conflict(`name: "${name}" already exists in ${parent}; nothing was changed`);
    }
    if (code === "EACCES" || code === "EPERM") throw forbidden(`parent: cannot create a folder in ${parent}`);
    throw new StudioError(500, `cannot create ${ep}: ${errorMessage(err)}`);
  }
  try {
    const files = [`${name}.md`];
    // The folder was just made by us inside a checked parent; the fence still holds the writes to it.
    const fence = episodeFence(ep);
    await writeShowFile(fence, path.join(ep, `${name}.md`), script);
    if (series !== null) {
      await writeShowFile(fence, path.join(ep, SERIES_FILE), series);
      files.push(SERIES_FILE);
    }
    const [check, episode] = await Promise.all([checkOnDisk(ctx, ep), episodeSummary(ep)]);
    return { ep, files, check, episode };
  } catch (err) {
    await rm(ep, { recursive: true, force: true }).catch(() => {});
    throw err;
  }
}

/** An optional one-line text field: trimmed, empty counts as absent. */
export function oneLine(value: string | null | undefined, field: string): string | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (/[\r\n]/.test(v)) throw badRequest(`${field} must be a single line`);
  return v;
}
