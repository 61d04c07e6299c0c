// Promote (script-format.md §5.5, api-extras §1.17): move what the authored files can say out of the overrides,
// verified by compiling the edited files in memory; every shot must render exactly as before.
import path from "node:path";
import { BuildError, buildEpisode, type Entry, type Pass, shotError } from "../compile/build.ts";
import { resolveSeriesTarget } from "../compile/choose.ts";
import { compileTarget } from "../compile/compile.ts";
import { makeContext } from "../compile/context.ts";
import { sentence } from "../compile/prompts/text.ts";
import { checkDesigns, isGroup } from "../compile/slots.ts";
import type { Services } from "../context.ts";
import { badRequest, notFound } from "../errors.ts";
import { type Fence, folderFence, readShowJson, writeShowFile } from "../paths/guarded.ts";
import { seriesHome } from "../paths/series-home.ts";
import { pyJson, sha1Hex } from "../script/canonical.ts";
import { ScriptError } from "../script/errors.ts";
import { parseScript } from "../script/parse.ts";
import { allShots } from "../script/story.ts";
import type { Story } from "../script/types.ts";
import { JsonSyntaxError, SeriesError } from "../series/errors.ts";
import { type Lora, loadSeries, parseLoras, validateProfiles } from "../series/load.ts";
import type { SeriesConfig, Subject } from "../series/types.ts";
import { forgetJsonFile } from "../store/json-file.ts";
import { isObject } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import { type CompileEnv, compileEnv } from "./compile-env.ts";
import { jsonKeyLines, lineOfKey } from "./json-lines.ts";
import { locateBuildError, ScriptIndex } from "./locate.ts";
import {
  type OverridesFile,
  type PassOverride,
  readOverrides,
  type TargetOverride,
  targetBlock,
  writeOverrides,
} from "./overrides-file.ts";
import type { BuildAnswer } from "./run-build.ts";
import {
  changedOnDisk,
  encodeLike,
  readSourceFile,
  rebuildEpisode,
  replaceSourceBytes,
  type SourceFile,
  sha1Bytes,
} from "./source-file.ts";
import { shotTarget } from "./target-choice.ts";

// ------------------------------------------------------------------------------------------------ shapes

export type Scope = "shot" | "episode" | "ref";

export interface PromoteItem {
  id: string;
  scope: Scope;
  shot?: string;
  ref?: string;
  view?: string;
  field: string;
  value: unknown;
  dest: "script" | "series";
  /** 1-based line of the promoted key in the edited file. */
  line?: number;
  summary: string;
}

export interface LeftEntry {
  scope: Scope;
  shot?: string;
  ref?: string;
  view?: string;
  pass?: Pass;
  field: string;
  reason: string;
}

export interface PromotePlan {
  items: PromoteItem[];
  left: LeftEntry[];
  diffs: { script: string; series: string };
  hashes: { script: string; series: string };
}

export interface PromoteResult {
  promoted: PromoteItem[];
  left: LeftEntry[];
  hashes: { script: string; series: string };
  build: BuildAnswer | null;
}

/** `<series home>/refs/_overrides.json` (api-extras §5.4): one level per ref, plus `views` for characters. */
interface RefOverride {
  prompt?: string;
  base_hash?: string;
  views?: Record<string, RefOverride>;
  [field: string]: unknown;
}
interface RefOverridesFile {
  refs?: Record<string, RefOverride>;
  [other: string]: unknown;
}

type ScriptEdit = { kind: "script"; shot: string; key: string; text: string };
type SeriesEdit = { kind: "series"; keyPath: string[]; value: string };

interface Candidate {
  item: PromoteItem;
  edit: ScriptEdit | SeriesEdit;
  /** Drops exactly the promoted override from the (cloned) override files. */
  remove(overrides: OverridesFile, refs: RefOverridesFile): void;
}

interface Inputs {
  ep: string;
  script: SourceFile;
  series: SourceFile;
  overrides: OverridesFile;
  refs: RefOverridesFile;
  refsPath: string;
  refsFence: Fence;
  env: CompileEnv;
}

const PASSES: readonly Pass[] = ["final", "proxy"];
const VIEWS = ["01_threequarter", "02_side", "03_back", "04_face"] as const;
const SETTINGS = ["model", "loras", "steps"] as const;
type Setting = (typeof SETTINGS)[number];
const LINE_KEY: Record<Setting | "target", string> = {
  target: "target",
  model: "model",
  loras: "lora",
  steps: "steps",
};

// ------------------------------------------------------------------------------------------------ entry points

/** GET /studio/promote: the plan (nothing is written). `shot` narrows it to that shot's overrides. */
export async function planPromote(services: Services, ep: string, shot?: string): Promise<PromotePlan> {
  const inputs = await readInputs(services, ep);
  const before = viewOrRefuse(inputs);
  if (shot !== undefined && !before.shots.has(shot) && !inputs.overrides.shots?.[shot]) {
    throw notFound(`shot: ${shot} is not in the script`);
  }
  const { candidates, left } = gather(inputs, before, shot);
  const checked = verify(inputs, before, candidates);
  return {
    items: checked.accepted.map((c) => c.item),
    left: [...left, ...checked.failed],
    diffs: diffsOf(inputs, checked.state),
    hashes: { script: inputs.script.hash, series: inputs.series.hash },
  };
}

/** POST /studio/promote: re-plan under the episode lock, promote the chosen items, then rebuild. */
export async function applyPromote(
  services: Services,
  ep: string,
  request: { items: string[] | "all"; hashes: { script: string; series: string } },
): Promise<PromoteResult> {
  const outcome = await withLock(ep, async () => {
    const inputs = await readInputs(services, ep);
    if (inputs.script.hash !== request.hashes.script) throw changedOnDisk(inputs.script);
    if (inputs.series.hash !== request.hashes.series) throw changedOnDisk(inputs.series);
    const before = viewOrRefuse(inputs);
    const { candidates, left } = gather(inputs, before);
    let chosen = candidates;
    if (request.items !== "all") {
      const byId = new Map(candidates.map((c) => [c.item.id, c]));
      for (const id of request.items) {
        if (!byId.has(id))
          throw badRequest(`items: '${id}' is not a promotable override now; ask for the plan again`);
      }
      const wanted = new Set(request.items);
      chosen = candidates.filter((c) => wanted.has(c.item.id));
    }
    const checked = verify(inputs, before, chosen);
    const hashes = { script: inputs.script.hash, series: inputs.series.hash };
    const leftAll = [...left, ...checked.failed];
    if (checked.accepted.length === 0) return { promoted: [], left: leftAll, hashes, refs: [] as string[] };

    // Apply order of §1.17: script, series config, overrides.json, the refs' overrides.
    const now = services.now();
    const state = checked.state;
    if (state.scriptText !== inputs.script.text) {
      const bytes = encodeLike(state.scriptText, inputs.script);
      await replaceSourceBytes(ep, inputs.script, bytes, now);
      hashes.script = sha1Bytes(bytes);
    }
    if (state.seriesText !== inputs.series.text) {
      const bytes = encodeLike(state.seriesText, inputs.series);
      await replaceSourceBytes(ep, inputs.series, bytes, now);
      hashes.series = sha1Bytes(bytes);
    }
    if (checked.accepted.some((c) => c.item.scope !== "ref")) await writeOverrides(ep, state.overrides);
    const refs = checked.accepted.filter((c) => c.item.scope === "ref").map((c) => c.item.ref!);
    if (refs.length) await writeRefOverrides(inputs.refsFence, inputs.refsPath, state.refs);
    return { promoted: checked.accepted.map((c) => c.item), left: leftAll, hashes, refs };
  });
  if (outcome.promoted.length === 0) {
    return { promoted: [], left: outcome.left, hashes: outcome.hashes, build: null };
  }
  for (const ref of outcome.refs) {
    services.events.emit("studio.ref", { ep, ref, view: null, take: null, status: "promoted" });
  }
  const { build, emitted } = await rebuildEpisode(services, ep);
  if (!emitted) services.events.emit("studio.episode", { ep });
  return { promoted: outcome.promoted, left: outcome.left, hashes: outcome.hashes, build };
}

// ------------------------------------------------------------------------------------------------ inputs

async function readInputs(services: Services, ep: string): Promise<Inputs> {
  const [script, series, overrides, home] = await Promise.all([
    readSourceFile(ep, "script"),
    readSourceFile(ep, "series"),
    readOverrides(ep),
    seriesHome(ep),
  ]);
  const refsPath = path.join(home.home, "refs", "_overrides.json");
  // The series home is the episode or its show folder, both checked real paths.
  const refsFence = folderFence(home.home, "the series home");
  const raw = await readShowJson(refsFence, refsPath, "refs/_overrides.json");
  const refs = isObject(raw) ? (structuredClone(raw) as RefOverridesFile) : {};
  const env = await compileEnv(services, path.dirname(series.abs));
  return { ep, script, series, overrides, refs, refsPath, refsFence, env };
}

async function writeRefOverrides(fence: Fence, file: string, value: RefOverridesFile): Promise<void> {
  await writeShowFile(fence, file, `${pyJson(value, { indent: 2, floatKeys: new Set() })}\n`);
  forgetJsonFile(file);
}

// ------------------------------------------------------------------------------------------------ how shots render

interface PassRender {
  model: string | null;
  loras: Lora[];
  steps: number | null;
  /** Set when the shot cannot compile on its render target (both views must then fail alike). */
  error?: string;
}

interface ShotRender {
  target: string;
  final: PassRender;
  proxy: PassRender;
}

interface View {
  story: Story;
  series: SeriesConfig;
  shots: Map<string, ShotRender>;
}

/**
 * What every shot renders with at the next render: target (rule 11 / §4.17), then per pass the model, LoRAs and
 * steps with the overrides of that target layered over the built entry and the shot list defaults.
 */
function renderView(
  seriesInput: unknown,
  scriptText: string,
  overrides: OverridesFile,
  env: CompileEnv,
): View {
  const series = loadSeries(seriesInput);
  const { story } = parseScript(scriptText, series);
  const profiles = validateProfiles(series.raw);
  const results = {
    final: buildEpisode({ story, series, pass: "final", ...env }),
    proxy: buildEpisode({ story, series, pass: "proxy", ...env }),
  };
  const declared = series.series?.target;
  const inputs = {
    overrides,
    seriesTarget: typeof declared === "string" ? declared : null,
    defaultTarget: env.defaultTarget,
    profiles,
  };
  const shots = new Map<string, ShotRender>();
  for (const [index, ref] of allShots(story).entries()) {
    const id = ref.shot.id;
    const built = {
      id,
      entry: {} as Entry,
      target: results.final.shotTargets[id],
      sequence: ref.sequence.id,
      index,
    };
    const target = shotTarget(built, story, inputs).target;
    const render = { target } as ShotRender;
    for (const pass of PASSES) {
      const result = results[pass];
      let compiled: { entry: Entry; defaults: Record<string, unknown> };
      if (result.shotTargets[id] === target) {
        const doc = result.docs[target];
        compiled = { entry: doc.shots.find((e) => e.id === id)!, defaults: doc.defaults };
      } else {
        try {
          compiled = compileOn(story, series, id, pass, target, env);
        } catch (err) {
          if (!(err instanceof BuildError)) throw err;
          render[pass] = { model: null, loras: [], steps: null, error: err.message };
          continue;
        }
      }
      render[pass] = effective(compiled.entry, compiled.defaults, targetBlock(overrides, id, target)?.[pass]);
    }
    shots.set(id, render);
  }
  return { story, series, shots };
}

/** The shot compiled for a target other than the one it was built for, as a render on that target would. */
function compileOn(
  story: Story,
  series: SeriesConfig,
  id: string,
  pass: Pass,
  target: string,
  env: CompileEnv,
): { entry: Entry; defaults: Record<string, unknown> } {
  const ctx = makeContext({ story, series, pass, ...env });
  const sc = ctx.byId.get(id)!;
  const spec = ctx.targets.get(target);
  if (spec?.kind !== "video") {
    throw shotError(
      id,
      `target '${target}' is not a video target (known: ${ctx.targets.ids("video").join(", ")})`,
    );
  }
  checkDesigns(ctx, sc.shot);
  const doc = compileTarget(ctx, spec, [sc], resolveSeriesTarget(ctx)).doc;
  return { entry: doc.shots[0], defaults: doc.defaults };
}

function normalLoras(value: unknown): Lora[] {
  let list: unknown[];
  try {
    list = typeof value === "string" ? parseLoras(value) : Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
  const out: Lora[] = [];
  for (const item of list) {
    if (typeof item === "string") out.push(...normalLoras(item));
    else if (isObject(item) && typeof item.name === "string") {
      const l: Lora & { stage?: unknown } = { name: item.name, strength: Number(item.strength ?? 1) };
      if (item.stage !== undefined) l.stage = item.stage;
      out.push(l);
    }
  }
  return out;
}

function effective(
  entry: Entry,
  defaults: Record<string, unknown>,
  ov: PassOverride | undefined,
): PassRender {
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
  const model = str(ov?.model) ?? str(entry.model) ?? str(defaults.model) ?? null;
  let loras: Lora[];
  if (ov?.loras !== undefined) loras = normalLoras(ov.loras);
  else if (entry.lora !== undefined) loras = normalLoras(entry.lora);
  else if (entry.loras !== undefined) loras = normalLoras(entry.loras);
  else if (Array.isArray(defaults.loras)) loras = normalLoras(defaults.loras);
  else loras = normalLoras(defaults.lora ?? []);
  const num = (v: unknown) => (typeof v === "number" ? v : undefined);
  const steps = num(ov?.steps) ?? num(entry.steps) ?? num(defaults.steps) ?? null;
  return { model, loras, steps };
}

/** Load, parse and build; a failure is the 400 of the plan, naming the file and line. */
function viewOrRefuse(inputs: Inputs): View {
  try {
    return renderView(inputs.series.text, inputs.script.text, inputs.overrides, inputs.env);
  } catch (err) {
    throw badRequest(
      `the episode does not build, so nothing can be promoted: ${describeFailure(err, inputs)}`,
    );
  }
}

function describeFailure(
  err: unknown,
  inputs: { script: { text: string }; series: { text: string } },
): string {
  if (err instanceof ScriptError) return err.line ? `script line ${err.line}: ${err.message}` : err.message;
  if (err instanceof JsonSyntaxError) return err.message;
  if (err instanceof SeriesError)
    return err.message.startsWith("series") ? err.message : `series.json: ${err.message}`;
  if (err instanceof BuildError) {
    try {
      const series = loadSeries(inputs.series.text);
      const { story } = parseScript(inputs.script.text, series);
      const where = locateBuildError(err, new ScriptIndex(story, inputs.script.text), inputs.series.text);
      const file = where.file === "series" ? "series.json" : "script";
      return where.line ? `${file} line ${where.line}: ${err.message}` : err.message;
    } catch {
      return err.message;
    }
  }
  throw err;
}

// ------------------------------------------------------------------------------------------------ candidates

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function showValue(field: string, v: unknown): string {
  if (field === "loras")
    return loraLine(v as Lora[]) ?? (v as Lora[]).map((l) => `${l.name}:${l.strength}`).join(", ");
  return v === null || v === undefined ? "nothing" : String(v);
}

/** The `lora:` value for a list of at most one LoRA; null for two or more. */
function loraLine(list: Lora[]): string | null {
  if (list.length === 0) return "none";
  if (list.length > 1) return null;
  const l = list[0];
  return l.strength === 1 ? l.name : `${l.name}:${l.strength}`;
}

const PASS_LEFT: Record<string, string> = {
  prompt: "a compiled prompt is not promoted: edit the shot's action and lines instead",
  negative: "a negative prompt has no script line",
  model_low: "model_low has no script line",
  size: "a render size has no script line",
};

function gather(
  inputs: Inputs,
  before: View,
  onlyShot?: string,
): { candidates: Candidate[]; left: LeftEntry[] } {
  const candidates: Candidate[] = [];
  const left: LeftEntry[] = [];
  for (const [shot, shotBlock] of Object.entries(inputs.overrides.shots ?? {})) {
    if (onlyShot !== undefined && shot !== onlyShot) continue;
    if (!isObject(shotBlock)) continue;
    shotCandidates(shot, shotBlock, before, candidates, left);
  }
  if (onlyShot === undefined) {
    episodeCandidates(inputs, before, candidates, left);
    refCandidates(inputs, before, candidates, left);
  }
  return { candidates, left };
}

function shotCandidates(
  shot: string,
  shotBlock: Record<string, unknown>,
  before: View,
  candidates: Candidate[],
  left: LeftEntry[],
): void {
  const render = before.shots.get(shot);
  const leaveAll = (reason: string) => {
    for (const [key, block] of Object.entries(shotBlock)) {
      if (key === "target") left.push({ scope: "shot", shot, field: "target", reason });
      else if (isObject(block)) leaveBlock(shot, block as TargetOverride, reason, left);
    }
  };
  if (!render) {
    leaveAll(`${shot} is not in the script`);
    return;
  }
  const retarget = shotBlock.target;
  if (typeof retarget === "string" && retarget !== "") {
    candidates.push({
      item: {
        id: `shot:${shot}:target`,
        scope: "shot",
        shot,
        field: "target",
        value: retarget,
        dest: "script",
        summary: `${shot}: target: ${retarget}`,
      },
      edit: { kind: "script", shot, key: "target", text: retarget },
      remove(o) {
        const b = o.shots?.[shot];
        if (b) delete b.target;
      },
    });
  }
  for (const [key, raw] of Object.entries(shotBlock)) {
    if (key === "target" || !isObject(raw)) continue;
    const block = raw as TargetOverride;
    if (key !== render.target) {
      leaveBlock(shot, block, `written for ${key}; the shot renders on ${render.target} now`, left);
      continue;
    }
    if (block.seed !== undefined) {
      left.push({
        scope: "shot",
        shot,
        field: "seed",
        reason: "a seed stays in the overrides (the script has no seed line)",
      });
    }
    if (block.note !== undefined) {
      left.push({
        scope: "shot",
        shot,
        field: "note",
        reason: "a note stays in the overrides (the script has no note line)",
      });
    }
    for (const pass of PASSES) {
      for (const field of Object.keys(block[pass] ?? {})) {
        if (PASS_LEFT[field]) left.push({ scope: "shot", shot, pass, field, reason: PASS_LEFT[field] });
      }
    }
    const failing = PASSES.map((p) => render[p].error).find(Boolean);
    for (const field of SETTINGS) {
      const passes = PASSES.filter((p) => block[p]?.[field] !== undefined);
      if (passes.length === 0) continue;
      const leave = (reason: string) => {
        for (const pass of passes) left.push({ scope: "shot", shot, pass, field, reason });
      };
      if (failing) {
        leave(`the shot does not compile on ${render.target}: ${failing}`);
        continue;
      }
      const finalValue = render.final[field];
      const proxyValue = render.proxy[field];
      if (!sameJson(finalValue, proxyValue)) {
        leave(
          `the final pass renders ${showValue(field, finalValue)} and the proxy pass ${showValue(field, proxyValue)}: ` +
            "a script line would set both",
        );
        continue;
      }
      let text: string;
      if (field === "loras") {
        const line = loraLine(finalValue as Lora[]);
        if (line === null) {
          leave("two or more LoRAs cannot be one script line (put them in a profile)");
          continue;
        }
        text = line;
      } else if (finalValue === null) {
        leave(`no ${field} to write`);
        continue;
      } else {
        text = String(finalValue);
      }
      const lineKey = LINE_KEY[field];
      candidates.push({
        item: {
          id: `shot:${shot}:${field}`,
          scope: "shot",
          shot,
          field,
          value: finalValue,
          dest: "script",
          summary: `${shot}: ${lineKey}: ${text}`,
        },
        edit: { kind: "script", shot, key: lineKey, text },
        remove(o) {
          const b = targetBlock(o, shot, key);
          for (const pass of PASSES) if (b?.[pass]) delete b[pass][field];
        },
      });
    }
  }
}

function leaveBlock(shot: string, block: TargetOverride, reason: string, left: LeftEntry[]): void {
  if (block.seed !== undefined) left.push({ scope: "shot", shot, field: "seed", reason });
  if (block.note !== undefined) left.push({ scope: "shot", shot, field: "note", reason });
  for (const pass of PASSES) {
    for (const field of Object.keys(block[pass] ?? {})) {
      if (field !== "base_hash") left.push({ scope: "shot", shot, pass, field, reason });
    }
  }
}

const EPISODE_DEST: Record<string, string[]> = {
  target: ["series", "target"],
  refs_target: ["refs", "target"],
  keyframe_target: ["refs", "keyframe_target"],
};

function episodeCandidates(inputs: Inputs, before: View, candidates: Candidate[], left: LeftEntry[]): void {
  const episode = inputs.overrides.episode;
  if (!isObject(episode)) return;
  const raw = before.series.raw;
  for (const [field, value] of Object.entries(episode)) {
    if (field === "id" || value === undefined || value === null || value === "") continue;
    const dest = EPISODE_DEST[field];
    if (!dest || typeof value !== "string") {
      left.push({
        scope: "episode",
        field,
        reason: `the episode's ${field} has no place in the series config`,
      });
      continue;
    }
    if (field === "target") {
      const set = (["series", "proxy"] as const).flatMap((block) =>
        ["model", "lora", "steps"]
          .filter((k) => isObject(raw[block]) && raw[block][k] !== undefined)
          .map((k) => `${block}.${k}`),
      );
      if (set.length) {
        left.push({
          scope: "episode",
          field,
          reason: `the series config sets ${set.join(", ")}: as series.target they would apply to ${value} too`,
        });
        continue;
      }
    }
    if (raw[dest[0]] !== undefined && !isObject(raw[dest[0]])) {
      left.push({ scope: "episode", field, reason: `series.json \`${dest[0]}\` is not an object` });
      continue;
    }
    const block = raw[dest[0]];
    const old = isObject(block) ? block[dest[1]] : undefined;
    candidates.push({
      item: {
        id: `episode:${field}`,
        scope: "episode",
        field,
        value,
        dest: "series",
        summary:
          `${dest.join(".")}: ${JSON.stringify(value)}` +
          (old === undefined ? "" : ` (was ${JSON.stringify(old)})`),
      },
      edit: { kind: "series", keyPath: dest, value },
      remove(o) {
        const e = o.episode;
        if (!isObject(e)) return;
        delete (e as Record<string, unknown>)[field];
        // No editor targets left: the plain-name form of §5.5.
        if (Object.keys(e).every((k) => k === "id"))
          o.episode = typeof e.id === "string" ? e.id : before.story.episode;
      },
    });
  }
}

// ------------------------------------------------------------------------------------------------ references

function refCandidates(inputs: Inputs, before: View, candidates: Candidate[], left: LeftEntry[]): void {
  for (const [ref, raw] of Object.entries(inputs.refs.refs ?? {})) {
    if (!isObject(raw)) continue;
    const o = raw as RefOverride;
    const leaveOthers = (block: RefOverride, view?: string) => {
      for (const field of Object.keys(block)) {
        if (field === "prompt" || field === "base_hash" || field === "views") continue;
        left.push({
          scope: "ref",
          ref,
          ...(view ? { view } : {}),
          field,
          reason: `the series config has no per-reference ${field}`,
        });
      }
    };
    leaveOthers(o);
    const views = isObject(o.views) ? (o.views as Record<string, RefOverride>) : {};
    for (const [view, block] of Object.entries(views)) if (isObject(block)) leaveOthers(block, view);
    const prompts: { view?: string; block: RefOverride }[] = [];
    if (typeof o.prompt === "string") prompts.push({ block: o });
    for (const [view, block] of Object.entries(views)) {
      if (isObject(block) && typeof block.prompt === "string") prompts.push({ view, block });
    }
    if (prompts.length === 0) continue;
    const leave = (reason: string) => {
      for (const p of prompts)
        left.push({ scope: "ref", ref, ...(p.view ? { view: p.view } : {}), field: "prompt", reason });
    };
    const candidate = refPromptCandidate(ref, o, views, before.series);
    if (typeof candidate === "string") leave(candidate);
    else candidates.push(candidate);
  }
}

/**
 * A ref prompt override becomes the subject's design / the location's description when it is the built prompt
 * with exactly that text replaced. The built ref prompt is not computed here: the override's `base_hash` (SHA-1
 * of the prompt it was written over) proves it — putting the current design back in place of one span of the
 * override must give that hash. A stale base (the design changed since) therefore never matches.
 */
function refPromptCandidate(
  ref: string,
  o: RefOverride,
  views: Record<string, RefOverride>,
  series: SeriesConfig,
): Candidate | string {
  const [kind, id, extra] = ref.split(":");
  if (kind === "shot") return "a keyframe's prompt is written from its shot";
  if (kind === "voice") return "a voice's prompt is not promoted";
  if ((kind !== "subject" && kind !== "location") || !id || extra !== undefined) {
    return `'${ref}' is not a subject or location reference`;
  }
  const rawBlock = kind === "subject" ? series.raw.subjects : series.raw.locations;
  const own = isObject(rawBlock) && isObject(rawBlock[id]) ? rawBlock[id] : null;
  const loaded = kind === "subject" ? series.subjects[id] : series.locations[id];
  if (!own || !loaded) return `${id} is not in the series config`;
  const field = kind === "subject" ? "design" : "description";
  const current = kind === "subject" ? loaded.design : loaded.description;
  if (typeof current !== "string" || current.trim() === "") {
    return `${id} has no ${field} to replace`;
  }
  // How the text sits in a built ref prompt: a design as a sentence, a description inside the plate sentence.
  const slot = kind === "subject" ? sentence(current) : current.trim().replace(/\.$/, "");
  const styled = (x: string) => restyle(x, current, kind === "subject");
  const fourViews = kind === "subject" && loaded.kind === "character" && !isGroup(loaded as Subject);
  let replacement: string | null;
  if (fourViews) {
    if (typeof o.prompt === "string") return "a character's prompt override belongs to a view";
    const missing = VIEWS.filter((v) => typeof views[v]?.prompt !== "string");
    if (missing.length) {
      return `a character's design changes only when all four views agree (no prompt override on ${missing.join(", ")})`;
    }
    const found = VIEWS.map((v) => findReplacement(views[v].prompt!, slot, views[v].base_hash));
    if (found.some((f) => f === null)) return mismatch(field);
    if (new Set(found).size > 1) return `the four views replace the ${field} differently`;
    replacement = found[0];
  } else {
    if (typeof o.prompt !== "string")
      return `the prompt override of ${ref} must be on the reference, not a view`;
    replacement = findReplacement(o.prompt, slot, o.base_hash);
  }
  if (replacement === null) return mismatch(field);
  const value = styled(replacement);
  const rebuilt = kind === "subject" ? sentence(value) : value.trim().replace(/\.$/, "");
  if (rebuilt !== replacement) {
    return `the new ${field} would not read back as the override's text`;
  }
  const keyPath = [kind === "subject" ? "subjects" : "locations", id, field];
  return {
    item: {
      id: `ref:${ref}:prompt`,
      scope: "ref",
      ref,
      field: "prompt",
      value,
      dest: "series",
      summary: `${keyPath.join(".")}: ${JSON.stringify(value)} (was ${JSON.stringify(current)})`,
    },
    edit: { kind: "series", keyPath, value },
    remove(_o, refs) {
      const entry = refs.refs?.[ref];
      if (!entry) return;
      const clear = (b: RefOverride) => {
        delete b.prompt;
        delete b.base_hash;
      };
      clear(entry);
      if (isObject(entry.views)) {
        for (const [v, b] of Object.entries(entry.views)) {
          clear(b);
          if (Object.keys(b).length === 0) delete entry.views[v];
        }
        if (Object.keys(entry.views).length === 0) delete entry.views;
      }
      if (Object.keys(entry).length === 0) delete refs.refs![ref];
    },
  };
}

const mismatch = (field: string) =>
  `the override is not the built prompt with only the ${field} changed (or it was written before the ${field} last changed)`;

/** Write the new text in the style of the old one: a lower-case start and no full stop stay so. */
function restyle(text: string, old: string, asSentence: boolean): string {
  const o = old.trim();
  let out = text;
  if (asSentence) {
    if (/^[a-z]/.test(o)) out = out[0].toLowerCase() + out.slice(1);
    if (!/[.!?]$/.test(o) && out.endsWith(".")) out = out.slice(0, -1);
    return sentence(out) === text ? out : text;
  }
  return o.endsWith(".") && !out.endsWith(".") ? `${out}.` : out;
}

/**
 * The span of `prompt` that stands where `slot` stood in the prompt whose SHA-1 is `baseHash`; null when no
 * single span (between word boundaries) does.
 */
export function findReplacement(prompt: string, slot: string, baseHash: unknown): string | null {
  if (typeof baseHash !== "string" || prompt.length > 20000) return null;
  if (sha1Hex(prompt) === baseHash) return slot;
  const starts: number[] = [];
  const ends: number[] = [];
  for (let i = 0; i <= prompt.length; i++) {
    if (i === 0 || /\s/.test(prompt[i - 1])) starts.push(i);
    if (i === prompt.length || /[\s.,;:!?]/.test(prompt[i])) ends.push(i);
  }
  for (const i of starts) {
    for (const j of ends) {
      if (j <= i) continue;
      if (sha1Hex(prompt.slice(0, i) + slot + prompt.slice(j)) === baseHash) return prompt.slice(i, j);
    }
  }
  return null;
}

// ------------------------------------------------------------------------------------------------ editing

const KEY_LINE = /^([a-z_]+)\s*:\s*(.*)$/;
const KNOWN_KEYS = new Set(
  (
    "who cast with props size audio dur duration camera sound music policy continuous text pace plate " +
    "retention model lora steps extras target profile first last overlap"
  ).split(" "),
);

interface EditState {
  scriptText: string;
  seriesText: string;
  overrides: OverridesFile;
  refs: RefOverridesFile;
  /** Candidate id → 1-based line in the edited file. */
  lines: Map<string, number>;
}

/** Apply `chosen` to copies of the inputs; nothing is read or written. */
function applyEdits(inputs: Inputs, before: View, chosen: Candidate[]): EditState {
  const lines = inputs.script.text.split("\n");
  // 0-based [start, end] of each shot's span, moved as lines are inserted.
  const spans = new Map(
    allShots(before.story).map((r) => [
      r.shot.id,
      { start: r.shot.source.line - 1, end: r.shot.source.end_line - 1 },
    ]),
  );
  const overrides = structuredClone(inputs.overrides);
  const refs = structuredClone(inputs.refs);
  let raw: Record<string, unknown> | null = null;
  for (const c of chosen) {
    c.remove(overrides, refs);
    if (c.edit.kind === "script") editScript(lines, spans, c.edit);
    else {
      raw ??= JSON.parse(inputs.series.text) as Record<string, unknown>;
      setPath(raw, c.edit.keyPath, c.edit.value);
    }
  }
  const scriptText = lines.join("\n");
  const seriesText = raw === null ? inputs.series.text : serializeSeries(raw, inputs.series.text);
  const at = new Map<string, number>();
  const seriesLines = raw === null ? null : jsonKeyLines(seriesText);
  for (const c of chosen) {
    if (c.edit.kind === "script") {
      const span = spans.get(c.edit.shot)!;
      const i = lastKeyLine(lines, span, c.edit.key);
      if (i >= 0) at.set(c.item.id, i + 1);
    } else if (seriesLines) {
      const line = lineOfKey(seriesLines, c.edit.keyPath.join("."));
      if (line !== null) at.set(c.item.id, line);
    }
  }
  return { scriptText, seriesText, overrides, refs, lines: at };
}

function isKey(line: string, key?: string): boolean {
  const m = KEY_LINE.exec(line.trimEnd());
  return m !== null && KNOWN_KEYS.has(m[1]) && (key === undefined || m[1] === key);
}

function lastKeyLine(lines: string[], span: { start: number; end: number }, key: string): number {
  for (let i = span.end; i > span.start; i--) if (isKey(lines[i], key)) return i;
  return -1;
}

/**
 * Replace the last `key:` line of the shot's own span (the one the parser keeps), else insert after the run of
 * key lines that opens the shot (directly after `##` when there is none), never below dialogue or action.
 */
function editScript(
  lines: string[],
  spans: Map<string, { start: number; end: number }>,
  edit: ScriptEdit,
): void {
  const span = spans.get(edit.shot)!;
  const text = `${edit.key}: ${edit.text}`;
  const existing = lastKeyLine(lines, span, edit.key);
  if (existing >= 0) {
    lines[existing] = text;
    return;
  }
  let at = span.start;
  for (let j = span.start + 1; j <= span.end; j++) {
    const t = lines[j].trim();
    if (t === "" || t.startsWith("//")) continue;
    if (!isKey(lines[j])) break;
    at = j;
  }
  lines.splice(at + 1, 0, text);
  for (const s of spans.values()) {
    if (s.start > at) s.start++;
    if (s.end >= at) s.end++;
  }
}

function setPath(raw: Record<string, unknown>, keyPath: string[], value: unknown): void {
  let node = raw;
  for (const key of keyPath.slice(0, -1)) {
    if (!isObject(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keyPath[keyPath.length - 1]] = value;
}

/** §5.4's own serialisation: 2-space indent, key order kept, non-ASCII raw, final newline only if there was one. */
function serializeSeries(raw: unknown, oldText: string): string {
  return JSON.stringify(raw, null, 2) + (oldText.endsWith("\n") ? "\n" : "");
}

// ------------------------------------------------------------------------------------------------ verification

interface Checked {
  accepted: Candidate[];
  failed: LeftEntry[];
  state: EditState;
}

/**
 * Every promote must leave every shot rendering with the same target, model, LoRAs and steps in both passes.
 * All together first (the usual case); when that fails, one by one, keeping those that pass.
 */
function verify(inputs: Inputs, before: View, candidates: Candidate[]): Checked {
  if (candidates.length === 0) return { accepted: [], failed: [], state: applyEdits(inputs, before, []) };
  const all = attempt(inputs, before, candidates);
  if (all.reason === null)
    return { accepted: candidates, failed: [], state: withLines(all.state, candidates) };
  const accepted: Candidate[] = [];
  const failed: LeftEntry[] = [];
  for (const c of candidates) {
    const r = attempt(inputs, before, [...accepted, c]);
    if (r.reason === null) accepted.push(c);
    else {
      const { scope, shot, ref, view, field } = c.item;
      failed.push({
        scope,
        ...(shot ? { shot } : {}),
        ...(ref ? { ref } : {}),
        ...(view ? { view } : {}),
        field,
        reason: r.reason,
      });
    }
  }
  const state = applyEdits(inputs, before, accepted);
  return { accepted, failed, state: withLines(state, accepted) };
}

function withLines(state: EditState, accepted: Candidate[]): EditState {
  for (const c of accepted) {
    const line = state.lines.get(c.item.id);
    if (line !== undefined) c.item.line = line;
  }
  return state;
}

function attempt(
  inputs: Inputs,
  before: View,
  chosen: Candidate[],
): { reason: string | null; state: EditState } {
  const state = applyEdits(inputs, before, chosen);
  let after: View;
  try {
    after = renderView(state.seriesText, state.scriptText, state.overrides, inputs.env);
  } catch (err) {
    return { reason: `the edited files would not build: ${describeFailure(err, state2(state))}`, state };
  }
  for (const [id, was] of before.shots) {
    const now = after.shots.get(id);
    const diff = renderDifference(was, now);
    if (diff) return { reason: `${id} would render differently: ${diff}`, state };
  }
  return { reason: null, state };
}

const state2 = (s: EditState) => ({ script: { text: s.scriptText }, series: { text: s.seriesText } });

function renderDifference(was: ShotRender, now: ShotRender | undefined): string | null {
  if (!now) return "it is no longer in the script";
  if (was.target !== now.target) return `target ${was.target} → ${now.target}`;
  for (const pass of PASSES) {
    const a = was[pass];
    const b = now[pass];
    if (a.error !== b.error) return `${pass} pass: ${b.error ?? "it compiles now"}`;
    for (const field of SETTINGS) {
      if (!sameJson(a[field], b[field])) {
        return `${pass} ${field} ${showValue(field, a[field])} → ${showValue(field, b[field])}`;
      }
    }
  }
  return null;
}

// ------------------------------------------------------------------------------------------------ diffs

function diffsOf(inputs: Inputs, state: EditState): { script: string; series: string } {
  const script = unifiedDiff(inputs.script.text, state.scriptText, inputs.script.path);
  let series = unifiedDiff(inputs.series.text, state.seriesText, inputs.series.path);
  if (series !== "") {
    let formatted = false;
    try {
      formatted = serializeSeries(JSON.parse(inputs.series.text), inputs.series.text) === inputs.series.text;
    } catch {
      formatted = false;
    }
    if (!formatted) series = `# note: series.json will be reformatted\n${series}`;
  }
  return { script, series };
}

type Op = { op: " " | "-" | "+"; text: string };

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Line operations turning `a` into `b`: common ends trimmed, then a longest common subsequence. */
function diffLines(a: string[], b: string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  const middle: Op[] = [];
  const n = am.length;
  const m = bm.length;
  if (n * m > 4_000_000) {
    // Too large to align line by line: shown as one replaced block.
    for (const text of am) middle.push({ op: "-", text });
    for (const text of bm) middle.push({ op: "+", text });
  } else {
    const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i][j] = am[i] === bm[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && am[i] === bm[j]) {
        middle.push({ op: " ", text: am[i] });
        i++;
        j++;
      } else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) {
        // Removals before additions, as diff(1) shows a replaced line.
        middle.push({ op: "-", text: am[i++] });
      } else {
        middle.push({ op: "+", text: bm[j++] });
      }
    }
  }
  return [
    ...a.slice(0, head).map((text): Op => ({ op: " ", text })),
    ...middle,
    ...a.slice(a.length - tail).map((text): Op => ({ op: " ", text })),
  ];
}

/** A unified diff (3 lines of context) of two LF texts; `""` when their lines are the same. */
export function unifiedDiff(a: string, b: string, name: string, context = 3): string {
  if (a === b) return "";
  const ops = diffLines(splitLines(a), splitLines(b));
  const changed = ops.map((o, k) => (o.op === " " ? -1 : k)).filter((k) => k >= 0);
  if (changed.length === 0) return "";
  // Group changes whose context would touch into one hunk.
  const groups: [number, number][] = [];
  for (const k of changed) {
    const last = groups[groups.length - 1];
    if (last && k - last[1] <= 2 * context + 1) last[1] = k;
    else groups.push([k, k]);
  }
  const out = [`--- a/${name}`, `+++ b/${name}`];
  // Line numbers (1-based) in a and b before each op.
  const aAt: number[] = [];
  const bAt: number[] = [];
  let ai = 1;
  let bi = 1;
  for (const o of ops) {
    aAt.push(ai);
    bAt.push(bi);
    if (o.op !== "+") ai++;
    if (o.op !== "-") bi++;
  }
  for (const [first, last] of groups) {
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length - 1, last + context);
    const slice = ops.slice(from, to + 1);
    const aCount = slice.filter((o) => o.op !== "+").length;
    const bCount = slice.filter((o) => o.op !== "-").length;
    const aStart = aCount === 0 ? aAt[from] - 1 : aAt[from];
    const bStart = bCount === 0 ? bAt[from] - 1 : bAt[from];
    out.push(`@@ -${range(aStart, aCount)} +${range(bStart, bCount)} @@`);
    for (const o of slice) out.push(`${o.op}${o.text}`);
  }
  return `${out.join("\n")}\n`;
}

const range = (start: number, count: number) => (count === 1 ? `${start}` : `${start},${count}`);
