// The pixel upscale with core nodes only: the take's frames through an upscale model (its own fixed factor), then
// scaled to the exact delivered size, saved with the take's sound at the take's rate.
import { fitTo, GraphBuilder, loadVideo, out, saveVideo } from "./build.ts";
import type { BuiltGraph, PixelUpscaleRequest } from "./types.ts";

export const UPSCALE_MODELS_FOLDER = "upscale_models";

/** Frames through `model` into `images`' place; the model file is a need of the graph. */
export function upscaleWithModel(b: GraphBuilder, images: [string, number], model: string): [string, number] {
  const loader = b.add("UpscaleModelLoader", { model_name: model });
  b.model({
    folder: UPSCALE_MODELS_FOLDER,
    file: model,
    loader: { class_type: "UpscaleModelLoader", input: "model_name" },
  });
  return out(b.add("ImageUpscaleWithModel", { upscale_model: out(loader), image: images }));
}

/** The finishing the project's H3FinishUpscale does and a core graph does not. */
export const CORE_FINISH_NOTE =
  "frequency split, keep-soft and grain need the project's H3FinishUpscale node; this core graph only scales";

export function pixelUpscaleGraph(req: PixelUpscaleRequest): BuiltGraph {
  const b = new GraphBuilder();
  const take = loadVideo(b, req.source);
  const up = upscaleWithModel(b, take.images, req.model);
  const sized = fitTo(b, up, req.out);
  b.notes.push(CORE_FINISH_NOTE);
  return b.built(saveVideo(b, sized, take.audio, take.fps, req.prefix));
}
