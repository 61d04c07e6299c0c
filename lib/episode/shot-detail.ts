// GET /studio/shot's answer: the built entry, the override, the settings the next render would use (rules
// 10–12: target preset → series pass block → script layers → override → request; negative from override →
// negative.txt → series → preset), the refs it reads and every take with its full sidecar.
import path from "node:path";
import type { Entry } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { badRequest, notFound, StudioError } from "../errors.ts";
import { episodeFence, readShowText, showFence } from "../paths/guarded.ts";
import { parseLoras } from "../series/load.ts";
import { isObject, num } from "../store/json-guards.ts";
import { type TargetSpec, takesNegative } from "../targets/registry.ts";
import type { Current } from "./current-entry.ts";
import { chainAfter, cutPick, folderTakes, NO_CHAIN } from "./cut-view.ts";
import type { PassOverride, TargetOverride } from "./overrides-file.ts";
import { targetBlock } from "./overrides-file.ts";
import {
  overrideSummary,
  relTo,
  type ShotContext,
  shotContext,
  shotSlots,
  silentTarget,
  staleInputs,
  staleOf,
} from "./shot-context.ts";
import type { RefSlot } from "./shot-refs.ts";
import { type ChainView, FileProbe, keyframeGate, refResolver } from "./staleness.ts";
import { seedsOut, takeExtras, takeFileRel, takeSummary } from "./take-summary.ts";
import type { TakeRecord } from "./takes.ts";
import { loadViewInputs, type ViewInputs } from "./view-inputs.ts";

const text = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);

/** A shot-list prompt as the loader joins it: sections separated by a blank line. */
export const promptText = (p: unknown): string =>
  Array.isArray(p) ? p.filter((x) => typeof x === "string").join("\n\n") : typeof p === "string" ? p : "";

export type NegativeSource = "request" | "override" | "negative.txt" | "series" | "preset" | "none";

export interface Effective {
  prompt: string;
  seed: string | null;
  seed_source: string;
  model: string | null;
  model_low?: string | null;
  loras: { name: string; strength: number; [k: string]: unknown }[];
  steps: number | null;
  negative: string | null;
  negative_source: NegativeSource;
  target: string;
  width: number | null;
  height: number | null;
  length: number | null;
  notes?: string[];
  error?: string;
}

export interface EffectiveInput {
  target: string;
  spec: TargetSpec | undefined;
  current: Current;
  /** The shot's override block for `target` (shared seed and note, and the pass block). */
  block: TargetOverride | undefined;
  pass: PassOverride | undefined;
  /** The shot carries its own retarget: per-pass prompt overrides are ignored. */
  retargeted: boolean;
  /** `<ep>/negative.txt`, trimmed; null when absent or empty. */
  negativeTxt: string | null;
  seriesNegative: string | null;
  error: string | null;
}

function loraList(v: unknown): Effective["loras"] | null {
  if (Array.isArray(v)) {
    return v.filter(isObject).map((x) => ({ ...x, name: String(x.name), strength: num(x.strength) ?? 1 }));
  }
  if (typeof v === "string") {
    try {
      return parseLoras(v).map((l) => ({ ...l }));
    } catch {
      return [];
    }
  }
  return null;
}

function parseSize(v: unknown): { width: number; height: number } | null {
  const m = typeof v === "string" ? /^\s*(\d+)\s*[xX]\s*(\d+)\s*$/.exec(v) : null;
  return m ? { width: Number(m[1]), height: Number(m[2]) } : null;
}

/** The settings, target and negative a render of the shot would use now, strongest layer winning. */
export function effectiveSettings(i: EffectiveInput): Effective {
  const entry: Entry = i.current.entry;
  const d = i.current.defaults ?? {};
  const o = i.pass ?? {};
  const notes: string[] = [];
  let prompt = promptText(entry.prompt);
  if (o.prompt !== undefined && o.prompt !== null) {
    if (i.retargeted)
      notes.push(
        "the prompt override is ignored while the shot is retargeted; its IR is compiled for the new target",
      );
    else prompt = promptText(o.prompt);
  }
  const pinned = i.block?.seed;
  const seed =
    pinned !== undefined && pinned !== null
      ? String(pinned)
      : entry.seed !== undefined
        ? String(entry.seed)
        : null;
  const lorasOverride = o.loras !== undefined && o.loras !== null ? loraList(o.loras) : null;
  const loras =
    lorasOverride ??
    loraList(entry.loras) ??
    loraList(entry.lora) ??
    (typeof d.lora === "string" ? loraList(d.lora) : null) ??
    loraList(d.loras) ??
    [];
  const steps = num(o.steps) ?? num(entry.steps) ?? num(d.steps);
  if (num(o.steps) !== null && i.spec?.recipe.fixed_steps) {
    notes.push(`steps ${o.steps} is recorded only: ${i.spec.short} runs a fixed schedule`);
  }
  const size = parseSize(o.size);
  const out: Effective = {
    prompt,
    seed,
    seed_source: pinned !== undefined && pinned !== null ? "override" : "stable",
    model: text(o.model) ?? text(entry.model) ?? text(d.model),
    loras,
    steps,
    negative: null,
    negative_source: "none",
    target: i.target,
    width: size?.width ?? i.current.width ?? num(d.width),
    height: size?.height ?? i.current.height ?? num(d.height),
    length: num(entry.length),
  };
  if (o.model_low !== undefined || d.model_low !== undefined)
    out.model_low = text(o.model_low) ?? text(d.model_low);
  const takes = i.spec ? takesNegative(i.spec) : typeof entry.negative === "string";
  if (takes) {
    const preset = text(entry.negative) ?? text(d.negative);
    if (typeof o.negative === "string") {
      out.negative = o.negative;
      out.negative_source = "override";
    } else if (i.negativeTxt !== null) {
      out.negative = i.negativeTxt;
      out.negative_source = "negative.txt";
    } else if (i.seriesNegative !== null) {
      out.negative = i.seriesNegative;
      out.negative_source = "series";
    } else if (preset !== null) {
      out.negative = preset;
      out.negative_source = "preset";
    }
    const cfg = num(d.cfg);
    if (cfg !== null && cfg <= 1 && out.negative_source !== "preset" && out.negative_source !== "none") {
      notes.push(`the negative prompt has no effect at cfg ${cfg} (1 or below: sampled without guidance)`);
    }
  } else if (typeof o.negative === "string") {
    notes.push(`${i.spec?.short ?? i.target} takes no negative prompt: the override's negative is not used`);
  }
  if (notes.length) out.notes = notes;
  if (i.error) out.error = i.error;
  return out;
}

// ------------------------------------------------------------------------------------------- helpers

/** `<ep>/negative.txt`: UTF-8, a BOM tolerated, trimmed; null when absent or empty. */
export async function episodeNegative(ep: string): Promise<string | null> {
  try {
    return text((await readShowText(episodeFence(ep), path.join(ep, "negative.txt"))).replace(/^\uFEFF/, ""));
  } catch (err) {
    if (err instanceof StudioError) throw err;
    return null;
  }
}

function hasOverride(vi: ViewInputs, sc: ShotContext): boolean {
  return overrideSummary(vi, sc).fields.length > 0;
}

/** The reference sheet (ingredients) or reference image (VACE) a take rendered with, kept beside it. */
function referenceImage(t: TakeRecord, pass: ViewInputs["pass"], shot: string): string | null {
  const refs = t.sidecar?.refs ?? [];
  for (const r of refs) {
    if (!isObject(r) || (r.role !== "sheet" && r.role !== "reference") || typeof r.path !== "string")
      continue;
    const name = path.posix.basename(r.path.replaceAll("\\", "/"));
    if (t.files.includes(name)) return takeFileRel(pass, shot, name);
  }
  for (const suffix of ["_reference.png", "_refsheet.png"]) {
    if (t.files.includes(`${t.stem}${suffix}`)) return takeFileRel(pass, shot, `${t.stem}${suffix}`);
  }
  return null;
}

interface RefUsed {
  id: string | null;
  kind: "image" | "audio";
  role: string;
  slot: string;
  path: string | null;
  exists: boolean;
  need: "required" | "optional";
  thumb: string | null;
}

async function refsUsed(
  vi: ViewInputs,
  sc: ShotContext,
  slots: readonly RefSlot[],
  takes: readonly TakeRecord[],
  probe: FileProbe,
): Promise<RefUsed[]> {
  const resolve = refResolver(vi, vi.ep, vi.home);
  const out = await Promise.all(
    slots.map(async (s): Promise<RefUsed> => {
      const abs = resolve(s.path);
      const exists = await probe.exists(abs);
      const rel = relTo(vi.ep, abs);
      return {
        id: s.id,
        kind: s.kind,
        role: s.role,
        slot: s.slot,
        path: rel,
        exists,
        need: s.optional ? "optional" : "required",
        thumb: exists && s.kind === "image" ? rel : null,
      };
    }),
  );
  // A reference picture composed at queue time: the newest take's kept copy, if any. A target that keeps none
  // (the animatic draws the pictures straight onto its card) has no such row.
  const spec = vi.env.targets.get(sc.next.ok ? sc.target : sc.built.target);
  const layout = spec?.recipe.reference_sheet ?? spec?.recipe.reference_image;
  const suffix = typeof layout?.take_suffix === "string" ? layout.take_suffix : "";
  if (layout && suffix) {
    const kept = [...takes].reverse().find((t) => t.files.includes(`${t.stem}${suffix}`));
    const rel = kept ? takeFileRel(vi.pass, sc.built.id, `${kept.stem}${suffix}`) : null;
    out.push({
      id: null,
      kind: "image",
      role: "reference_sheet",
      slot: spec?.recipe.reference_sheet ? "reference sheet" : "reference image",
      path: rel,
      exists: rel !== null,
      need: spec?.recipe.reference_sheet?.optional ? "optional" : "required",
      thumb: rel,
    });
  }
  return out;
}

// ------------------------------------------------------------------------------------------- the answer

export interface ShotDetailInput {
  ep: string;
  pass: ViewInputs["pass"];
  shot: string;
  /** A one-off target: answer for a render there, writing nothing. */
  target?: string | null;
}

export async function shotDetail(
  services: Pick<Services, "home" | "targets" | "caches">,
  input: ShotDetailInput,
  now: Date,
): Promise<Record<string, unknown>> {
  const vi = await loadViewInputs(services, input.ep, input.pass);
  if (!vi) throw notFound(`the ${input.pass} pass of ${input.ep} is not built: build the episode first`);
  if (input.target && vi.env.targets.get(input.target)?.kind !== "video") {
    throw badRequest(
      `target: '${input.target}' is not a video target (known: ${vi.env.targets.ids("video").join(", ")})`,
    );
  }
  const built = vi.build.shots.get(input.shot);
  if (!built) throw notFound(`shot ${input.shot} is not in the ${input.pass} build of ${input.ep}`);
  const sc = shotContext(vi, built, input.target || null);
  const probe = new FileProbe(services, showFence(vi.ep), [keyframeGate(vi.ep)]);
  const [negativeTxt, takes, chain] = await Promise.all([
    episodeNegative(vi.ep),
    folderTakes(services, vi.ep, vi.pass, built.id),
    chainOf(vi, built.id),
  ]);

  const block = targetBlock(vi.overrides, built.id, sc.target);
  const passBlock = block?.[vi.pass];
  const retarget = vi.overrides.shots?.[built.id]?.target;
  const ownRetarget = typeof retarget === "string" && retarget !== "";
  const seriesNegative = text(vi.seriesRaw?.negative);
  const effective = effectiveSettings({
    target: sc.target,
    spec: vi.env.targets.get(sc.target),
    current: sc.reads,
    block,
    pass: passBlock,
    retargeted: ownRetarget || (sc.source === "request" && sc.target !== built.target),
    negativeTxt,
    seriesNegative,
    error: sc.next.ok ? null : `can't compile ${built.id} for ${sc.target}: ${sc.next.error}`,
  });

  const answer: Record<string, unknown> = {
    shot: built.id,
    pass: vi.pass,
    built: seedsOut(built.entry),
    built_prompt: promptText(built.entry.prompt),
    built_target: built.target,
    target: sc.target,
    target_source: sc.source,
    profile: typeof built.entry.profile === "string" ? built.entry.profile : null,
  };
  const view: Record<string, unknown> = {};
  if (block?.seed !== undefined && block.seed !== null) view.seed = String(block.seed);
  if (typeof block?.note === "string" && block.note !== "") view.note = block.note;
  for (const [k, v] of Object.entries(passBlock ?? {}))
    if (k !== "base_hash" && v !== undefined && v !== null) view[k] = seedsOut(v);
  if (ownRetarget) view.target = retarget;
  answer.override = view;
  answer.override_stale = overrideSummary(vi, sc).stale;
  answer.effective = effective;
  if (!input.target && hasOverride(vi, sc)) {
    // Every override dropped (the retarget too): the shot as the build and the episode's defaults give it.
    const overrides = withoutShot(vi, built.id);
    const plain = shotContext({ ...vi, overrides, targetInputs: { ...vi.targetInputs, overrides } }, built);
    answer.built_values = effectiveSettings({
      target: plain.target,
      spec: vi.env.targets.get(plain.target),
      current: plain.reads,
      block: undefined,
      pass: undefined,
      retargeted: false,
      negativeTxt,
      seriesNegative,
      error: plain.next.ok ? null : `can't compile ${built.id} for ${plain.target}: ${plain.next.error}`,
    });
  }
  answer.refs_used = await refsUsed(vi, sc, shotSlots(vi, sc), takes, probe);
  const inp = staleInputs(vi, sc, probe, chain);
  answer.takes = await Promise.all(
    takes.map(async (t) => {
      const [stale, extras] = await Promise.all([
        staleOf(t, sc, inp),
        takeExtras(vi, vi.ep, vi.pass, built.id, t, probe),
      ]);
      return {
        ...takeSummary(t, {
          pass: vi.pass,
          shot: built.id,
          stale,
          extras,
          now,
          silent: silentTarget(vi, t.sidecar?.target),
        }),
        sidecar: t.sidecar === null ? null : seedsOut(t.sidecar),
        files: t.files.map((f) => takeFileRel(vi.pass, built.id, f)),
        reference_image: referenceImage(t, vi.pass, built.id),
      };
    }),
  );
  return answer;
}

/** overrides.json without the shot's own block (its retarget included). */
function withoutShot(vi: ViewInputs, shot: string): ViewInputs["overrides"] {
  const shots = { ...(vi.overrides.shots ?? {}) };
  delete shots[shot];
  return { ...vi.overrides, shots };
}

/** The chain neighbour of one shot: the cut's previous shot (orphans and `out` skipped) and the take it plays. */
async function chainOf(vi: ViewInputs, shot: string): Promise<ChainView> {
  const at = vi.cut.findIndex((e) => e.shot === shot);
  let prev = at - 1;
  while (prev >= 0 && (!vi.build.shots.has(vi.cut[prev].shot) || vi.cut[prev].out)) prev--;
  if (at < 0 || prev < 0) return NO_CHAIN;
  const e = vi.cut[prev];
  const pick = cutPick(e, vi.pass, await folderTakes(vi, vi.ep, e.pass ?? vi.pass, e.shot));
  return chainAfter(e, pick);
}
