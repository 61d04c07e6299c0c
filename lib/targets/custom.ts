// Custom targets, a show's own (`<show>/targets/<id>/target.json`) or the settings' (`<settings dir>/targets/<id>`,
// every show's): saved after validation against the workflow a job would prepare (a hosted-model target, which has
// none, by its router block), their draft flag flipped, removed. Every file is written through its folder's fence.
import { mkdir, realpath } from "node:fs/promises";
import path from "node:path";
import { engineAddress } from "../backends/list.ts";
import { effectiveSettings } from "../config/settings-store.ts";
import type { Services } from "../context.ts";
import { badRequest, StudioError } from "../errors.ts";
import {
  folderFence,
  mkdirShow,
  readShowText,
  removeShow,
  statShowOrNull,
  writeShowJson,
} from "../paths/guarded.ts";
import { resolveEpisode } from "../paths/index.ts";
import { asksForRouter, routerTargetProblems } from "../router/target-check.ts";
import { isTargetId } from "../schema/fields.ts";
import { errorCode, errorMessage, isObject } from "../store/json-guards.ts";
import type { ApiGraph } from "./graph.ts";
import { clearTargetGraphs } from "./graph-view.ts";
import { validateProposal } from "./inspect.ts";
import { listTargets, showDirOf } from "./listing.ts";
import { clearTargetReadiness } from "./readiness-cache.ts";
import { parseTarget } from "./registry.ts";
import { settingsTargetsRoot } from "./target-tree.ts";
import { graphFrom, resolveWorkflow, WorkflowError } from "./workflow.ts";

type Svc = Pick<Services, "home" | "env" | "log" | "engines" | "targets" | "caches" | "media">;

/** Where custom targets are kept: a show folder, or the settings folder (every show's). */
export interface CustomPlace {
  scope: "show" | "settings";
  /** A checked real folder holding `targets/`. */
  dir: string;
}

/**
 * Where a request's custom target lives: `scope` settings (every show's; an `ep` with it is refused, since it would
 * name a show the target is not kept in), else the show of the episode `ep` names, resolved only once the scope is
 * known to be a show's (`epReal`, null without one, so the caller can announce the episode it changed).
 */
export async function customPlace(
  services: Pick<Services, "home" | "env" | "caches">,
  scope: string | undefined,
  ep: string | undefined,
): Promise<{ place: CustomPlace; epReal: string | null }> {
  if (scope === "settings") {
    if (ep !== undefined)
      throw badRequest("scope settings keeps the target for every show: send no ep with it");
    const root = settingsTargetsRoot(services);
    if (!root) throw badRequest("this service keeps no settings folder: save the target in a show (ep)");
    await mkdir(root, { recursive: true });
    return { place: { scope, dir: await realpath(root) }, epReal: null };
  }
  if (scope !== undefined && scope !== "show")
    throw badRequest(`scope must be show or settings (got ${JSON.stringify(scope)})`);
  if (ep === undefined)
    throw badRequest("ep is required: the show whose target this is (or scope: settings)");
  const epReal = await resolveEpisode(ep, services);
  return { place: { scope: "show", dir: await showDirOf(services, epReal) }, epReal };
}

const targetDirOf = (place: CustomPlace, id: string) => path.join(place.dir, "targets", id);
const fenceOf = (place: CustomPlace) =>
  folderFence(place.dir, place.scope === "show" ? "the show folder" : "the settings folder");
const nameOf = (place: CustomPlace) => (place.scope === "show" ? "the show" : "the settings");

/** The custom targets of the place as the listing describes them. */
async function customListing(services: Svc, place: CustomPlace): Promise<Record<string, unknown>[]> {
  const showDir = place.scope === "show" ? place.dir : null;
  const { targets } = await listTargets(services, { showDir, ready: false });
  return targets.filter((t) => t.custom === true && t.scope === place.scope);
}

async function forgetKept(services: Svc): Promise<void> {
  const address = engineAddress(await effectiveSettings(services));
  clearTargetGraphs(services, address);
  clearTargetReadiness(services, address);
}

/** The raw target.json of a custom target, or null when the place has none of that id. */
async function readCustom(place: CustomPlace, id: string): Promise<Record<string, unknown> | null> {
  let text: string;
  try {
    text = await readShowText(fenceOf(place), path.join(targetDirOf(place, id), "target.json"));
  } catch (err) {
    if (errorCode(err) === "ENOENT" || errorCode(err) === "ENOTDIR") return null;
    throw err;
  }
  try {
    const raw: unknown = JSON.parse(text.replace(/^\uFEFF/, ""));
    if (!isObject(raw)) throw new Error("not a JSON object");
    return raw;
  } catch (err) {
    throw badRequest(`targets/${id}/target.json cannot be read: ${errorMessage(err)}`);
  }
}

/** The graph a job on this target would patch: the one sent, else the engine's saved copy, else the place's file. */
async function graphForTarget(
  services: Svc,
  raw: Record<string, unknown>,
  id: string,
  place: CustomPlace,
): Promise<{ graph: ApiGraph | null; error: string | null }> {
  let spec: ReturnType<typeof parseTarget>;
  try {
    spec = parseTarget(raw, id, undefined, true);
  } catch {
    return { graph: null, error: null }; // validation reports why the file itself does not read
  }
  const address = engineAddress(await effectiveSettings(services));
  const wf = await resolveWorkflow(spec, {
    env: services.env,
    targetDir: targetDirOf(place, id),
    fetch: async (route) => {
      const res = await fetch(address.replace(/\/+$/, "") + route, { signal: AbortSignal.timeout(10_000) });
      return { status: res.status, text: () => res.text() };
    },
  });
  return wf.ok ? { graph: wf.graph, error: null } : { graph: null, error: wf.error };
}

export interface SaveRequest {
  target: unknown;
  /** The workflow itself, saved beside the target.json as workflow.json. */
  graph?: unknown;
}

/**
 * PUT /studio/targets/custom `{ep | scope: settings, target}`: validated against the workflow a job would prepare
 * (any problem → 400 with the list), then written to `<place>/targets/<id>/target.json`, a draft unless it says
 * `draft: false`.
 */
export async function saveCustomTarget(
  services: Svc,
  place: CustomPlace,
  req: SaveRequest,
): Promise<Record<string, unknown>> {
  if (!isObject(req.target)) throw badRequest("target must be a target.json object");
  const raw: Record<string, unknown> = { ...req.target };
  const id = raw.id;
  if (!isTargetId(id)) throw badRequest("target.id must be a target id (letters, digits, _ . -)");
  if (services.targets.get(id))
    throw badRequest(`target ${id} is built in: a custom target needs another id`);
  if (raw.draft === undefined) raw.draft = true;
  if (typeof raw.draft !== "boolean") throw badRequest("target.draft must be true or false");

  let graph: ApiGraph | null = null;
  let why: string | null = null;
  const hosted = asksForRouter(raw);
  if (hosted && req.graph !== undefined && req.graph !== null)
    throw badRequest("a hosted-model target (backend router) renders from its router block: send no graph");
  if (hosted) {
    // No workflow: checked by its own rules below.
  } else if (req.graph !== undefined && req.graph !== null) {
    try {
      graph = graphFrom(req.graph).graph;
    } catch (err) {
      if (err instanceof WorkflowError) throw badRequest(`graph: ${err.message}`);
      throw err;
    }
    const binding = isObject(raw.binding) ? { ...raw.binding } : {};
    if (typeof binding.workflow !== "string") binding.workflow = "workflow.json";
    raw.binding = binding;
  } else {
    ({ graph, error: why } = await graphForTarget(services, raw, id, place));
  }
  const problems = hosted
    ? routerTargetProblems(raw, services.targets)
    : validateProposal(raw, graph, services.targets);
  if (why) problems.push(why);
  if (problems.length) {
    throw new StudioError(400, `this target.json can't be used yet: ${problems[0]}`, { problems });
  }

  const fence = fenceOf(place);
  const dir = targetDirOf(place, id);
  await mkdirShow(fence, dir);
  if (graph && req.graph !== undefined && req.graph !== null) {
    const binding = raw.binding as Record<string, unknown>;
    await writeShowJson(fence, path.resolve(dir, String(binding.workflow)), req.graph);
  }
  return keepCustom(services, place, id, raw);
}

/** Writes the target.json (its folder already made) and answers with the place's custom targets as now listed. */
async function keepCustom(
  services: Svc,
  place: CustomPlace,
  id: string,
  raw: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const file = path.join(targetDirOf(place, id), "target.json");
  await writeShowJson(fenceOf(place), file, raw);
  await forgetKept(services);
  return {
    ok: true,
    id,
    scope: place.scope,
    path: file,
    draft: raw.draft,
    targets: await customListing(services, place),
  };
}

/** PUT /studio/targets/custom `{ep, id, draft}`: flip a custom target's draft flag. */
export async function setCustomDraft(
  services: Svc,
  place: CustomPlace,
  id: string,
  draft: unknown,
): Promise<Record<string, unknown>> {
  if (services.targets.get(id))
    throw badRequest(`target ${id} is built in: only a show's own target has a draft flag`);
  if (typeof draft !== "boolean") throw badRequest("draft must be true or false");
  const raw = await readCustom(place, id);
  if (!raw) throw new StudioError(404, `${nameOf(place)} has no custom target ${JSON.stringify(id)}`);
  raw.draft = draft;
  return keepCustom(services, place, id, raw);
}

/** DELETE /studio/targets/custom: the target's folder removed; 404 when the place has none of that id. */
export async function deleteCustomTarget(
  services: Svc,
  place: CustomPlace,
  id: string,
): Promise<Record<string, unknown>> {
  if (services.targets.get(id)) throw badRequest(`target ${id} is built in and cannot be deleted`);
  const fence = fenceOf(place);
  const dir = targetDirOf(place, id);
  const there = await statShowOrNull(fence, path.join(dir, "target.json"));
  if (!there) throw new StudioError(404, `${nameOf(place)} has no custom target ${JSON.stringify(id)}`);
  await removeShow(fence, dir, { recursive: true });
  await forgetKept(services);
  return { ok: true, id, scope: place.scope, deleted: true, targets: await customListing(services, place) };
}
