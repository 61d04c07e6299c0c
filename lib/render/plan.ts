// POST /studio/render, planning: which shots of the request can be queued and with what. Each shot's target,
// settings (the same code as GET /studio/shot's `effective`, with the request on top), seed, size (off-grid:
// snapped or refused), references (missing: skipped unless allowed) and lane; one shot's refusal never stops the
// others (contract rendering rules 1, 3, 6, 10–12).
// Nothing is written here: queue.ts reserves the takes of the shots planned.
import path from "node:path";
import { canRender } from "../compile/choose.ts";
import type { Entry, Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { builtinModel } from "../engines/builtin/index.ts";
import { laneUnready, localAddress } from "../engines/registry.ts";
import type { Current } from "../episode/current-entry.ts";
import { folderTakes } from "../episode/cut-view.ts";
import { targetBlock } from "../episode/overrides-file.ts";
import { overrideSummary, relTo, type ShotContext, shotContext, shotSlots } from "../episode/shot-context.ts";
import { type Effective, effectiveSettings, episodeNegative } from "../episode/shot-detail.ts";
import { type MissingRef, missingRefs, type RefSlot } from "../episode/shot-refs.ts";
import type { BuiltShot } from "../episode/shotlists.ts";
import {
  entryPresetHash,
  entryStoryHash,
  FileProbe,
  keyframeGate,
  refResolver,
} from "../episode/staleness.ts";
import { safeShot, type TakeRecord, takeStatus, takeUsable } from "../episode/takes.ts";
import { loadViewInputs, type ViewInputs } from "../episode/view-inputs.ts";
import { badRequest, notFound } from "../errors.ts";
import { showFence } from "../paths/guarded.ts";
import { isRouterTarget, routerLaneProblem } from "../router/target.ts";
import { continues } from "../script/story.ts";
import type { Continuous } from "../script/types.ts";
import { errorMessage, isObject, type JsonObject, num } from "../store/json-guards.ts";
import { draftProblem } from "../targets/custom-draft.ts";
import type { ApiGraph, JobShape } from "../targets/graph.ts";
import { checkStrictSize, fitSize } from "../targets/grid.ts";
import { shotOverLimits } from "../targets/limit-check.ts";
import { type MissingFile, type ModelsResolution, resolveModels } from "../targets/models.ts";
import { missingNodesReason } from "../targets/packs.ts";
import { type TargetSpec, takesNegative } from "../targets/registry.ts";
import { customTargetDir } from "../targets/target-tree.ts";
import { resolveWorkflow, type WorkflowResolution, type WorkflowSource } from "../targets/workflow.ts";
import { holdClasses } from "./chain.ts";
import { checkModelFamilies, localComfyPath, type ModelMismatch } from "./model-check.ts";
import { type FolderListings, listTargetModels } from "./model-listing.ts";
import { checkNodes, engineClasses } from "./node-check.ts";
import type { RenderRequest } from "./request.ts";
import { reviewCopyOn, reviewNote } from "./review-copy.ts";
import { chooseSeed, seedValue } from "./seed.ts";

export interface SkippedShot {
  shot: string;
  reason: string;
  take?: number;
  missing_refs?: MissingRef[];
  target?: string;
  /** Model files the target needs that the backend does not have. */
  missing_files?: Pick<MissingFile, "param" | "tier" | "want" | "family" | "folder" | "url" | "source">[];
  /** Model files of another family than their param's. */
  model_mismatch?: ModelMismatch[];
  /** Node classes the shot's graph sends that the backend does not have. */
  missing_nodes?: string[];
}

/** How one model param of the take was served, as the sidecar's `resolved` records it. */
export interface ResolvedParam {
  want: string;
  using: string | null;
  how: string;
  tier: string;
}

export interface ShotError {
  shot: string;
  error: string;
  take?: number;
}

/** A reference file as the sidecar records it (`sha1` null when the file was missing). */
export interface RecordedRef {
  slot: string;
  kind: "image" | "audio";
  path: string;
  role: string;
  subject?: string;
  location?: string;
  optional: boolean;
  sha1: string | null;
}

export interface PlannedShot {
  shot: string;
  built: BuiltShot;
  target: string;
  spec: TargetSpec;
  /** The backend the job runs on (its lane). */
  lane: string;
  current: Current;
  /** The shot-list document of the target without `shots`, as frozen beside the take. */
  doc: Record<string, unknown>;
  /** The entry as it will be rendered (seed, steps, prompt, size, model, loras, missing refs). */
  entry: Entry;
  seed: bigint;
  seedSource: string;
  model: string | null;
  loras: { name: string; strength: number }[];
  steps: number | null;
  width: number;
  height: number;
  fps: number;
  length: number;
  lengthSource: "script" | "estimate" | "predicted";
  negativeSource: Effective["negative_source"];
  shotHash: string;
  presetHash: string | null;
  overrides: string[];
  overrideStale: boolean;
  refs: RecordedRef[];
  missing: MissingRef[];
  missingMode: "recompiled" | "blank" | null;
  missingNote: string | null;
  notes: string[];
  saveLatent: boolean;
  saveFrames: boolean;
  /** The take's note: the request's, else the shot's override note, else empty. */
  note: string;
  /** How the shot continues the previous shot in the cut, on a target that renders that mode. */
  chain: Continuous | null;
  /** The first keyframe the target reads (absolute), or null. */
  firstFrame: string | null;
  /** The last keyframe the target reads (absolute), or null. */
  lastFrame: string | null;
  /** Model files checked against the backend (mismatch, missing), or null when not (built-in, other lanes). */
  resolved: Record<string, ResolvedParam> | null;
  /** The accelerator fallback is in force: the preset's `base` renders. */
  base: boolean;
  /** Non-file values of the base preset (cfg, sampler, …) when `base` is in force, else null. */
  baseValues: Record<string, unknown> | null;
  /** The workflow the job patches (resolved once per target per request), or null off ComfyUI. */
  workflow: PlannedWorkflow | null;
  /** The config's review_copy when queued: the workflow's review nodes are kept (a second copy). */
  reviewCopy: boolean;
}

/** The target's workflow as resolved at queue time: the graph and where it came from. */
export interface PlannedWorkflow {
  graph: ApiGraph;
  source: WorkflowSource;
  where: string;
}

export interface Plan {
  vi: ViewInputs;
  /** Shots to queue, in cut order. */
  shots: PlannedShot[];
  skipped: SkippedShot[];
  errors: ShotError[];
}

export interface PlanDeps {
  /** The engine of a backend; throws an error naming the problem for one that is not configured. */
  engine(backend: string): unknown;
}

const two = (n: number) => String(n).padStart(2, "0");

/** The backend a target renders on when the request names none: the built-in engine's own, else `local`. */
export const targetBackend = (spec: TargetSpec | undefined) =>
  spec?.backend === "builtin" ? "builtin" : isRouterTarget(spec) ? "router" : "local";

/** Whether the target's saver can keep the sampler's latent (targets 3.12.1). */
export function keepsLatent(spec: TargetSpec): boolean {
  const saver = spec.binding.saver;
  return isObject(saver) && saver.latent !== undefined && saver.latent !== null;
}

/** The target a take was made on (a take from before sidecars: the built target). */
export const takeTarget = (t: TakeRecord, builtTarget: string) =>
  typeof t.sidecar?.target === "string" && t.sidecar.target ? t.sidecar.target : builtTarget;

/** `upscale.save_latents` of the series config for this pass: `final` (default), `always`, `never`. */
function latentDefault(vi: ViewInputs, pass: Pass): boolean {
  const up = vi.seriesRaw?.upscale;
  const mode = isObject(up) && typeof up.save_latents === "string" ? up.save_latents : "final";
  if (mode === "always") return true;
  if (mode === "never") return false;
  return pass === "final";
}

interface PlanCtx {
  vi: ViewInputs;
  req: RenderRequest;
  deps: PlanDeps;
  probe: FileProbe;
  resolve: (p: string) => string;
  negativeTxt: string | null;
  seriesNegative: string | null;
  continuity: Map<string, Continuous | null>;
  laneProblems: Map<string, Promise<string | null>>;
  services: Pick<Services, "home" | "engines" | "caches"> & { env?: Services["env"] };
  /** Installed files per models folder of the local backend, by folder (one listing per request). */
  listings: FolderListings;
  localUrl: Promise<string> | null;
  /** The engine's models folder on this machine (settings `path`, else COMFYUI_PATH), once per request. */
  comfyPath?: Promise<string | null>;
  /** Each target's workflow, resolved once per request. */
  workflows: Map<string, Promise<WorkflowResolution>>;
  /** The node classes the local backend offers, asked once per request. */
  nodeClasses?: Promise<ReadonlySet<string>>;
  /** The config's review_copy, read once per request. */
  reviewCopy?: Promise<boolean>;
}

/** Why the lane cannot take this request's jobs (no engine, or settings it lacks), or null; once per lane. */
function laneProblem(c: PlanCtx, lane: string): Promise<string | null> {
  let problem = c.laneProblems.get(lane);
  if (!problem) {
    problem = (async () => {
      try {
        c.deps.engine(lane);
      } catch (err) {
        return errorMessage(err);
      }
      return laneUnready(lane, {
        home: c.services.home,
        env: c.services.env ?? {},
        caches: c.services.caches,
      });
    })();
    c.laneProblems.set(lane, problem);
  }
  return problem;
}

/** Each shot's continuation mode, read from the story (its own line, else its sequence header). */
function continuityModes(vi: ViewInputs): Map<string, Continuous | null> {
  const out = new Map<string, Continuous | null>();
  for (const seq of vi.story?.sequences ?? []) {
    seq.shots.forEach((shot, i) => {
      out.set(shot.id, continues(shot, seq, i));
    });
  }
  return out;
}

/** The render plan of the request: shots to queue in cut order, and those skipped or in error. */
export async function planRender(
  services: Pick<Services, "home" | "engines" | "targets" | "caches"> & { env?: Services["env"] },
  ep: string,
  req: RenderRequest,
  deps: PlanDeps,
): Promise<Plan> {
  const vi = await loadViewInputs(services, ep, req.pass);
  if (!vi) throw notFound(`the ${req.pass} pass of ${ep} is not built: build the episode first`);
  if (req.target && vi.env.targets.get(req.target)?.kind !== "video") {
    throw badRequest(
      `target: '${req.target}' is not a video target (known: ${vi.env.targets.ids("video").join(", ")})`,
    );
  }
  const cutOrder = vi.cut.map((e) => e.shot).filter((s) => vi.build.shots.has(s));
  const errors: ShotError[] = [];
  const skipped: SkippedShot[] = [];
  let wanted: string[];
  if (req.shots === null) wanted = cutOrder;
  else {
    const asked = new Set(req.shots);
    for (const s of req.shots) {
      if (!vi.build.shots.has(s)) {
        errors.push({ shot: s, error: `${s} is not in the ${req.pass} build of this episode` });
      }
    }
    wanted = cutOrder.filter((s) => asked.has(s));
  }
  const c: PlanCtx = {
    vi,
    req,
    deps,
    probe: new FileProbe(services, showFence(ep), [keyframeGate(ep)]),
    resolve: refResolver(services, ep, vi.home),
    negativeTxt: await episodeNegative(ep),
    seriesNegative:
      typeof vi.seriesRaw?.negative === "string" && vi.seriesRaw.negative.trim()
        ? vi.seriesRaw.negative.trim()
        : null,
    continuity: continuityModes(vi),
    laneProblems: new Map(),
    services,
    listings: new Map(),
    localUrl: null,
    workflows: new Map(),
  };
  // Rule 1: whatever goes wrong with one shot is that shot's error, never the whole request's.
  const results = await Promise.all(
    wanted.map((s) =>
      planShot(c, vi.build.shots.get(s)!).catch(
        (err: unknown): ShotError => ({ shot: s, error: `couldn't plan ${s}: ${errorMessage(err)}` }),
      ),
    ),
  );
  const shots: PlannedShot[] = [];
  for (const r of results) {
    if ("error" in r) errors.push(r);
    else if ("reason" in r) skipped.push(r);
    else shots.push(r);
  }
  return { vi, shots, skipped, errors };
}

async function planShot(c: PlanCtx, built: BuiltShot): Promise<PlannedShot | SkippedShot | ShotError> {
  const { vi, req } = c;
  const shot = built.id;
  const sc = shotContext(vi, built, req.target);
  const target = sc.target;
  if (!sc.next.ok) return { shot, error: `can't compile ${shot} for ${target}: ${sc.next.error}` };
  const spec = vi.env.targets.get(target);
  if (spec?.kind !== "video") {
    return { shot, error: `${shot}'s target '${target}' is not a video target this episode knows` };
  }
  const held = await draftProblem(c.services, spec);
  if (held) return { shot, error: `${shot}: ${held}` };
  const current = sc.next.value;
  const takes = await folderTakes(vi, vi.ep, req.pass, shot);
  const onTarget = takes.filter((t) => takeTarget(t, built.target) === target);

  // Rule 3 of the redo check: queued or usable takes on the shot's current target mean "done".
  if (!req.redo) {
    const queued = [...onTarget].reverse().find((t) => takeStatus(t) === "queued");
    if (queued) return { shot, reason: `t${two(queued.take)} is still queued`, take: queued.take };
    const usable = [...onTarget].reverse().find(takeUsable);
    if (usable) return { shot, reason: "has a usable take (pass redo: true)", take: usable.take };
  }

  const lane = req.backend ?? targetBackend(spec);
  const builtin = spec.backend === "builtin";

  const notes: string[] = [];
  const eff = settingsFor(c, sc, spec, notes);
  if (builtin && (req.model !== null || req.loras !== null || req.allowModelMismatch)) {
    notes.push(`${spec.short} renders without a model: the request's model and LoRAs are not used`);
  }

  // Rule 6: a size off the target's grid.
  let width = eff.width ?? current.width ?? vi.story?.series.width ?? 1344;
  let height = eff.height ?? current.height ?? vi.story?.series.height ?? 768;
  const multiple = spec.template.size_multiple ?? 1;
  if (spec.template.size_fit === "error") {
    const bad = checkStrictSize(width, height, multiple, spec.template);
    if (bad) return { shot, error: `size ${width}x${height} does not fit ${spec.short}'s grid: ${bad}` };
  } else {
    const fit = fitSize(width, height, spec.template);
    if (fit.changed) {
      notes.push(`size ${width}x${height} snapped to ${fit.width}x${fit.height} for ${spec.short}`);
      width = fit.width;
      height = fit.height;
    }
  }

  // Rule 3: missing references.
  const slots = shotSlots(vi, sc);
  const exists = new Map<RefSlot, boolean>();
  await Promise.all(slots.map(async (s) => exists.set(s, await c.probe.exists(c.resolve(s.path)))));
  const missing = missingRefs(slots, exists, (p) => relTo(vi.ep, c.resolve(p)));
  let missingMode: PlannedShot["missingMode"] = null;
  let missingNote: string | null = null;
  if (missing.length) {
    const names = missing.map((m) => `${m.slot} (${m.path})`).join(", ");
    const never = missing.filter((m) => m.anyway === false);
    if (!req.allowMissingRefs) {
      return { shot, reason: `missing references: ${names}`, missing_refs: missing };
    }
    if (never.length) {
      const why = never.map((m) => `${m.slot} (${m.path})${m.why ? `: ${m.why}` : ""}`).join(", ");
      return {
        shot,
        reason: `cannot render without ${why}, even with allow_missing_refs`,
        missing_refs: missing,
      };
    }
    if (builtin || !spec.recipe.subject_slots) {
      missingMode = "recompiled";
      missingNote = builtin
        ? `${spec.short} draws the card without them`
        : `the prompt is written without ${names}`;
    } else {
      missingMode = "blank";
      missingNote = `${spec.short} reads a picture in every slot: grey stand-ins are fed for ${names}`;
    }
    notes.push(`rendered without ${names} (allow_missing_refs)`);
  }

  // The lane last: a shot's own problems (size, references) say more than "no such backend".
  const problem = await laneProblem(c, lane);
  if (problem !== null) return { shot, error: problem };
  if (lane === "builtin" && !builtin) {
    return {
      shot,
      error: `the builtin backend renders only the animatic; ${shot} renders on ${target} (send it to a backend that runs ${spec.short})`,
    };
  }
  const laneMismatch = routerLaneProblem(spec, lane);
  if (laneMismatch) return { shot, error: `${shot}: ${laneMismatch}` };

  // Rules 4 and 5 (model files) concern only targets that load models; the local ComfyUI is asked which it has.
  let models: ModelsResolution | null = null;
  if (!builtin && lane === "local") {
    const checked = await checkModels(c, spec, eff);
    if ("error" in checked) return { shot, error: checked.error };
    models = checked;
    if (models.blocked) {
      const lacking = models.missing.filter((m) => m.tier !== "optional");
      const names = lacking.map((m) => `${m.want} (${m.param})`).join(", ");
      return {
        shot,
        reason: `missing model files: ${names || models.notes.join("; ")}`,
        target,
        missing_files: lacking.map((m) => ({
          param: m.param,
          tier: m.tier,
          want: m.want,
          family: m.family,
          folder: m.folder,
          url: m.url,
          source: m.source,
        })),
      };
    }
    notes.push(...models.notes);
    if (models.base) applyBaseSteps(c, sc, eff, models.values);
    // Rule 4: a file of another family is a blocker unless the request allows it.
    c.comfyPath ??= localComfyPath(c.services);
    const check = await checkModelFamilies(spec, req.pass, models, await c.comfyPath, vi.env.targets);
    notes.push(...check.notes);
    if (check.mismatches.length) {
      if (!req.allowModelMismatch) {
        return {
          shot,
          reason: `model mismatch: ${check.mismatches.map((m) => m.message).join("; ")}`,
          model_mismatch: check.mismatches,
          target,
        };
      }
      for (const m of check.mismatches) notes.push(`${m.message} (allow_model_mismatch)`);
    }
  } else if (!builtin) {
    notes.push(`model files are not checked before queueing; the ${lane} backend reads them`);
  }

  // Rule 2: the target's workflow (env variable's file, else the copy saved in ComfyUI, else the shipped copy),
  // after the model check so that a backend that does not answer is named as such.
  let workflow: PlannedWorkflow | null = null;
  let reviewCopy = false;
  if (!builtin && lane === "local") {
    const wf = await workflowFor(c, spec);
    if (!wf.ok) return { shot, error: wf.error };
    workflow = { graph: wf.graph, source: wf.source, where: wf.where };
    c.reviewCopy ??= reviewCopyOn({ ...c.services, env: c.services.env ?? {} });
    reviewCopy = await c.reviewCopy;
    const note = reviewNote(spec, wf.graph, reviewCopy);
    if (note) notes.push(note);
  }

  const latentAsked = req.saveLatent ?? latentDefault(vi, req.pass);
  const saveLatent = latentAsked && keepsLatent(spec);
  if (req.saveLatent === true && !keepsLatent(spec)) {
    notes.push(`save_latent is ignored: ${spec.short} cannot keep a latent`);
  }

  const block = targetBlock(vi.overrides, shot, target);
  const parentRecord =
    req.parentTake !== null ? (takes.find((t) => t.take === req.parentTake) ?? null) : null;
  const parentSeed = parentRecord ? seedValue(parentRecord.sidecar?.seed) : null;
  if (req.parentTake !== null && parentRecord === null) {
    notes.push(`parent_take t${two(req.parentTake)} is not a take of ${shot} in the ${req.pass} pass`);
  }
  const seed = chooseSeed({
    typed: req.seed,
    pinned: seedValue(block?.seed),
    built: seedValue(current.entry.seed),
    mode: req.seedMode,
    hasUsable: onTarget.some(takeUsable),
    parent:
      parentSeed !== null && req.parentTake !== null ? { take: req.parentTake, seed: parentSeed } : null,
  });

  const summary = overrideSummary(vi, sc);
  const overrides = summary.fields.filter((f) => {
    if (f === "seed") return seed.source === "override";
    if (f === "prompt") return req.prompt === null && !isRetargeted(vi, sc);
    if (f === "model" || f === "loras" || f === "steps" || f === "negative") {
      return req[f] === null;
    }
    if (f === "size") return req.size === null;
    if (f === "note") return req.note === null;
    if (f === "target") return req.target === null;
    return true;
  });
  const overrideNote = typeof block?.note === "string" && block.note.trim() !== "" ? block.note : null;

  const mode = c.continuity.get(shot) ?? null;
  const chain = mode && canRender(spec, mode) ? mode : null;
  if (mode && !chain) notes.push(`${spec.short} draws continuous: ${mode} as a plain cut`);
  if (chain === "latent" && builtin) {
    notes.push(`${spec.short} draws the latent continuation as a plain cut: nothing is held`);
  }
  const keyframes = isObject(current.entry.keyframes) ? current.entry.keyframes : {};
  const firstRel = typeof keyframes.first === "string" ? keyframes.first : null;
  const firstFrame =
    firstRel !== null
      ? c.resolve(firstRel)
      : chain === "first"
        ? path.join(vi.ep, "refs", "shots", safeShot(shot), "first.png")
        : null;
  const lastRel = typeof keyframes.last === "string" ? keyframes.last : null;
  const lastFrame = lastRel !== null ? c.resolve(lastRel) : null;

  // The classes this shot's graph sends (its keyframe and LoRAs decide which) must all exist on the engine. The job
  // reads the first keyframe when the file is there at its start: there now, or cut then from the previous shot;
  // the last keyframe when it is there now (nothing cuts one).
  if (workflow && models) {
    const first = firstFrame !== null && (chain === "first" || (await c.probe.exists(firstFrame)));
    const last = lastFrame !== null && (await c.probe.exists(lastFrame));
    const shape = { loras: models.loras, base: models.base, first, last };
    // A latent chain's hold node and its loaders are spliced in when the job starts.
    const hold = chain === "latent" ? holdClasses(spec) : [];
    const nodes = await nodeProblem(c, spec, workflow.graph, shape, hold);
    if (typeof nodes === "string") return { shot, error: nodes };
    if (nodes.length) {
      return {
        shot,
        reason: missingNodesReason(spec, nodes),
        target,
        missing_nodes: nodes,
      };
    }
  }

  const refs = await recordRefs(c, slots, exists);
  const fps = current.fps;
  const length = num(current.entry.length) ?? num(eff.length) ?? 1;
  const over = await shotOverLimits(c.services, spec, { frames: length, fps, width, height });
  if (over) return { shot, error: `${shot} ${over}` };
  const defaults = current.defaults;
  const docBase = vi.build.docs[target] ?? vi.build.docs[built.target];
  const { shots: _shots, ...docFields } = docBase ?? { shots: [] };
  const doc: JsonObject = { ...docFields };
  doc.target = target;
  if (defaults) doc.defaults = defaults;
  // A built-in target is labelled as what it is (the animatic's takes record model "animatic").
  const model = builtin ? (builtinModel(target) ?? target) : (models?.files.model ?? eff.model);
  const loras = models ? models.loras : eff.loras;
  const entry: Entry = {
    ...current.entry,
    seed: seed.seed,
    steps: eff.steps,
    prompt: eff.prompt === promptOf(current.entry) ? current.entry.prompt : eff.prompt,
    width,
    height,
    model: eff.model,
    loras: models ? models.loras.map((l) => ({ ...l })) : eff.loras,
  };
  if (eff.negative_source !== "none") entry.negative = eff.negative;
  else if (entry.negative !== undefined) delete entry.negative;
  entry.missing_refs = missing;
  if (missingMode === "blank") entry.blanks = missing.map((m) => m.slot);

  return {
    shot,
    built,
    target,
    spec,
    lane,
    current,
    doc,
    entry,
    seed: seed.seed,
    seedSource: seed.source,
    model,
    loras: loras.map((l) => ({ name: l.name, strength: l.strength })),
    steps: eff.steps,
    width,
    height,
    fps,
    length,
    lengthSource: current.entry.length_estimated === true ? "estimate" : "script",
    negativeSource: eff.negative_source,
    shotHash: entryStoryHash(c.vi, current.entry),
    presetHash: defaults ? entryPresetHash(c.vi, defaults, current.entry) : null,
    overrides,
    overrideStale: summary.stale,
    refs,
    missing,
    missingMode,
    missingNote,
    notes: [...new Set(notes)],
    saveLatent,
    saveFrames: req.saveFrames,
    note: req.note ?? overrideNote ?? "",
    chain,
    firstFrame,
    lastFrame,
    resolved: models ? resolvedParams(models) : null,
    base: models?.base ?? false,
    baseValues: models?.base ? { ...models.values } : null,
    workflow,
    reviewCopy,
  };
}

/** The target's workflow for this request, resolved once per target against the local ComfyUI. */
function workflowFor(c: PlanCtx, spec: TargetSpec): Promise<WorkflowResolution> {
  let wf = c.workflows.get(spec.id);
  if (!wf) {
    c.localUrl ??= localAddress({
      home: c.services.home,
      env: c.services.env ?? {},
      caches: c.services.caches,
    });
    const localUrl = c.localUrl;
    wf = resolveWorkflow(spec, {
      env: c.services.env ?? {},
      targetDir: customTargetDir(spec, c.vi.home),
      fetch: async (route) => {
        const url = (await localUrl).replace(/\/+$/, "");
        const res = await fetch(url + route, { signal: AbortSignal.timeout(10_000) });
        return { status: res.status, text: () => res.text() };
      },
    });
    c.workflows.set(spec.id, wf);
  }
  return wf;
}

/** The node classes of the shot's graph the local backend lacks, or why that cannot be told (a string). */
async function nodeProblem(
  c: PlanCtx,
  spec: TargetSpec,
  graph: ApiGraph,
  shape: JobShape,
  extra: readonly string[] = [],
): Promise<string[] | string> {
  c.localUrl ??= localAddress({
    home: c.services.home,
    env: c.services.env ?? {},
    caches: c.services.caches,
  });
  const url = await c.localUrl;
  c.nodeClasses ??= engineClasses(c.services.engines.lookups, url);
  let known: ReadonlySet<string>;
  try {
    known = await c.nodeClasses;
  } catch (err) {
    return `the local backend at ${url} did not list its node classes: ${errorMessage(err)}`;
  }
  const check = checkNodes(spec, graph, shape, known);
  if ("error" in check) return check.error;
  return [...check.missing, ...extra.filter((cls) => !known.has(cls) && !check.missing.includes(cls))];
}

/** The sidecar's `resolved`: each model param's wanted file, the file used, how it was chosen and its tier. */
function resolvedParams(m: ModelsResolution): Record<string, ResolvedParam> {
  const out: Record<string, ResolvedParam> = {};
  for (const [param, r] of Object.entries(m.params)) {
    out[param] = { want: r.want, using: r.using, how: r.how, tier: r.tier };
  }
  return out;
}

/** The local ComfyUI's files for the target's model folders, resolved against what the shot wants (targets 4.5). */
async function checkModels(
  c: PlanCtx,
  spec: TargetSpec,
  eff: Effective,
): Promise<ModelsResolution | { error: string }> {
  c.localUrl ??= localAddress({
    home: c.services.home,
    env: c.services.env ?? {},
    caches: c.services.caches,
  });
  const url = await c.localUrl;
  const listed = await listTargetModels(c.services.engines.lookups, url, spec, c.listings);
  if ("error" in listed) return listed;
  const { listing } = listed;
  const families = c.vi.seriesRaw?.model_families;
  const familyGlobs: Record<string, string[]> = {};
  if (isObject(families)) {
    for (const [k, v] of Object.entries(families))
      if (Array.isArray(v)) familyGlobs[k] = v.filter((x): x is string => typeof x === "string");
  }
  return resolveModels(spec, c.req.pass, listing, {
    familyGlobs,
    job: { model: eff.model, loras: eff.loras.map((l) => ({ ...l, name: l.name, strength: l.strength })) },
  });
}

const promptOf = (entry: Entry) =>
  Array.isArray(entry.prompt)
    ? entry.prompt.filter((x) => typeof x === "string").join("\n\n")
    : typeof entry.prompt === "string"
      ? entry.prompt
      : "";

function isRetargeted(vi: ViewInputs, sc: ShotContext): boolean {
  const retarget = vi.overrides.shots?.[sc.built.id]?.target;
  return (
    (typeof retarget === "string" && retarget !== "") ||
    (sc.source === "request" && sc.target !== sc.built.target)
  );
}

/**
 * Under the accelerator fallback (its files missing) the base preset replaces the target preset layer, so its
 * steps win over the preset's but not over the request, the shot's pass override or a shot-level value that differs
 * from the preset's (the built entry carries the preset's steps when no layer set them).
 */
function applyBaseSteps(c: PlanCtx, sc: ShotContext, eff: Effective, values: Record<string, unknown>): void {
  const steps = num(values.steps);
  if (steps === null || c.req.steps !== null) return;
  const block = targetBlock(c.vi.overrides, sc.built.id, sc.target);
  const passBlock = block?.[c.vi.pass];
  if (num(passBlock?.steps) !== null) return;
  const entrySteps = num(sc.reads.entry.steps);
  const presetSteps = num(sc.reads.defaults?.steps);
  if (entrySteps !== null && entrySteps !== presetSteps) return;
  eff.steps = steps;
}

/** `effective` as GET /studio/shot answers it, then the request's own values on top (the strongest layer). */
function settingsFor(c: PlanCtx, sc: ShotContext, spec: TargetSpec, notes: string[]): Effective {
  const { vi, req } = c;
  const block = targetBlock(vi.overrides, sc.built.id, sc.target);
  const passBlock = block?.[vi.pass];
  const eff = effectiveSettings({
    target: sc.target,
    spec,
    current: sc.reads,
    block,
    pass: passBlock,
    retargeted: isRetargeted(vi, sc),
    negativeTxt: c.negativeTxt,
    seriesNegative: c.seriesNegative,
    error: null,
  });
  notes.push(...(eff.notes ?? []));
  if (req.prompt !== null) eff.prompt = req.prompt;
  if (req.model !== null) eff.model = req.model;
  if (req.loras !== null) eff.loras = req.loras.map((l) => ({ ...l }));
  if (req.steps !== null) {
    eff.steps = req.steps;
    if (spec.recipe.fixed_steps)
      notes.push(`steps ${req.steps} is recorded only: ${spec.short} runs a fixed schedule`);
  }
  if (req.negative !== null) {
    if (takesNegative(spec)) {
      eff.negative = req.negative;
      eff.negative_source = "request";
    } else {
      notes.push(`${spec.short} takes no negative prompt: the request's negative is not used`);
    }
  }
  if (req.size) {
    eff.width = req.size.width;
    eff.height = req.size.height;
  }
  return eff;
}

async function recordRefs(
  c: PlanCtx,
  slots: readonly RefSlot[],
  exists: ReadonlyMap<RefSlot, boolean>,
): Promise<RecordedRef[]> {
  return Promise.all(
    slots.map(async (s): Promise<RecordedRef> => {
      const abs = c.resolve(s.path);
      const there = exists.get(s) ?? (await c.probe.exists(abs));
      const sha1 = there ? await c.probe.sha1(abs) : null;
      return {
        slot: s.slot,
        kind: s.kind,
        path: s.path,
        role: s.role,
        ...(s.subject !== undefined ? { subject: s.subject } : {}),
        ...(s.location !== undefined ? { location: s.location } : {}),
        optional: s.optional,
        sha1,
      };
    }),
  );
}
