// The one entry the upscale job calls: the ComfyUI graph for an upscale request, by method and latent mode.
import { latentUpscaleGraph } from "./latent.ts";
import { pixelUpscaleGraph } from "./pixel.ts";
import { seedvr2UpscaleGraph } from "./seedvr2.ts";
import type { BuiltGraph, UpscaleGraphRequest } from "./types.ts";

export { missingNodes, missingSentences } from "./missing.ts";
export type * from "./types.ts";

export function upscaleGraph(req: UpscaleGraphRequest): BuiltGraph {
  switch (req.method) {
    case "pixel":
      return pixelUpscaleGraph(req);
    case "seedvr2":
      return seedvr2UpscaleGraph(req);
    case "latent":
      return latentUpscaleGraph(req);
  }
}
