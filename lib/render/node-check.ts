// Node classes before a take is reserved: the classes the shot's patched graph would send are compared with those
// the local ComfyUI offers, so a shot the engine would refuse ("node X does not exist") is skipped instead.
import type { ComfyLookups } from "../engines/comfyui/readiness.ts";
import { type ApiGraph, GraphError, type JobShape, jobClasses } from "../targets/graph.ts";
import type { TargetSpec } from "../targets/registry.ts";

export type NodeCheck = { missing: string[] } | { error: string };

/** The node classes the engine at `url` offers (its `/object_info`, kept briefly); throws when it does not answer. */
export async function engineClasses(lookups: ComfyLookups, url: string): Promise<ReadonlySet<string>> {
  return new Set(Object.keys(await lookups.objectInfo(url)));
}

/**
 * The classes a job of `shape` on `graph` sends that `known` lacks, or, when a param binding does not select its
 * nodes, that problem (the job could not be patched at all).
 */
export function checkNodes(
  spec: TargetSpec,
  graph: ApiGraph,
  shape: JobShape,
  known: ReadonlySet<string>,
): NodeCheck {
  let classes: string[];
  try {
    classes = jobClasses(spec, graph, {}, shape);
  } catch (err) {
    if (err instanceof GraphError) return { error: err.message };
    throw err;
  }
  return { missing: classes.filter((cls) => !known.has(cls)) };
}
