// Whether the local ComfyUI can run finishing graphs (upscales and posts alike): the graphs' node classes and model
// files checked against the server's catalogue. A server that does not answer is a 502; missing pieces are
// sentences naming the node, its pack, or the model file and its folder, refused together as a 409.
import type { Services } from "../context.ts";
import type { NodeInfo } from "../engines/comfyui/readiness.ts";
import { localAddress } from "../engines/registry.ts";
import { conflict, StudioError } from "../errors.ts";
import { errorMessage } from "../store/json-guards.ts";
import { type GraphNeeds, missingSentences, upscaleGraph } from "./graphs/index.ts";
import { latentModeNeeds } from "./graphs/latent.ts";
import type { PlannedUpscale } from "./plan.ts";

/** The node classes and model files a planned upscale's graph needs. */
export function planNeeds(plan: PlannedUpscale): GraphNeeds {
  const source = { file: "take.mp4", width: plan.from[0], height: plan.from[1], fps: 24, frames: 1 };
  const outSize = { width: plan.width, height: plan.height, fit: plan.fit };
  if (plan.method === "pixel") {
    return upscaleGraph({ method: "pixel", model: plan.pixel_model ?? "", source, out: outSize, prefix: "x" })
      .needs;
  }
  if (plan.method === "seedvr2") {
    return upscaleGraph({
      method: "seedvr2",
      model: plan.seedvr2_model ?? "7b",
      seed: 0,
      source,
      out: outSize,
      prefix: "x",
    }).needs;
  }
  const mode = plan.mode === "second_stage" || plan.mode === "pixel_refine" ? plan.mode : "resample";
  const needs = latentModeNeeds(mode, plan.route === "latent" ? "latent" : "vae");
  if (plan.then_pixel) {
    const then =
      plan.then_pixel.method === "seedvr2"
        ? upscaleGraph({
            method: "seedvr2",
            model: plan.then_pixel.model,
            seed: 0,
            source,
            out: outSize,
            prefix: "x",
          }).needs
        : upscaleGraph({ method: "pixel", model: plan.then_pixel.model, source, out: outSize, prefix: "x" })
            .needs;
    return { nodes: [...needs.nodes, ...then.nodes], models: [...needs.models, ...then.models] };
  }
  return needs;
}

/** What the local ComfyUI offers: its node list and the model folders asked for (null: a folder it does not list). */
export interface Catalogue {
  info: Record<string, NodeInfo>;
  folders: Record<string, readonly string[] | null>;
}

/** The local ComfyUI's catalogue; 502 when it does not answer its node list. */
export async function localCatalogue(
  services: Pick<Services, "home" | "env" | "caches" | "engines">,
  folders: Iterable<string>,
): Promise<Catalogue> {
  const url = await localAddress(services);
  const lookups = services.engines.lookups;
  let info: Record<string, NodeInfo>;
  try {
    info = await lookups.objectInfo(url, undefined, { timeoutMs: 10_000 });
  } catch (err) {
    throw new StudioError(502, `the ComfyUI at ${url} didn't answer its node list: ${errorMessage(err)}`);
  }
  const listed: Record<string, readonly string[] | null> = {};
  for (const folder of new Set(folders)) {
    // A folder the server does not list is judged from its loader's choices instead.
    listed[folder] = await lookups.models(url, folder).catch(() => null);
  }
  return { info, folders: listed };
}

/** What the local ComfyUI lacks to run graphs with these needs, one sentence per piece; 502 when it is silent. */
export async function localMissing(
  services: Pick<Services, "home" | "env" | "caches" | "engines">,
  needs: readonly GraphNeeds[],
): Promise<string[]> {
  const cat = await localCatalogue(
    services,
    needs.flatMap((n) => n.models.map((m) => m.folder)),
  );
  const out = new Set<string>();
  for (const n of needs) for (const s of missingSentences(n, cat.info, cat.folders)) out.add(s);
  return [...out];
}

/** Nothing is queued unless the local ComfyUI can run it all: 409 naming every missing piece, 502 when silent. */
export async function refuseMissing(
  services: Pick<Services, "home" | "env" | "caches" | "engines">,
  needs: readonly GraphNeeds[],
  what: "upscales" | "posts",
): Promise<void> {
  const missing = await localMissing(services, needs);
  if (missing.length) throw conflict(`this ComfyUI can't run these ${what}: ${missing.join("; ")}`);
}
