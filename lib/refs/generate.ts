// POST /studio/refs/generate: a request planned into candidates (which views, how many, each one's seed and
// effective values: request > view override > ref override > episode > series `refs` block > built-in, as
// effectiveRef gives them), checked per candidate (target, backend, model files) and queued as `ref` jobs.
// One candidate's problem is an `errors` entry, never the whole request's; refusals of the request itself are 400s.
import { z } from "zod";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { laneUnready, localAddress } from "../engines/registry.ts";
import { badRequest, notFound } from "../errors.ts";
import type { JobStore } from "../jobs/types.ts";
import { type FolderListings, listTargetModels } from "../render/model-listing.ts";
import { targetBackend } from "../render/plan.ts";
import { chooseSeed, type SeedChoice, seedValue } from "../render/seed.ts";
import { localIso } from "../render/time.ts";
import { ep, passOr, seed, targetIdOrBlank } from "../schema/fields.ts";
import { newSeed53 } from "../script/seeds.ts";
import { errorMessage, type JsonObject, num } from "../store/json-guards.ts";
import { type MissingFile, resolveModels } from "../targets/models.ts";
import { editIntroduction } from "../targets/prompts/edit-intro.ts";
import type { TargetSpec } from "../targets/registry.ts";
import { type Catalog, type CatalogRef, catalogRef, readCatalog } from "./catalog.ts";
import { editOption, editTargetOf, keyframeRefs, planEdit } from "./edit.ts";
import {
  boundParams,
  type EffectiveRef,
  effectiveRef,
  factsOf,
  hasViews,
  isKeyframe,
  isVoice,
  overrideLayers,
  type RefRequest,
  type RefSettingsInputs,
  readRefSettings,
  stableRefSeed,
  takesNegativePrompt,
  targetKindOf,
} from "./effective.ts";
import { type CharacterView, parseRefId, type RefView, refField, VIEWS, viewField } from "./ids.ts";
import {
  checkForRef,
  checkRefOverrideFields,
  type RefOverride,
  type RefOverrideChange,
  readRefOverrides,
  setFields,
} from "./overrides.ts";
import { panoOption, planPano } from "./pano.ts";
import { type RefsPlace, refsPlace } from "./place.ts";
import {
  insertRefJob,
  type RefTakeRef,
  type ReservedRefTake,
  refEvent,
  refJob,
  refStem,
  reserveRefTake,
} from "./queue-ref.ts";
import type { RefPayload } from "./ref-payload.ts";
import { listTakes } from "./takes.ts";

export const MAX_COUNT = 16;

/** The body of POST /studio/refs/generate. */
export const generateBody = z.object({
  ep,
  ref: refField.describe(
    "The reference to make candidates of: subject:<id>, location:<id> or shot:<shot>:first|last",
  ),
  view: viewField.describe(
    "A character view to make; left out or null on a character: all four views, sharing one seed",
  ),
  count: z
    .int()
    .min(1)
    .max(MAX_COUNT)
    .nullish()
    .describe(`How many candidates, 1 to ${MAX_COUNT} (default 1); only the first follows seed_mode or seed`),
  seed_mode: z
    .enum(["auto", "new", "same"])
    .or(z.literal(""))
    .nullish()
    .describe(
      "auto (the stable seed until the reference has a usable take), new, or same (the newest take's)",
    ),
  seed,
  prompt: z.string().nullish().describe("A prompt instead of the built one (a character's needs a view)"),
  model: z.string().nullish().describe("A model file instead of the target's"),
  loras: z
    .unknown()
    .optional()
    .describe('LoRAs: "name" or "name:0.6", {name, strength}, or a list of them; "none" drops them'),
  steps: z.int().min(1).nullish().describe("Sampling steps instead of the preset's"),
  cfg: z.number().nullish().describe("CFG, 0 to 30, instead of the preset's"),
  size: z.string().nullish().describe("WxH, 256 to 4096 a side, instead of the target's (not for keyframes)"),
  params: z
    .unknown()
    .optional()
    .describe("{sampler, scheduler, denoise, shift, guidance}: each used where the target has that setting"),
  negative: z.string().nullish().describe("A negative prompt, on targets that take one"),
  target: targetIdOrBlank.nullish().describe("An image target instead of the reference's"),
  pass: passOr("final").describe(
    'A keyframe\'s pass, whose render size it is drawn at: "final" (default) or "proxy"',
  ),
  note: z.string().nullish().describe("A note kept in each candidate's sidecar"),
  backend: z
    .string()
    .max(128)
    .nullish()
    .describe("The backend: builtin, local, cloud or deployment:<target>; left out: the target's own"),
  edit: editOption
    .nullish()
    .describe(
      "Change an existing picture on an edit target: {take (null: the live picture), from_view?, turn?, with: [{ref, view?, take?}], wrap}; prompt is the instruction",
    ),
  pano: panoOption
    .nullish()
    .describe(
      "On a location: 360 panoramas as pano takes: {with: [location ids], engine?, size? (WxH, 2:1), latent?}",
    ),
});

export type GenerateBody = z.output<typeof generateBody>;

export interface QueuedCandidate {
  ref: string;
  view: RefView | null;
  /** Null in a dry run (nothing reserved). */
  take: number | null;
  prompt_id: string | null;
  seed: string;
  seed_source: string;
  backend: string;
  target: string;
}

export interface CandidateError {
  ref: string;
  view: RefView | null;
  error: string;
  take?: number;
  target?: string;
  missing_files?: Pick<MissingFile, "param" | "tier" | "want" | "family" | "folder" | "url" | "source">[];
}

export interface GenerateAnswer {
  queued: QueuedCandidate[];
  errors: CandidateError[];
}

/** What a queueing left to tell the page, for a caller that orders the events of several requests itself. */
export interface GenerateOutcome extends GenerateAnswer {
  queuedTakes: RefTakeRef[];
  failedTakes: RefTakeRef[];
}

/** How generate-missing asks: voices allowed (on the voice target), or nothing written at all. */
export interface GenerateOptions {
  /** Voices get a voice candidate on their audio target (generate itself refuses them). */
  voice?: boolean;
  /** Plan and answer without reserving or queueing anything. */
  dryRun?: boolean;
  /** With `edit`: image 1 is this reference's live picture (internal: a relight edits the source plate). */
  editFrom?: { ref: string } | null;
}

// ------------------------------------------------------------------------------------------ pure planning

/** The request's own values as override fields, checked as overrides are (types and limits). */
export function requestChange(body: GenerateBody): RefOverrideChange {
  const fields: Record<string, unknown> = {};
  for (const k of [
    "prompt",
    "model",
    "loras",
    "steps",
    "cfg",
    "size",
    "params",
    "negative",
    "target",
  ] as const) {
    const v = body[k];
    if (v !== undefined && v !== null && v !== "") fields[k] = v;
  }
  if (body.seed !== null) fields.seed = body.seed.toString();
  return checkRefOverrideFields(fields);
}

/** The refusals of the request as a whole: a voice, a sheet or pseudo-view, a view or prompt where none belongs. */
export function checkRequest(
  c: Pick<CatalogRef, "ref" | "kind" | "views">,
  view: RefView | null,
  prompt: boolean,
  voiceAllowed = false,
): void {
  const id = c.ref.id;
  if (isVoice({ id }) && !voiceAllowed) {
    throw badRequest(
      `voices are not generated here: ${id} gets a voice candidate from generate-missing on the voice target, or import a recording (POST /studio/refs/import)`,
    );
  }
  if (view === "sheet") {
    throw badRequest(
      `the sheet of ${id} is not generated: generate its four views (view left out) and picking them stitches the sheet, or import a ready-made sheet`,
    );
  }
  if (view === "pano" || view === "tour") {
    throw badRequest(
      view === "pano"
        ? `panoramas are made with the pano option, not as a view (${id})`
        : `tour holds come from a camera tour (POST /studio/refs/tour), not from generate (${id})`,
    );
  }
  const views = c.views.length > 0;
  if (view !== null && !views) {
    throw badRequest(`${id} has no views: leave view out (got ${view})`);
  }
  if (prompt && views && view === null) {
    throw badRequest(
      `${id} is a character: a prompt describes one view, so name the view (01_threequarter, 02_side, 03_back or 04_face)`,
    );
  }
}

/** The views one candidate is made of: a character's four when none is named, else the one asked (or none). */
export function viewsOf(facts: { views: readonly unknown[] }, view: RefView | null): (RefView | null)[] {
  if (view === null && facts.views.length > 0) return [...VIEWS];
  return [view];
}

/**
 * The seed of each candidate: the first follows the request's mode (typed > override-pinned > same > new or
 * auto-after-a-usable-take > stable), the rest get new seeds.
 */
export function candidateSeeds(
  first: SeedChoice,
  count: number,
  fresh: () => bigint = newSeed53,
): SeedChoice[] {
  const out: SeedChoice[] = [first];
  for (let i = 1; i < count; i++) out.push({ seed: fresh(), source: "new" });
  return out;
}

/** A size on the target's grid (nearest multiple, at least one step), and a note when it moved. */
export function onGrid(
  width: number,
  height: number,
  spec: Pick<TargetSpec, "template" | "short">,
): { width: number; height: number; note: string | null } {
  const grid = Math.max(1, num(spec.template.size_multiple) ?? 1);
  const snap = (n: number) => Math.max(grid, Math.round(n / grid) * grid);
  const w = snap(width);
  const h = snap(height);
  const note =
    w !== width || h !== height ? `size ${width}x${height} snapped to ${w}x${h} for ${spec.short}` : null;
  return { width: w, height: h, note };
}

/** The override fields in force for a view that the request did not set (recorded as the sidecar's `overrides`). */
export function overridesUsed(
  override: RefOverride | undefined,
  view: string | null,
  change: RefOverrideChange,
): string[] {
  const set = new Set<string>();
  for (const layer of overrideLayers(override, view)) for (const f of setFields(layer)) set.add(f);
  return [...set].filter((f) => f !== "note" && (change as Record<string, unknown>)[f] === undefined).sort();
}

// ------------------------------------------------------------------------------------------- the request

export interface GenerateDeps {
  store: JobStore;
  /** Wake an in-process worker pool. */
  wake?(): void;
}

type GenerateServices = Pick<
  Services,
  "home" | "env" | "events" | "now" | "engines" | "caches" | "locks" | "targets" | "media"
>;

interface Planned {
  view: RefView | null;
  eff: EffectiveRef;
  spec: TargetSpec;
  lane: string;
  width: number;
  height: number;
  notes: string[];
  files: Record<string, string>;
  base: boolean;
  baseValues: Record<string, unknown> | null;
  resolved: JsonObject | null;
  /** The sidecar's `source`: generated, or edited / pano for those options. */
  source: "generated" | "edited" | "pano";
  /** Pictures sent as the target's references, in order (absolute paths). */
  references: string[];
  /** Sidecar fields the option records (`edit`, `pano`, `references`). */
  record: JsonObject;
  /** Notes the finished candidate carries. */
  saveNotes: string[];
  latent: "empty" | null;
}

/** Per request: each backend's problem and each model folder's listing, asked once. */
interface Asked {
  lanes: Map<string, Promise<string | null>>;
  folders: FolderListings;
  localUrl: Promise<string> | null;
}

function laneProblem(services: GenerateServices, asked: Asked, lane: string): Promise<string | null> {
  let p = asked.lanes.get(lane);
  if (!p) {
    p = (async () => {
      try {
        services.engines.get(lane);
      } catch (err) {
        return errorMessage(err);
      }
      return laneUnready(lane, services);
    })();
    asked.lanes.set(lane, p);
  }
  return p;
}

/** The model files of the target against what the local ComfyUI has: blocked, or the files to patch in. */
async function checkModels(
  services: GenerateServices,
  asked: Asked,
  spec: TargetSpec,
  eff: EffectiveRef,
): Promise<{ error: string } | Awaited<ReturnType<typeof resolveModels>>> {
  asked.localUrl ??= localAddress(services);
  const url = await asked.localUrl;
  const listed = await listTargetModels(services.engines.lookups, url, spec, asked.folders);
  if ("error" in listed) return listed;
  const { listing } = listed;
  return resolveModels(spec, "final", listing, { job: { model: eff.model, loras: eff.loras } });
}

/** One view's values and checks; an error entry when it cannot be made here. */
async function planView(
  services: GenerateServices,
  asked: Asked,
  c: CatalogRef,
  view: RefView | null,
  eff: EffectiveRef,
  registry: { get(id: string): TargetSpec | undefined; ids(kind: "image" | "audio"): string[] },
  backend: string | null,
  /** The picture-taking mode this request brings its pictures for (an edit, a panorama, a keyframe's references). */
  brings: "edit" | "pano" | null = null,
): Promise<Planned | CandidateError> {
  const id = c.ref.id;
  const fail = (error: string, extra: Partial<CandidateError> = {}): CandidateError => ({
    ref: id,
    view,
    error,
    ...extra,
  });
  const spec = registry.get(eff.target);
  const kind = targetKindOf(c.ref);
  if (!spec) {
    return fail(
      `the ${kind} target ${eff.target} is not installed here (${kind} targets: ${registry.ids(kind).join(", ") || "none"})`,
    );
  }
  if (spec.kind !== kind) return fail(`${eff.target} is a ${spec.kind} target, not an ${kind} target`);
  const mode = spec.capabilities.mode;
  if (kind === "image" && (mode === "edit" || mode === "pano") && mode !== brings) {
    // An edit target changes a picture it is given and a pano target outpaints a canvas: a plain candidate has neither.
    return fail(
      `${spec.short} is an ${mode} target: it needs ${mode === "edit" ? "the pictures it changes" : "a canvas to outpaint"}, which a plain candidate does not send; choose a text-to-image target`,
      { target: spec.id },
    );
  }
  if (!eff.prompt?.trim()) {
    return fail(`${id} has no wording to be made from (the series config gives none): send a prompt`, {
      target: spec.id,
    });
  }
  if (kind === "image" && (eff.width === null || eff.height === null)) {
    return fail(`${id} has no size to be made at`, { target: spec.id });
  }
  const notes: string[] = [];
  // A sound has no picture size: its payload carries 1x1, which no audio graph binds.
  const sized =
    kind === "image" ? onGrid(eff.width ?? 1, eff.height ?? 1, spec) : { width: 1, height: 1, note: null };
  if (sized.note) notes.push(sized.note);
  const builtin = spec.backend === "builtin";
  const lane = backend ?? targetBackend(spec);
  const problem = await laneProblem(services, asked, lane);
  if (problem !== null) return fail(problem, { target: spec.id });
  if (lane === "builtin" && !builtin) {
    return fail(`the builtin backend does not run ${spec.short}: send it to a backend that does (local)`, {
      target: spec.id,
    });
  }
  if (builtin && lane !== "builtin") {
    return fail(`${spec.short} is drawn by the built-in engine only: leave backend out or send builtin`, {
      target: spec.id,
    });
  }
  const planned: Planned = {
    view,
    eff,
    spec,
    lane,
    width: sized.width,
    height: sized.height,
    notes,
    files: {},
    base: false,
    baseValues: null,
    resolved: null,
    source: "generated",
    references: [],
    record: {},
    saveNotes: [],
    latent: null,
  };
  if (builtin) {
    if (eff.model || eff.loras.length)
      notes.push(`${spec.short} draws without a model: model and LoRAs are not used`);
    return planned;
  }
  if (lane !== "local") {
    notes.push(`model files are not checked before queueing; the ${lane} backend reads them`);
    return planned;
  }
  const models = await checkModels(services, asked, spec, eff);
  if ("error" in models) return fail(models.error, { target: spec.id });
  if (models.blocked) {
    const lacking = models.missing.filter((m) => m.tier !== "optional");
    const names = lacking.map((m) => `${m.want} (${m.param})`).join(", ");
    return fail(`missing model files: ${names || models.notes.join("; ")}`, {
      target: spec.id,
      missing_files: lacking.map((m) => ({
        param: m.param,
        tier: m.tier,
        want: m.want,
        family: m.family,
        folder: m.folder,
        url: m.url,
        source: m.source,
      })),
    });
  }
  notes.push(...models.notes);
  planned.files = { ...models.files };
  planned.base = models.base;
  planned.baseValues = models.base ? { ...models.values } : null;
  const resolved: JsonObject = {};
  for (const [param, r] of Object.entries(models.params))
    resolved[param] = { want: r.want, using: r.using, how: r.how, tier: r.tier };
  planned.resolved = resolved;
  return planned;
}

/** The seed of the first candidate, from the ref's own values (a character's four views share it). */
async function firstSeed(
  services: Pick<Services, "caches" | "locks">,
  place: RefsPlace,
  c: CatalogRef,
  refEff: EffectiveRef,
  typed: bigint | null,
  mode: "auto" | "new" | "same",
  views: readonly (RefView | null)[],
): Promise<SeedChoice> {
  const takes = (await listTakes(services, place, c.ref)).filter(
    (t) => t.view !== "pano" && t.view !== "tour",
  );
  const newest = [...takes]
    .filter((t) => views.includes(t.view) && seedValue(t.sidecar.seed) !== null)
    .sort((a, b) => (a.sidecar.queued ?? "").localeCompare(b.sidecar.queued ?? "") || a.take - b.take)
    .pop();
  const parentSeed = newest ? seedValue(newest.sidecar.seed) : null;
  return chooseSeed({
    typed,
    pinned: refEff.seed_source === "override" ? BigInt(refEff.seed) : null,
    built: stableRefSeed(c.ref.id),
    mode,
    hasUsable: takes.some((t) => t.usable),
    parent: newest && parentSeed !== null ? { take: newest.take, seed: parentSeed } : null,
  });
}

/** The queue-time sidecar of a candidate. */
function queuedSidecar(
  place: RefsPlace,
  c: CatalogRef,
  p: Planned,
  take: number,
  stem: string,
  seedChoice: SeedChoice,
  extra: { queued: string; overrides: string[]; note: string; pass: Pass; shotSize: JsonObject | null },
): JsonObject {
  const s: JsonObject = {
    version: 1,
    ref: c.ref.id,
    view: p.view,
    take,
    ep: place.ep,
    status: "queued",
    queued: extra.queued,
    queue: "studio",
    job: null,
    backend: p.lane,
    backend_prompt_id: null,
    source: p.source,
    target: p.spec.id,
    seed: seedChoice.seed,
    seed_source: seedChoice.source,
    prompt: p.eff.prompt ?? "",
    model: p.eff.model,
    loras: p.eff.loras,
    steps: p.eff.steps,
    cfg: p.eff.cfg,
    params: p.eff.params,
    width: p.width,
    height: p.height,
    overrides: extra.overrides,
    note: extra.note,
    image: `${stem}.png`,
    notes: p.notes,
  };
  if (p.spec.kind === "audio") {
    // A voice sample: a sound beside the sidecar, no picture size.
    delete s.image;
    delete s.width;
    delete s.height;
    s.audio = `${stem}.wav`;
  }
  if (p.eff.negative !== null) s.negative = p.eff.negative;
  if (extra.shotSize) {
    s.pass = extra.pass;
    s.shot_size = extra.shotSize;
  }
  Object.assign(s, p.record);
  if (p.resolved) {
    s.resolved = p.resolved;
    s.base = p.base;
    if (p.baseValues && Object.keys(p.baseValues).length) s.base_values = p.baseValues;
  }
  return s;
}

/** Plan the request, queue what can be queued, emit the events in the contract's order, answer at once. */
export async function generateRefs(
  services: GenerateServices,
  epReal: string,
  body: GenerateBody,
  deps: GenerateDeps,
  opts: GenerateOptions = {},
): Promise<GenerateAnswer> {
  const place = await refsPlace(services, epReal);
  const [catalog, settings] = await Promise.all([
    readCatalog(services, place),
    readRefSettings(services, place),
  ]);
  const out = await queueGenerate(services, { place, catalog, settings }, body, deps, opts);
  if (out.queued.length) deps.wake?.();
  for (const t of out.queuedTakes) services.events.emit("studio.ref", refEvent(t, "queued"));
  for (const t of out.failedTakes) services.events.emit("studio.ref", refEvent(t, "failed"));
  if (out.queuedTakes.length || out.failedTakes.length)
    services.events.emit("studio.episode", { ep: place.ep });
  return { queued: out.queued, errors: out.errors };
}

/** What a request reads once per episode (generate-missing shares it across its references). */
export interface GenerateScene {
  place: RefsPlace;
  catalog: Catalog;
  settings: RefSettingsInputs;
}

/**
 * Plan one request and reserve and queue its candidates (nothing in a dry run), without events or waking the
 * workers: the caller orders those. 400 and 404 for a request refused as a whole.
 */
export async function queueGenerate(
  services: GenerateServices,
  scene: GenerateScene,
  body: GenerateBody,
  deps: GenerateDeps,
  opts: GenerateOptions = {},
): Promise<GenerateOutcome> {
  const id = parseRefId(body.ref);
  const { place, catalog, settings } = scene;
  const c = catalogRef(catalog, id.id);
  const view = (body.view ?? null) as RefView | null;
  const change = requestChange(body);
  checkRequest(c, view, typeof change.prompt === "string", opts.voice === true);
  if (body.edit && body.pano)
    throw badRequest("send edit or pano, not both: one changes a picture, the other makes a panorama");
  const { defaults, registry } = settings;
  const facts = factsOf(c);
  // An edit or a panorama is made of the pictures it is given and the request: the ref's overrides are not read.
  const option = body.edit ? "edit" : body.pano ? "pano" : null;
  const override = option ? undefined : (await readRefOverrides(services, place, c.ref)).refs[c.ref.id];
  const editSpec = body.edit ? editTargetOf(change.target, defaults, registry) : null;

  let shotSize: { width: number; height: number } | null = null;
  if (isKeyframe(facts)) {
    shotSize = c.keyframe?.sizes[body.pass] ?? null;
    if (!shotSize) {
      throw notFound(
        `${c.keyframe?.shot ?? c.ref.name} has no size in the ${body.pass} pass: build that pass first (or send pass: ${body.pass === "final" ? "proxy" : "final"})`,
      );
    }
  }
  // Refusals that depend on the target the request lands on (unknown or non-image target, negative, params).
  const baseEff = effectiveRef({ ref: facts, view: null, override, defaults, registry, shotSize });
  const pano = body.pano
    ? await planPano(place, catalog, {
        ref: c,
        pano: body.pano,
        prompt: change.prompt ?? null,
        target: change.target ?? null,
        registry,
      })
    : null;
  const target = editSpec?.id ?? pano?.spec.id ?? change.target ?? baseEff.target;
  const spec = registry.get(target);
  const targetKind = targetKindOf(c.ref);
  const paramNotes = checkForRef(change, {
    ref: c.ref,
    hasViews: hasViews(facts),
    view: hasViews(facts) ? view : null,
    targetKind,
    targetIds: registry.ids(targetKind),
    target,
    targetShort: spec?.short ?? target,
    takesNegative: takesNegativePrompt(spec),
    params: boundParams(spec),
  });
  const request: RefRequest = {
    prompt: change.prompt,
    seed: change.seed,
    model: change.model,
    loras: change.loras,
    steps: change.steps,
    cfg: change.cfg,
    size: change.size,
    params: change.params,
    negative: change.negative,
    target: option ? target : change.target,
  };
  const edit =
    body.edit && editSpec
      ? await planEdit(services, place, catalog, {
          ref: c,
          view: view as CharacterView | null,
          edit: body.edit,
          prompt: change.prompt ?? null,
          spec: editSpec,
          from: opts.editFrom ?? null,
        })
      : null;
  const made = edit ?? pano;
  if (made) {
    request.prompt = made.prompt;
    if (!isKeyframe(facts)) request.size = `${made.width}x${made.height}`;
  }
  if (edit?.loras.length) {
    const preset = effectiveRef({ ref: facts, view: null, override, defaults, registry, request, shotSize });
    request.loras = [...preset.loras, ...edit.loras];
  }

  const views = option ? [view] : viewsOf(facts, view);
  const refEff = effectiveRef({ ref: facts, view: null, override, defaults, registry, request, shotSize });
  const mode = body.seed_mode || "auto";
  const first = await firstSeed(services, place, c, refEff, change.seed ?? null, mode, views);
  const seeds = candidateSeeds(first, body.count ?? 1);

  const asked: Asked = { lanes: new Map(), folders: new Map(), localUrl: null };
  const errors: CandidateError[] = [];
  const plans: Planned[] = [];
  for (const v of views) {
    const eff = effectiveRef({
      ref: facts,
      view: v === null || v === "sheet" || v === "pano" || v === "tour" ? null : (v as CharacterView),
      override,
      defaults,
      registry,
      request,
      shotSize,
    });
    const keyframeEdit =
      isKeyframe(facts) && !option && registry.get(eff.target)?.capabilities.mode === "edit";
    const brings = option ?? (keyframeEdit ? "edit" : null);
    const planned = await planView(
      services,
      asked,
      c,
      v,
      eff,
      registry,
      body.backend?.trim() || null,
      brings,
    );
    if ("error" in planned) {
      errors.push(planned);
      continue;
    }
    planned.notes.unshift(...paramNotes);
    if (made) {
      planned.width = made.width;
      planned.height = made.height;
      planned.references = made.files;
      planned.record = { ...made.record };
    }
    if (edit) {
      planned.source = "edited";
      planned.saveNotes = edit.saveNotes;
    }
    if (pano) {
      planned.view = "pano";
      planned.source = "pano";
      planned.latent = pano.latent;
    }
    if (keyframeEdit && !opts.dryRun) {
      // The edit target draws the keyframe from the pictures of what is in it (a dry run composes nothing).
      const kf = await keyframeRefs(services, place, catalog, c, planned.spec, planned);
      planned.references = kf.files;
      planned.notes.push(...kf.notes);
      if (kf.references.length) planned.record = { references: kf.references };
      if (kf.intro.length && planned.eff.prompt === c.prompt && c.prompt) {
        const word =
          typeof planned.spec.recipe.ref_word === "string" ? planned.spec.recipe.ref_word : "image";
        planned.eff = { ...planned.eff, prompt: `${editIntroduction(kf.intro, word)} ${c.prompt}` };
      }
    }
    plans.push(planned);
  }

  const queued: QueuedCandidate[] = [];
  const failedTakes: RefTakeRef[] = [];
  const queuedTakes: RefTakeRef[] = [];
  const queuedAt = localIso(services.now());
  for (const seedChoice of seeds) {
    for (const p of plans) {
      const note = body.note?.trim() || (overrideLayers(override, p.view).find((l) => l.note)?.note ?? "");
      if (opts.dryRun) {
        queued.push({
          ref: c.ref.id,
          view: p.view,
          take: null,
          prompt_id: null,
          seed: seedChoice.seed.toString(),
          seed_source: seedChoice.source,
          backend: p.lane,
          target: p.spec.id,
        });
        continue;
      }
      let reserved: ReservedRefTake;
      try {
        reserved = await reserveRefTake(services, place, c.ref, p.view, (n, stem) =>
          queuedSidecar(place, c, p, n, stem, seedChoice, {
            queued: queuedAt,
            overrides: overridesUsed(override, p.view, change),
            note,
            pass: body.pass,
            shotSize,
          }),
        );
      } catch (err) {
        errors.push({ ref: c.ref.id, view: p.view, error: `couldn't reserve a take: ${errorMessage(err)}` });
        continue;
      }
      const take = reserved.take;
      const t: RefTakeRef = { place, ref: c.ref, view: p.view, take };
      const payload: RefPayload = {
        ep: place.ep,
        ref: c.ref.id,
        view: p.view,
        take,
        stem: refStem(t),
        target: p.spec.id,
        backend: p.lane,
        kind: p.spec.kind === "audio" ? "audio" : "image",
        prompt: p.eff.prompt ?? "",
        seed: seedChoice.seed.toString(),
        width: p.width,
        height: p.height,
        steps: p.eff.steps,
        cfg: p.eff.cfg,
        model: p.eff.model,
        loras: p.eff.loras,
        params: p.eff.params as Record<string, string | number>,
        negative: p.eff.negative,
        files: p.files,
        base: p.base,
        base_values: p.baseValues,
        shot_size: shotSize,
      };
      if (p.references.length) payload.references = p.references;
      if (p.saveNotes.length) payload.save_notes = p.saveNotes;
      if (p.latent) payload.latent = p.latent;
      try {
        const job = await insertRefJob(services, deps.store, t, refJob(payload, reserved.jobId));
        queued.push({
          ref: c.ref.id,
          view: p.view,
          take,
          prompt_id: job.id,
          seed: seedChoice.seed.toString(),
          seed_source: seedChoice.source,
          backend: p.lane,
          target: p.spec.id,
        });
        queuedTakes.push(t);
      } catch (err) {
        // insertRefJob closed the candidate failed with the reason.
        errors.push({
          ref: c.ref.id,
          view: p.view,
          take,
          target: p.spec.id,
          error: `couldn't queue t${String(take).padStart(2, "0")}: ${errorMessage(err)}`,
        });
        failedTakes.push(t);
      }
    }
  }

  return { queued, errors, queuedTakes, failedTakes };
}
