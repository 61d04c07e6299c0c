// Relighting locations: each plate of a sequence (its header's location and its shots' `plate:` angles) or of the
// named locations gets a new location `<id>_<suffix>` in the series config, with `of` (its source), `relight` (the
// preset or instruction), the source's description plus the new light, and a plate path beside the source's; the
// script can be repointed to them. The series config and script are written as saves are (history copy, atomic).
import path from "node:path";
import type { Services } from "../context.ts";
import { encodeLike, readSourceFile, replaceSourceBytes } from "../episode/source-file.ts";
import { badRequest, StudioError } from "../errors.ts";
import { parseSeriesJson } from "../series/load.ts";
import { isObject, textOf } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import type { TargetRegistryView } from "../targets/registry.ts";
import { type GenerateDeps, generateBody, generateRefs, type QueuedCandidate } from "./generate.ts";

/** A light preset: the instruction the edit model is given, and the phrase the description gains. */
export interface RelightPreset {
  instruction: string;
  light: string;
}

const KEEP =
  "Keep every object, surface, the layout and the camera exactly as they are; change only the light.";

export const RELIGHT_PRESETS: Readonly<Record<string, RelightPreset>> = {
  night: {
    instruction: `Relight this scene as night: a dark sky, cool moonlight, warm practical lamps and deep shadows. ${KEEP}`,
    light: "at night, lit by cool moonlight and warm practical lamps",
  },
  dusk: {
    instruction: `Relight this scene at dusk: the deep blue light just after sunset, lamps starting to glow. ${KEEP}`,
    light: "at dusk, in the blue light just after sunset",
  },
  dawn: {
    instruction: `Relight this scene at dawn: soft pink and pale gold early light, long faint shadows, a little mist. ${KEEP}`,
    light: "at dawn, in soft pink early light",
  },
  overcast: {
    instruction: `Relight this scene under a flat overcast sky: soft, even, shadowless daylight, muted colours. ${KEEP}`,
    light: "under a flat overcast sky, in soft even daylight",
  },
  golden_hour: {
    instruction: `Relight this scene at golden hour: low warm sunlight, long shadows, a golden glow on every surface. ${KEEP}`,
    light: "at golden hour, in low warm sunlight with long shadows",
  },
};

export const SUFFIX_RULE = "suffix must be letters, digits and _ only (at most 40)";
const SUFFIX = /^[A-Za-z0-9_]{1,40}$/;
const MAX_INSTRUCTION = 1000;

/** What the relight asks for: its preset (or none), the edit instruction, the light phrase, the suffix. */
export function relightOf(
  relight: string,
  suffix: string | null,
): { preset: string | null; instruction: string; light: string; suffix: string } {
  const text = relight.trim();
  if (!text)
    throw badRequest(
      `relight must be a preset (${Object.keys(RELIGHT_PRESETS).join(", ")}) or an instruction`,
    );
  if (text.length > MAX_INSTRUCTION)
    throw badRequest(`relight is ${text.length} characters; at most ${MAX_INSTRUCTION}`);
  const preset = Object.hasOwn(RELIGHT_PRESETS, text) ? text : null;
  const sfx = suffix?.trim() || preset || "relit";
  if (!SUFFIX.test(sfx)) throw badRequest(`${SUFFIX_RULE}, got ${JSON.stringify(sfx.slice(0, 60))}`);
  if (preset) return { preset, ...RELIGHT_PRESETS[preset], suffix: sfx };
  const sentence = text.replace(/\s+/g, " ").replace(/[.\s]+$/, "");
  return { preset: null, instruction: text, light: `relit: ${sentence}`, suffix: sfx };
}

/** The source's description with the new light added. */
export function relitDescription(description: string, light: string): string {
  const base = description.trim().replace(/[.;,\s]+$/, "");
  return base ? `${base}, ${light}` : light;
}

/** The relit plate's path: beside the source's plate, named for the new id, keeping its extension. */
export function relitPlatePath(sourcePlate: string, id: string): string {
  const norm = sourcePlate.replaceAll("\\", "/");
  const ext = path.posix.extname(norm) || ".png";
  const dir = path.posix.dirname(norm);
  return dir === "." ? `${id}${ext}` : `${dir}/${id}${ext}`;
}

// ------------------------------------------------------------------------------------------- the script

/** One script line with its (0-based) index. */
interface SeqLine {
  index: number;
  kind: "header" | "plate";
  value: string;
}

const HEADER = /^# (\S+)\s+(\S+)/;
const PLATE = /^plate\s*:\s*(\S.*?)\s*$/;

/** The lines of sequence `id` that name a location: its header's, then its shots' `plate:` lines; null when absent. */
export function sequenceLines(script: string, id: string): SeqLine[] | null {
  const lines = script.split("\n");
  let inside = false;
  let found = false;
  const out: SeqLine[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\s+$/, "");
    if (line.startsWith("# ")) {
      const m = HEADER.exec(line);
      inside = m !== null && m[1] === id;
      if (inside && m) {
        found = true;
        out.push({ index: i, kind: "header", value: m[2] });
      }
      continue;
    }
    if (!inside) continue;
    const p = PLATE.exec(line);
    if (p) out.push({ index: i, kind: "plate", value: p[1] });
  }
  return found ? out : null;
}

/** The script with the sequence's location names replaced as `to` maps them; the lines changed. */
export function repointScript(
  script: string,
  lines: readonly SeqLine[],
  to: ReadonlyMap<string, string>,
): { text: string; changed: { line: number; from: string; to: string }[] } {
  const all = script.split("\n");
  const changed: { line: number; from: string; to: string }[] = [];
  for (const l of lines) {
    const next = to.get(l.value);
    if (!next) continue;
    const old = all[l.index];
    all[l.index] =
      l.kind === "header"
        ? old.replace(HEADER, (_m, seq: string) => `# ${seq} ${next}`)
        : old.replace(
            /^(plate\s*:\s*)\S.*?(\s*)$/,
            (_m, head: string, tail: string) => `${head}${next}${tail}`,
          );
    changed.push({ line: l.index + 1, from: l.value, to: next });
  }
  return { text: all.join("\n"), changed };
}

// ------------------------------------------------------------------------------------------- the request

export interface RelightRequest {
  relight: string;
  sequence?: string | null;
  locations?: string[] | null;
  suffix?: string | null;
  repoint?: boolean | null;
  dry_run?: boolean | null;
}

export interface RelitLocation {
  source: string;
  id: string;
  /** The relit location was already in the series config from the same relight (kept as it is). */
  exists: boolean;
  entry: Record<string, unknown>;
}

export interface RelightPlan {
  instruction: string;
  preset: string | null;
  locations: RelitLocation[];
  /** The sequence's script lines naming a location (sequence only). */
  lines: SeqLine[] | null;
}

type RelightServices = Pick<Services, "now" | "caches" | "locks">;

/** The relit locations a request makes, from the series config and script as they are; 400s as the contract lists. */
export function planRelight(series: unknown, script: string | null, req: RelightRequest): RelightPlan {
  const hasSeq = typeof req.sequence === "string" && req.sequence.trim() !== "";
  const hasLocs = Array.isArray(req.locations) && req.locations.length > 0;
  if (hasSeq && hasLocs) throw badRequest("give sequence or locations, not both");
  if (!hasSeq && !hasLocs) throw badRequest("give a sequence (its plates are relit) or locations");
  if (req.repoint && !hasSeq)
    throw badRequest("repoint rewrites a sequence's lines: it needs sequence, not locations");
  const { preset, instruction, light, suffix } = relightOf(req.relight, req.suffix ?? null);
  const locs = isObject(series) && isObject(series.locations) ? series.locations : {};
  const known = () =>
    Object.keys(locs)
      .filter((k) => !k.startsWith("_"))
      .sort()
      .join(", ") || "none";
  let sources: string[];
  let lines: SeqLine[] | null = null;
  if (hasSeq) {
    const id = (req.sequence as string).trim();
    lines = script === null ? null : sequenceLines(script, id);
    if (!lines) throw badRequest(`the script has no sequence ${id}`);
    sources = [...new Set(lines.map((l) => l.value))];
  } else {
    sources = [...new Set((req.locations as string[]).map((l) => l.trim()))];
  }
  const out: RelitLocation[] = [];
  for (const source of sources) {
    const entry = Object.hasOwn(locs, source) ? locs[source] : undefined;
    if (!isObject(entry))
      throw badRequest(`${source} is not a location of the series config (locations: ${known()})`);
    const plate = textOf(entry.plate);
    if (!plate)
      throw badRequest(`${source} has no plate in the series config: there is no picture to relight`);
    const id = `${source}_${suffix}`;
    // An angle's relit copy is another angle of the same master (an angle may not name an angle); it keeps
    // which picture it was relit from.
    const master = textOf(entry.of);
    const relit: Record<string, unknown> = {
      of: master ?? source,
      ...(master ? { relit_from: source } : {}),
      relight: preset ?? instruction,
      description: relitDescription(textOf(entry.description) ?? "", light),
      plate: relitPlatePath(plate, id),
    };
    const taken = Object.hasOwn(locs, id) ? locs[id] : undefined;
    if (taken !== undefined) {
      const same =
        isObject(taken) && (taken.relit_from ?? taken.of) === source && taken.relight === relit.relight;
      if (!same) {
        throw badRequest(
          `${id} is taken in the series config by another location: choose another suffix (letters, digits, _)`,
        );
      }
      out.push({ source, id, exists: true, entry: { ...taken } });
      continue;
    }
    out.push({ source, id, exists: false, entry: relit });
  }
  return { instruction, preset, locations: out, lines };
}

/** The series config text with the new locations added (the rest as parsed, written with 2-space indent). */
export function withLocations(text: string, add: readonly RelitLocation[]): string {
  const raw = parseSeriesJson(text);
  if (!isObject(raw)) throw badRequest("the series config is not a JSON object");
  const locations = isObject(raw.locations) ? { ...raw.locations } : {};
  for (const l of add) if (!l.exists) locations[l.id] = l.entry;
  return `${JSON.stringify({ ...raw, locations }, null, 2)}\n`;
}

/** Reads the series config and script, plans, and (unless a dry run) writes both under the episode lock. */
export async function relightLocations(
  services: RelightServices,
  ep: string,
  req: RelightRequest,
): Promise<{ plan: RelightPlan; repointed: { line: number; from: string; to: string }[]; wrote: boolean }> {
  return withLock(services, ep, async () => {
    const series = await readSourceFile(ep, "series");
    const script = req.sequence ? await readSourceFile(ep, "script").catch(() => null) : null;
    let parsed: unknown;
    try {
      parsed = parseSeriesJson(series.text);
    } catch (err) {
      throw badRequest(`the series config does not load: ${(err as Error).message}`);
    }
    const plan = planRelight(parsed, script?.text ?? null, req);
    const fresh = plan.locations.filter((l) => !l.exists);
    let repointed: { line: number; from: string; to: string }[] = [];
    let nextScript: string | null = null;
    if (req.repoint && script && plan.lines) {
      const to = new Map(plan.locations.map((l) => [l.source, l.id]));
      const r = repointScript(script.text, plan.lines, to);
      repointed = r.changed;
      nextScript = r.text;
    }
    if (req.dry_run) return { plan, repointed, wrote: false };
    const now = services.now();
    if (fresh.length) {
      const bytes = encodeLike(withLocations(series.text, fresh), series);
      await replaceSourceBytes(ep, series, bytes, now);
    }
    if (script && nextScript !== null && nextScript !== script.text) {
      await replaceSourceBytes(ep, script, encodeLike(nextScript, script), now);
    }
    return { plan, repointed, wrote: fresh.length > 0 || repointed.length > 0 };
  });
}

/** The edit target the plates are changed on: the one asked (400 unless an edit target), else the first there is. */
export function editTarget(
  asked: string | null,
  defaults: { keyframe_target: string },
  registry: Pick<TargetRegistryView, "get" | "ids">,
): string {
  const isEdit = (id: string) => registry.get(id)?.capabilities.mode === "edit";
  const edits = registry.ids("image").filter(isEdit);
  if (asked) {
    if (!isEdit(asked)) {
      throw badRequest(
        `${asked} is not an edit target: a relight changes the plate it is given (edit targets: ${edits.join(", ") || "none"})`,
      );
    }
    return asked;
  }
  if (isEdit(defaults.keyframe_target)) return defaults.keyframe_target;
  if (!edits[0]) throw badRequest("no edit target is installed: a relight needs one to change the plates");
  return edits[0];
}

// ------------------------------------------------------------------------------------------- the edits

export interface RelightEdits {
  queued: QueuedCandidate[];
  errors: { ref: string; source: string; target: string; error: string }[];
}

/**
 * One edit per relit location (`count` candidates each): the source location's live plate is image 1, the
 * relight instruction the prompt, and the result a candidate of the relit location. A plate that cannot be
 * queued (no live plate, a target not installed) is an `errors` entry naming it; the rest still queue.
 */
export async function queueRelitPlates(
  services: Parameters<typeof generateRefs>[0],
  ep: string,
  plan: Pick<RelightPlan, "instruction" | "locations">,
  ask: { target: string; count: number | null; backend: string | null },
  deps: GenerateDeps,
): Promise<RelightEdits> {
  const out: RelightEdits = { queued: [], errors: [] };
  for (const l of plan.locations) {
    const ref = `location:${l.id}`;
    const source = `location:${l.source}`;
    const fail = (error: string) => out.errors.push({ ref, source, target: ask.target, error });
    try {
      const body = generateBody.parse({
        ep,
        ref,
        prompt: plan.instruction,
        target: ask.target,
        count: ask.count ?? 1,
        backend: ask.backend,
        edit: { wrap: true },
      });
      const answer = await generateRefs(services, ep, body, deps, { editFrom: { ref: source } });
      out.queued.push(...answer.queued);
      for (const e of answer.errors) fail(e.error);
    } catch (err) {
      if (!(err instanceof StudioError)) throw err;
      fail(`the plate of ${l.id} is not queued: ${err.message}`);
    }
  }
  return out;
}
