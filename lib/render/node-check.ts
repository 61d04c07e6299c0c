// Node classes before a take is reserved: the classes the shot's patched graph would send are compared with those
// the local ComfyUI offers, so a shot the engine would refuse ("node X does not exist") is skipped instead.
import type { Services } from "../context.ts";
import type { ComfyLookups } from "../engines/comfyui/readiness.ts";
import { localAddress } from "../engines/registry.ts";
import { type ApiGraph, GraphError, type JobShape, jobClasses } from "../targets/graph.ts";
import { loaderVariant } from "../targets/patches/h3-core.ts";
import type { TargetSpec } from "../targets/registry.ts";

export type NodeCheck = { missing: string[] } | { error: string };

/** The node classes the engine at `url` offers (its `/object_info`, kept briefly); throws when it does not answer. */
export async function engineClasses(lookups: ComfyLookups, url: string): Promise<ReadonlySet<string>> {
  return new Set(Object.keys(await lookups.objectInfo(url)));
}

/**
 * The node classes of the ComfyUI a job on `backend` runs on (the local lane's address as the settings give it now,
 * else an engine with its own address), or null when there is none or it does not list them: a shot-list target
 * then keeps its pack path, as before its catalogue could be read.
 */
export async function engineCatalogue(
  services: Pick<Services, "home" | "env" | "caches" | "engines">,
  backend: string,
  engine: object,
): Promise<ReadonlySet<string> | null> {
  const own = "url" in engine && typeof engine.url === "string" ? engine.url : null;
  const url = backend === "local" ? await localAddress(services).catch(() => null) : own;
  if (!url) return null;
  return engineClasses(services.engines.lookups, url).catch(() => null);
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
    // A shot-list target on an engine without its pack sends the core graph (lib/targets/patches/h3-core.ts).
    const variant = loaderVariant(spec, known);
    classes = jobClasses(spec, graph, variant ? { variant } : {}, shape);
  } catch (err) {
    if (err instanceof GraphError) return { error: err.message };
    throw err;
  }
  return { missing: classes.filter((cls) => !known.has(cls)) };
}
