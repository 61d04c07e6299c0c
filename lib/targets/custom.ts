// A show's own targets (`<show>/targets/<id>/target.json`): saved after validation against the workflow a job would
// prepare (a hosted-model target, which has none, by its router block), their draft flag flipped, removed. Every file is written through the show folder's fence.
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
import { asksForRouter, routerTargetProblems } from "../router/target-check.ts";
import { isTargetId } from "../schema/fields.ts";
import { errorCode, errorMessage, isObject } from "../store/json-guards.ts";
import type { ApiGraph } from "./graph.ts";
import { clearTargetGraphs } from "./graph-view.ts";
import { validateProposal } from "./inspect.ts";
import { listTargets } from "./listing.ts";
import { clearTargetReadiness } from "./readiness-cache.ts";
import { parseTarget } from "./registry.ts";
import { graphFrom, resolveWorkflow, WorkflowError } from "./workflow.ts";

type Svc = Pick<Services, "home" | "env" | "log" | "engines" | "targets" | "caches" | "media">;

const targetDirOf = (showDir: string, id: string) => path.join(showDir, "targets", id);
const fenceOf = (showDir: string) => folderFence(showDir, "the show folder");

/** The show's custom targets as the listing describes them. */
async function customListing(services: Svc, showDir: string): Promise<Record<string, unknown>[]> {
  const { targets } = await listTargets(services, { showDir, ready: false });
  return targets.filter((t) => t.custom === true);
}

async function forgetKept(services: Svc): Promise<void> {
  const address = engineAddress(await effectiveSettings(services));
  clearTargetGraphs(services, address);
  clearTargetReadiness(services, address);
}

/** The raw target.json of a custom target, or null when the show has none of that id. */
async function readCustom(showDir: string, id: string): Promise<Record<string, unknown> | null> {
  let text: string;
  try {
    text = await readShowText(fenceOf(showDir), path.join(targetDirOf(showDir, id), "target.json"));
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

/** The graph a job on this target would patch: the one sent, else the engine's saved copy, else the show's file. */
async function graphForTarget(
  services: Svc,
  raw: Record<string, unknown>,
  id: string,
  showDir: string,
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
    targetDir: targetDirOf(showDir, id),
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
 * PUT /studio/targets/custom `{ep, target}`: validated against the workflow a job would prepare (any problem → 400
 * with the list), then written to `<show>/targets/<id>/target.json`, a draft unless it says `draft: false`.
 */
export async function saveCustomTarget(
  services: Svc,
  showDir: string,
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
    ({ graph, error: why } = await graphForTarget(services, raw, id, showDir));
  }
  const problems = hosted
    ? routerTargetProblems(raw, services.targets)
    : validateProposal(raw, graph, services.targets);
  if (why) problems.push(why);
  if (problems.length) {
    throw new StudioError(400, `this target.json can't be used yet: ${problems[0]}`, { problems });
  }

  const fence = fenceOf(showDir);
  const dir = targetDirOf(showDir, id);
  await mkdirShow(fence, dir);
  if (graph && req.graph !== undefined && req.graph !== null) {
    const binding = raw.binding as Record<string, unknown>;
    await writeShowJson(fence, path.resolve(dir, String(binding.workflow)), req.graph);
  }
  const file = path.join(dir, "target.json");
  await writeShowJson(fence, file, raw);
  await forgetKept(services);
  return { ok: true, id, path: file, draft: raw.draft, targets: await customListing(services, showDir) };
}

/** PUT /studio/targets/custom `{ep, id, draft}`: flip a custom target's draft flag. */
export async function setCustomDraft(
  services: Svc,
  showDir: string,
  id: string,
  draft: unknown,
): Promise<Record<string, unknown>> {
  if (services.targets.get(id))
    throw badRequest(`target ${id} is built in: only a show's own target has a draft flag`);
  if (typeof draft !== "boolean") throw badRequest("draft must be true or false");
  const raw = await readCustom(showDir, id);
  if (!raw) throw new StudioError(404, `the show has no custom target ${JSON.stringify(id)}`);
  raw.draft = draft;
  const file = path.join(targetDirOf(showDir, id), "target.json");
  await writeShowJson(fenceOf(showDir), file, raw);
  await forgetKept(services);
  return { ok: true, id, path: file, draft, targets: await customListing(services, showDir) };
}

/** DELETE /studio/targets/custom: the target's folder removed; `deleted` false when the show had none. */
export async function deleteCustomTarget(
  services: Svc,
  showDir: string,
  id: string,
): Promise<Record<string, unknown>> {
  if (services.targets.get(id)) throw badRequest(`target ${id} is built in and cannot be deleted`);
  const fence = fenceOf(showDir);
  const dir = targetDirOf(showDir, id);
  const there = await statShowOrNull(fence, path.join(dir, "target.json"));
  if (!there) throw new StudioError(404, `the show has no custom target ${JSON.stringify(id)}`);
  await removeShow(fence, dir, { recursive: true });
  await forgetKept(services);
  return { ok: true, id, deleted: true, targets: await customListing(services, showDir) };
}
