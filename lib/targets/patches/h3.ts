// MiniMax H3 graph patches (targets 3.12.1 step 3, 3.12.3): the shot-list loader that feeds Ref2VA from the frozen
// shot list, and FL2VA's queue-time inputs (first and last frames, a dub's dialogue slice as an audio guide).
import { isObject } from "../../store/json-guards.ts";
import {
  type ApiGraph,
  addNode,
  consumers,
  freshId,
  GraphError,
  isLink,
  nodesOf,
  type PatchInputs,
} from "../graph.ts";
import type { TargetSpec } from "../registry.ts";

/**
 * The binding's loader (`binding.loader`: `{class_type, inputs: {loader input: job value name}}`) gets the job's
 * values: the show folder, the frozen shot list relative to it, the shot's index (0: a frozen list holds one shot).
 * An H3ShotListLoader hands its `info` read-out to an H3SaveShot saver (`ref_info`). No loader: nothing to do.
 */
export function shotListLoader(
  g: ApiGraph,
  spec: TargetSpec,
  saverId: string,
  values: Record<string, unknown>,
): void {
  const loader = spec.binding.loader;
  if (!isObject(loader) || typeof loader.class_type !== "string") return;
  const ids = nodesOf(g, loader.class_type);
  if (ids.length !== 1) {
    throw new GraphError(
      spec.id,
      `loader: ${loader.class_type} matched ${ids.length} nodes, expected exactly one to read the shot list`,
    );
  }
  const node = g[ids[0]];
  const map = isObject(loader.inputs) ? loader.inputs : {};
  const given: Record<string, unknown> = { index: 0, ...values };
  for (const [input, name] of Object.entries(map)) {
    if (typeof name === "string" && given[name] !== undefined && given[name] !== null)
      node.inputs[input] = given[name];
  }
  if (loader.class_type === "H3ShotListLoader" && g[saverId]?.class_type === "H3SaveShot")
    g[saverId].inputs.ref_info = [ids[0], LOADER_INFO];
}

/** Output slot of H3ShotListLoader's `info` (after shot_id, prompt, 4 pictures, 3 voices, size, length, steps, seed, policy). */
const LOADER_INFO = 15;

/**
 * FL2VA's inputs on the single MiniMaxH3ImageToVideo: first frame into the workflow's LoadImage (else a new one),
 * a last frame through a new LoadImage; neither renders text-to-video. A dub's dialogue slice goes through LoadAudio
 * into a MiniMaxH3AddGuide at frame 0 (audio VAE from the audio decoder), which takes over the node's conditioning.
 */
export function h3Fl2vaInputs(g: ApiGraph, spec: TargetSpec, inputs: PatchInputs): void {
  const ids = nodesOf(g, "MiniMaxH3ImageToVideo");
  if (ids.length !== 1) {
    throw new GraphError(
      spec.id,
      `keyframes: MiniMaxH3ImageToVideo matched ${ids.length} nodes, expected exactly one`,
    );
  }
  const i2v = g[ids[0]];
  const template = i2v.inputs.first_frame;
  delete i2v.inputs.first_frame;
  delete i2v.inputs.last_frame;
  if (inputs.first) {
    const own = isLink(template) && g[template[0]]?.class_type === "LoadImage" ? template[0] : null;
    const load =
      own ??
      addNode(g, freshId(g, "h3_keyframe_"), "LoadImage", { image: inputs.first }, "first frame (h3pipe)");
    g[load].inputs.image = inputs.first;
    i2v.inputs.first_frame = [load, 0];
  }
  if (inputs.last) {
    const load = addNode(
      g,
      freshId(g, "h3_last_frame_"),
      "LoadImage",
      { image: inputs.last },
      "last frame (h3pipe)",
    );
    i2v.inputs.last_frame = [load, 0];
  }
  if (inputs.audio) dubGuide(g, spec, ids[0], inputs.audio);
}

function dubGuide(g: ApiGraph, spec: TargetSpec, i2v: string, audio: string): void {
  const decoders = nodesOf(g, "VAEDecodeAudio");
  const vae = decoders.length === 1 ? g[decoders[0]].inputs.vae : undefined;
  if (!isLink(vae)) {
    throw new GraphError(spec.id, "dub audio: no single VAEDecodeAudio to take the audio VAE from");
  }
  const readers = consumers(g, i2v, 0);
  const load = addNode(g, freshId(g, "h3_dub_load_"), "LoadAudio", { audio }, "dialogue slice (h3pipe)");
  const guide = addNode(
    g,
    freshId(g, "h3_dub_guide_"),
    "MiniMaxH3AddGuide",
    { positive: [i2v, 0], latent: [i2v, 1], audio_vae: vae, audio: [load, 0], frame_idx: 0 },
    "dialogue guide (h3pipe)",
  );
  for (const r of readers) g[r.node].inputs[r.input] = [guide, 0];
}
