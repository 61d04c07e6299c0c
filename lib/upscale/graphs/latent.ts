// Latent re-samples on the take's own target. `second_stage` (LTX-2.5) reuses the take's two-stage graph from its
// upsampler on: the take's frames re-encoded by the target's video VAE (route `vae`) or its kept latent (route
// `latent`, the project's H3LoadTakeLatent) go through the latent upsampler, the take's sound re-encoded joins them
// held by H3HoldAudio so it is not re-noised, and the stage-2 sigmas are cut at the start step. `resample` and
// `pixel_refine` are built from the project's node pack alone; until it is installed their needs name its nodes.
import { LOADER_FOLDERS } from "../../targets/folders.ts";
import { type ApiGraph, isLink, type Link, nodesOf } from "../../targets/graph.ts";
import { fitTo, GraphBuilder, loadVideo, out, saveVideo } from "./build.ts";
import type { BuiltGraph, GraphNeeds, LatentUpscaleRequest } from "./types.ts";

/** The project's ComfyUI node pack (its upscale loaders, audio hold and savers). */
export const H3_PACK = "h3pipe (the project's ComfyUI node pack)";

export class LatentGraphError extends Error {}

/** The node classes each latent mode needs beyond the take's own graph (the project pack's loaders and savers, and the core nodes each mode patches in). */
export function latentModeNeeds(mode: LatentUpscaleRequest["mode"], route: "latent" | "vae"): GraphNeeds {
  const h3 = (c: string) => ({ class_type: c, pack: H3_PACK });
  const core = (c: string) => ({ class_type: c });
  const loader =
    route === "latent" ? [h3("H3LoadTakeLatent")] : [core("LoadVideo"), core("GetVideoComponents")];
  switch (mode) {
    case "second_stage":
      return {
        nodes: [...loader, h3("H3HoldAudio"), core("LTXVLatentUpsampler"), core("LTXVConcatAVLatent")],
        models: [],
      };
    case "resample":
      return {
        nodes: [
          ...(route === "latent" ? [h3("H3LoadTakeLatent")] : [h3("H3LoadTakeVideo"), core("VAEEncode")]),
          h3("H3HoldAudio"),
          h3("H3FinishUpscale"),
          h3("H3SaveUpscale"),
          core("LTXVSeparateAVLatent"),
          core("LTXVConcatAVLatent"),
          core("SplitSigmas"),
        ],
        models: [],
      };
    case "pixel_refine":
      return {
        nodes: [
          h3("H3LoadTakeVideo"),
          h3("H3PixelUpscale"),
          h3("H3SaveUpscale"),
          core("UpscaleModelLoader"),
          core("VAEEncode"),
          core("KSamplerAdvanced"),
        ],
        models: [],
      };
  }
}

/** The sigma list a `ManualSigmas` string holds, cut to start at `start` (an error when no step would remain). */
export function cutSigmas(sigmas: string, start: number): string {
  const values = sigmas
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (!Number.isInteger(start) || start < 0 || values.length - start < 2) {
    throw new LatentGraphError(
      `start step ${start} leaves no step of the second stage's ${values.length - 1}-step schedule`,
    );
  }
  return values.slice(start).join(", ");
}

/** Ids `from` depends on (itself included). */
function upstream(g: ApiGraph, from: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (id: string) => {
    if (seen.has(id) || !g[id]) return;
    seen.add(id);
    for (const v of Object.values(g[id].inputs)) if (isLink(v)) visit(v[0]);
  };
  for (const id of from) visit(id);
  return seen;
}

function only(g: ApiGraph, cls: string, among?: Set<string>): string {
  const ids = nodesOf(g, cls).filter((id) => !among || among.has(id));
  if (ids.length !== 1) {
    throw new LatentGraphError(
      `the take's graph has ${ids.length} ${cls} nodes where its second stage needs exactly one`,
    );
  }
  return ids[0];
}

/** LTX-2.5's second stage over the take: see the file comment. */
export function secondStageGraph(req: LatentUpscaleRequest): BuiltGraph {
  const g = structuredClone(req.take_graph);
  const upsampler = only(g, "LTXVLatentUpsampler");
  // The stage-2 sampler is the one whose latent comes from the upsampler.
  const sampler = nodesOf(g, "SamplerCustomAdvanced").find((id) => upstream(g, [id]).has(upsampler));
  if (!sampler) throw new LatentGraphError("the take's graph has no sampler after its latent upsampler");
  const concatLink = g[sampler].inputs.latent_image;
  const sigmasLink = g[sampler].inputs.sigmas;
  if (!isLink(concatLink) || g[concatLink[0]]?.class_type !== "LTXVConcatAVLatent")
    throw new LatentGraphError("the second stage's sampler is not fed a joined picture and sound latent");
  if (!isLink(sigmasLink) || g[sigmasLink[0]]?.class_type !== "ManualSigmas")
    throw new LatentGraphError("the second stage's sampler has no ManualSigmas schedule to cut");
  const concat = concatLink[0];
  const audioVaeLink = nodesOf(g, "LTXVAudioVAEDecode")
    .map((id) => g[id].inputs.audio_vae)
    .find(isLink);
  const videoVae = g[upsampler].inputs.vae;
  if (!audioVaeLink || !isLink(videoVae))
    throw new LatentGraphError("the take's graph does not name its video and audio VAEs");
  const sigmas = g[sigmasLink[0]].inputs.sigmas;
  g[sigmasLink[0]].inputs.sigmas = cutSigmas(String(sigmas), req.start_step);
  for (const id of nodesOf(g, "RandomNoise")) g[id].inputs.noise_seed = req.seed;

  const b = new GraphBuilder(g, "up");
  const take = loadVideo(b, req.source);
  let video: Link;
  let audio: Link;
  if (req.route === "latent") {
    if (!req.latent_file) throw new LatentGraphError("the latent route needs the take's kept latent file");
    const kept = b.add("H3LoadTakeLatent", { path: req.latent_file }, H3_PACK, "the take's kept latent");
    const parts = b.add("LTXVSeparateAVLatent", { av_latent: out(kept) });
    video = out(parts, 0);
    audio = out(parts, 1);
  } else {
    video = out(b.add("VAEEncode", { pixels: take.images, vae: videoVae }));
    audio = out(b.add("LTXVAudioVAEEncode", { audio: take.audio, audio_vae: audioVaeLink }));
  }
  g[upsampler].inputs.samples = video;
  // The take's own first-frame guide and reference sheet stay out: the take already carries them.
  g[concat].inputs.video_latent = [upsampler, 0];
  g[concat].inputs.audio_latent = audio;
  const held = b.add("H3HoldAudio", { latent: [concat, 0] }, H3_PACK);
  g[sampler].inputs.latent_image = out(held);

  const separate = nodesOf(g, "LTXVSeparateAVLatent").find((id) => {
    const v = g[id].inputs.av_latent;
    return isLink(v) && v[0] === sampler;
  });
  const decode = separate
    ? Object.keys(g).find(
        (id) =>
          g[id].class_type.startsWith("VAEDecode") &&
          isLink(g[id].inputs.samples) &&
          (g[id].inputs.samples as Link)[0] === separate,
      )
    : undefined;
  if (!decode) throw new LatentGraphError("the second stage's picture is never decoded");
  const sized = fitTo(b, [decode, 0], req.out);
  const saver = saveVideo(b, sized, take.audio, take.fps, req.prefix);

  // Keep what the new saver reads; the take's own first stage, guides and outputs fall away.
  const keep = upstream(g, [saver]);
  for (const id of Object.keys(g)) if (!keep.has(id)) delete g[id];
  const built = b.built(saver);
  const known = new Set(built.needs.nodes.map((n) => n.class_type));
  for (const node of Object.values(g)) {
    if (!known.has(node.class_type)) {
      built.needs.nodes.push({ class_type: node.class_type });
      known.add(node.class_type);
    }
    for (const [input, v] of Object.entries(node.inputs)) {
      const folder = LOADER_FOLDERS[`${node.class_type}.${input}`];
      if (folder && typeof v === "string")
        built.needs.models.push({ folder, file: v, loader: { class_type: node.class_type, input } });
    }
  }
  return built;
}

/** The graph of a latent upscale; the project-pack modes refuse with what they need. */
export function latentUpscaleGraph(req: LatentUpscaleRequest): BuiltGraph {
  if (req.mode === "second_stage") return secondStageGraph(req);
  const needs = latentModeNeeds(req.mode, req.route);
  throw new LatentGraphError(
    `the ${req.mode} re-sample runs on the project's node pack (${needs.nodes
      .filter((n) => n.pack)
      .map((n) => n.class_type)
      .join(", ")}), which this service has no graph for yet: use the pixel or SeedVR2 method`,
  );
}
