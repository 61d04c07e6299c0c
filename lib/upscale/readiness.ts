// Whether a backend can run planned upscales: the graphs' node classes and model files checked against the
// ComfyUI server's catalogue. A server that does not answer is said so (the route's 502); missing pieces are
// sentences naming the node, its pack, or the model file and its folder (the route's 409).
import type { Services } from "../context.ts";
import type { NodeInfo } from "../engines/comfyui/readiness.ts";
import { localAddress } from "../engines/registry.ts";
import type { ViewInputs } from "../episode/view-inputs.ts";
import { errorMessage } from "../store/json-guards.ts";
import { type GraphNeeds, missingSentences, upscaleGraph } from "./graphs/index.ts";
import { latentModeNeeds } from "./graphs/latent.ts";
import type { PlannedUpscale } from "./plan.ts";

export interface BackendCheck {
  /** Why the backend could not be asked, or null. */
  silent: string | null;
  missing: string[];
}

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

/** Ask the lane's server for its catalogue and check every plan against it (one sentence per missing piece). */
export async function checkBackend(
  services: Services,
  lane: string,
  plans: readonly PlannedUpscale[],
  _vi: ViewInputs | null,
): Promise<BackendCheck> {
  if (lane !== "local") {
    return {
      silent: null,
      missing: [`the ${lane} backend cannot upscale yet: send upscales to the local backend`],
    };
  }
  const url = await localAddress(services);
  let info: Record<string, NodeInfo>;
  try {
    info = await services.engines.lookups.objectInfo(url, undefined, { timeoutMs: 10_000 });
  } catch (err) {
    return { silent: `the local backend at ${url} didn't answer: ${errorMessage(err)}`, missing: [] };
  }
  const folders: Record<string, string[] | null> = {};
  const all = new Set<string>();
  for (const plan of plans) {
    const needs = planNeeds(plan);
    for (const m of needs.models) {
      if (!(m.folder in folders)) {
        folders[m.folder] = await services.engines.lookups.models(url, m.folder).catch(() => null);
      }
    }
    for (const s of missingSentences(needs, info, folders)) all.add(s);
  }
  return { silent: null, missing: [...all] };
}
