// review_copy at queue time: a workflow's own review branch (the binding's `review_nodes`, e.g. CreateVideo ->
// SaveVideo beside the take saver) is stripped from the graph a take sends unless the config's review_copy is on,
// when the backend also writes that second copy to its output folder. The choice is made when the take is queued,
// so a take renders as it was queued even if the config changes before its job starts.
import { readConfig } from "../config/config.ts";
import type { Services } from "../context.ts";
import type { ApiGraph } from "../targets/graph.ts";
import type { TargetSpec } from "../targets/registry.ts";

/** The node classes the target's binding calls review nodes. */
export function reviewClasses(spec: TargetSpec): string[] {
  const r = spec.binding.review_nodes;
  return Array.isArray(r) ? r.filter((c): c is string => typeof c === "string" && c !== "") : [];
}

/** Ids of the graph's review nodes, in id order. */
export function reviewNodesOf(spec: TargetSpec, graph: ApiGraph): string[] {
  const classes = new Set(reviewClasses(spec));
  return Object.keys(graph)
    .filter((id) => classes.has(graph[id].class_type))
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
}

/** The config's review_copy in force (false when the config cannot be read: the take is written either way). */
export async function reviewCopyOn(services: Pick<Services, "home" | "env" | "caches">): Promise<boolean> {
  try {
    return (await readConfig(services)).review_copy;
  } catch {
    return false;
  }
}

/** The note a take queued with `graph` records about its review nodes, or null when the graph has none. */
export function reviewNote(spec: TargetSpec, graph: ApiGraph, on: boolean): string | null {
  const ids = reviewNodesOf(spec, graph);
  if (!ids.length) return null;
  const classes = [...new Set(ids.map((id) => graph[id].class_type))].join(", ");
  return on
    ? `review_copy is on: the workflow's review nodes (${classes}) are kept, so ComfyUI also writes a second copy to its output folder`
    : `review nodes ${classes} stripped (review_copy is off)`;
}
