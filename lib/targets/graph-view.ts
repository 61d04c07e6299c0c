// Which copy of each target's workflow renders would use now (the env variable's file, the copy saved in the
// running engine, the install's copy, the shipped one), kept briefly per engine address like readiness.
import { cacheSlot, type WithCaches } from "../store/caches.ts";
import { hasSavedWorkflow } from "../workflows/backend.ts";
import { graphFingerprint } from "../workflows/fingerprint.ts";
import type { TargetSpec } from "./registry.ts";
import { customTargetDir } from "./target-tree.ts";
import { resolveWorkflow, shippedWorkflowPath, workflowEnvName, workflowName } from "./workflow.ts";

/** How long a graph answer is reused (ms). */
export const GRAPH_TTL_MS = 30_000;
/** How long the engine may take to say whether it has a saved copy. */
const FETCH_TIMEOUT_MS = 5_000;

export interface GraphView {
  /** The name the workflow is saved under in the engine. */
  name: string;
  source: "env" | "comfy" | "saved" | "repo" | "none";
  /** The file or engine route of the copy in force; null when none can be used. */
  where: string | null;
  /** The environment variable that would name a file, and whether it is set. */
  env: string;
  env_set: boolean;
  /** The target's own copy (shipped, or in the show's target folder); null when it has none. */
  repo: string | null;
  /** Why no copy can be used (a copy that exists but does not read stops the search). */
  error: string | null;
  /** The engine holds a copy under the target's name (whether or not it is the one in force). */
  installed: boolean;
  /**
   * The copy in force differs from the shipped one beyond what a job patches (null when the shipped copy is in
   * force, none can be used, or the target is a show's own).
   */
  differs: boolean | null;
}

const GRAPHS = cacheSlot("target graphs", () => new Map<string, { at: number; value: GraphView }>());
const keyOf = (address: string, key: string) => `${address.replace(/\/+$/, "")}\u0000${key}`;

/** Forget kept answers (one address, or all): after a workflow is saved in or removed from the engine. */
export function clearTargetGraphs(services: WithCaches, address?: string): void {
  const entries = services.caches.of(GRAPHS);
  if (address === undefined) {
    entries.clear();
    return;
  }
  const prefix = keyOf(address, "");
  for (const k of entries.keys()) if (k.startsWith(prefix)) entries.delete(k);
}

export interface GraphQuery {
  env: Record<string, string | undefined>;
  /** The engine renders are sent to. */
  address: string;
  /** The show a custom target belongs to (its files are read there). */
  showDir: string | null;
}

/** The graph view of one non-built-in target, from the kept answer or one look. */
export async function graphView(services: WithCaches, spec: TargetSpec, q: GraphQuery): Promise<GraphView> {
  const targetDir = customTargetDir(spec, q.showDir);
  const key = keyOf(q.address, targetDir ? `${targetDir}\u0000${spec.id}` : spec.id);
  const entries = services.caches.of(GRAPHS);
  const hit = entries.get(key);
  if (hit && Date.now() - hit.at < GRAPH_TTL_MS) return hit.value;

  const envName = workflowEnvName(spec);
  let unanswered = false;
  const wf = await resolveWorkflow(spec, {
    env: q.env,
    ...(targetDir ? { targetDir } : {}),
    fetch: async (route) => {
      try {
        const res = await fetch(q.address.replace(/\/+$/, "") + route, {
          signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
        });
        return { status: res.status, text: () => res.text() };
      } catch (err) {
        unanswered = true;
        throw err;
      }
    },
  });
  const repo = shippedWorkflowPath(spec, targetDir);
  let installed = wf.ok && wf.source === "comfy";
  if (wf.ok && wf.source === "env")
    installed = await hasSavedWorkflow(q.address, workflowName(spec)).catch(() => false);
  let differs: boolean | null = null;
  if (wf.ok && wf.source !== "repo" && !targetDir && repo) {
    const shipped = await resolveWorkflow(spec, { explicit: repo });
    if (shipped.ok) differs = graphFingerprint(spec, wf.graph) !== graphFingerprint(spec, shipped.graph);
  }
  const value: GraphView = {
    name: workflowName(spec),
    source: wf.ok && wf.source !== "explicit" ? wf.source : "none",
    where: wf.ok ? wf.where : null,
    env: envName,
    env_set: Boolean(q.env[envName]?.trim()),
    repo,
    error: wf.ok ? null : wf.error,
    installed,
    differs,
  };
  // An engine that did not answer may have a saved copy: ask again next time rather than keep a guess.
  if (!unanswered) entries.set(key, { at: Date.now(), value });
  return value;
}
