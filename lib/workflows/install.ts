// Taking over a target's graph from the engine: the shipped workflow saved byte for byte in the engine's saved
// workflows (where renders look before the shipped copy), removed again, and the list of what is saved there.
import { readFile } from "node:fs/promises";
import { engineAddress } from "../backends/list.ts";
import { effectiveSettings } from "../config/settings-store.ts";
import type { Services } from "../context.ts";
import { badRequest } from "../errors.ts";
import { clearTargetGraphs, type GraphView, graphView } from "../targets/graph-view.ts";
import { isBuiltinTarget } from "../targets/listing.ts";
import { clearTargetReadiness } from "../targets/readiness-cache.ts";
import type { TargetSpec } from "../targets/registry.ts";
import { shippedWorkflowPath, workflowName } from "../targets/workflow.ts";
import { checkWorkflowName, deleteSavedWorkflow, listSavedWorkflows, saveWorkflow } from "./backend.ts";

type Svc = Pick<Services, "home" | "env" | "caches" | "targets">;

async function addressOf(services: Svc): Promise<string> {
  return engineAddress(await effectiveSettings(services));
}

function shippedTarget(services: Svc, id: string): TargetSpec {
  const spec = services.targets.get(id);
  if (!spec) throw badRequest(`unknown target ${JSON.stringify(id)}`);
  return spec;
}

/** `name` as asked (blank or absent: the name the target's binding looks up), checked. */
function nameFor(spec: TargetSpec, name: string | undefined): string {
  return name === undefined || name === "" ? workflowName(spec) : checkWorkflowName(name);
}

async function graphOf(services: Svc, spec: TargetSpec, address: string): Promise<GraphView> {
  // Saving or deleting changes which copy renders use: the kept answers are stale for this engine.
  clearTargetGraphs(services, address);
  clearTargetReadiness(services, address);
  return graphView(services, spec, { env: services.env, address, showDir: null });
}

export interface InstallRequest {
  target: string;
  name?: string;
  overwrite?: boolean;
}

/** POST /studio/workflow/install: the shipped workflow saved in the engine under the binding's name (or `name`). */
export async function installWorkflow(services: Svc, req: InstallRequest): Promise<Record<string, unknown>> {
  const spec = shippedTarget(services, req.target);
  const file = isBuiltinTarget(spec) ? null : shippedWorkflowPath(spec);
  if (!file) throw badRequest(`target ${spec.id} has no shipped workflow to install`);
  const name = nameFor(spec, req.name);
  const address = await addressOf(services);
  await saveWorkflow(address, name, await readFile(file), req.overwrite === true);
  return {
    ok: true,
    target: spec.id,
    installed: name,
    // A scratch copy under another name is there to edit; renders look up the binding's name only.
    renders: name === workflowName(spec),
    graph: await graphOf(services, spec, address),
  };
}

/** DELETE /studio/workflow/install: the engine's copy removed (the env variable's file is never touched). */
export async function uninstallWorkflow(
  services: Svc,
  req: { target: string; name?: string },
): Promise<Record<string, unknown>> {
  const spec = shippedTarget(services, req.target);
  const name = nameFor(spec, req.name);
  const address = await addressOf(services);
  const deleted = await deleteSavedWorkflow(address, name);
  return { ok: true, target: spec.id, deleted, name, graph: await graphOf(services, spec, address) };
}

/**
 * GET /studio/workflows: the engine's saved workflows (`target`: a shipped target renders with that name), and per
 * shipped target which copy renders use now.
 */
export async function listWorkflows(services: Svc): Promise<Record<string, unknown>> {
  const address = await addressOf(services);
  const saved = await listSavedWorkflows(address);
  const specs: TargetSpec[] = [];
  for (const id of services.targets.ids()) {
    const spec = services.targets.get(id);
    if (spec && !isBuiltinTarget(spec)) specs.push(spec);
  }
  const used = new Set(specs.map(workflowName));
  // A list asked for is the state now: the kept graph answers may predate an edit or an env change.
  clearTargetGraphs(services, address);
  const graphs = await Promise.all(
    specs.map((s) => graphView(services, s, { env: services.env, address, showDir: null })),
  );
  return {
    workflows: saved.map((name) => ({ name, target: used.has(name) })),
    targets: specs.map((s, i) => ({
      id: s.id,
      name: graphs[i].name,
      source: graphs[i].source,
      where: graphs[i].where,
      installed: saved.includes(graphs[i].name),
      error: graphs[i].error,
    })),
  };
}
