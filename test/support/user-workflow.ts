// A user's own video workflow of core ComfyUI nodes (Wan 2.2 5B text-to-video, as a user would build it: both
// prompts titled alike, no project nodes), in API format and as the canvas the editor saves, and the model files a
// ComfyUI double offers for it.
import { DEFAULT_MODELS } from "./comfy-double/index.ts";

type Graph = Record<
  string,
  { class_type: string; inputs: Record<string, unknown>; _meta?: { title: string } }
>;

export const USER_MODEL = "wan2.2_ti2v_5B_fp16.safetensors";
export const USER_TEXT_ENCODER = "umt5_xxl_fp8_e4m3fn_scaled.safetensors";
export const USER_VAE = "wan2.2_vae.safetensors";

/** The double's default models plus the user's model, text encoder and VAE. */
export function userModels(): Record<string, string[]> {
  const models = structuredClone(DEFAULT_MODELS);
  models.diffusion_models = [...(models.diffusion_models ?? []), USER_MODEL];
  models.text_encoders = [...(models.text_encoders ?? []), USER_TEXT_ENCODER];
  models.vae = [...(models.vae ?? []), USER_VAE];
  return models;
}

/** The workflow in API format. */
export function userWorkflow(): Graph {
  const t = (title: string) => ({ title });
  return {
    "1": {
      class_type: "UNETLoader",
      inputs: { unet_name: USER_MODEL, weight_dtype: "default" },
      _meta: t("Load Diffusion Model"),
    },
    "2": {
      class_type: "ModelSamplingSD3",
      inputs: { model: ["1", 0], shift: 8 },
      _meta: t("ModelSamplingSD3"),
    },
    "3": {
      class_type: "CLIPLoader",
      inputs: { clip_name: USER_TEXT_ENCODER, type: "wan", device: "default" },
      _meta: t("Load CLIP"),
    },
    "4": {
      class_type: "CLIPTextEncode",
      inputs: { text: "a cat on a roof", clip: ["3", 0] },
      _meta: t("CLIP Text Encode (Prompt)"),
    },
    "5": {
      class_type: "CLIPTextEncode",
      inputs: { text: "blurry, static", clip: ["3", 0] },
      _meta: t("CLIP Text Encode (Prompt)"),
    },
    "6": { class_type: "VAELoader", inputs: { vae_name: USER_VAE }, _meta: t("Load VAE") },
    "7": {
      class_type: "Wan22ImageToVideoLatent",
      inputs: { vae: ["6", 0], width: 1280, height: 704, length: 121, batch_size: 1 },
      _meta: t("Wan22ImageToVideoLatent"),
    },
    "8": {
      class_type: "KSampler",
      inputs: {
        model: ["2", 0],
        seed: 42,
        steps: 20,
        cfg: 5,
        sampler_name: "uni_pc",
        scheduler: "simple",
        positive: ["4", 0],
        negative: ["5", 0],
        latent_image: ["7", 0],
        denoise: 1,
      },
      _meta: t("KSampler"),
    },
    "9": { class_type: "VAEDecode", inputs: { samples: ["8", 0], vae: ["6", 0] }, _meta: t("VAE Decode") },
    "10": { class_type: "CreateVideo", inputs: { images: ["9", 0], fps: 24 }, _meta: t("Create Video") },
    "11": {
      class_type: "SaveVideo",
      inputs: { video: ["10", 0], filename_prefix: "video/mine", format: "auto", codec: "auto" },
      _meta: t("Save Video"),
    },
  };
}

/** The workflow with a picture to start from: a LoadImage feeding the latent's optional start image. */
export function userI2vWorkflow(): Graph {
  const g = userWorkflow();
  g["12"] = { class_type: "LoadImage", inputs: { image: "my_start.png" }, _meta: { title: "Load Image" } };
  g["7"].inputs.start_image = ["12", 0];
  return g;
}

/**
 * The same workflow as the editor saves it: nodes with their sockets and positional widget values (a seed followed
 * by its control word), links as lists, a note, and a loader naming where its file downloads from.
 */
export function userCanvas(api: Graph = userWorkflow()): Record<string, unknown> {
  const links: unknown[][] = [];
  const outTypes: Record<string, string> = {};
  const nodes: Record<string, unknown>[] = Object.entries(api).map(([id, n]) => {
    const inputs: Record<string, unknown>[] = [];
    const widgets: unknown[] = [];
    for (const [name, v] of Object.entries(n.inputs)) {
      if (Array.isArray(v)) {
        const linkId = links.length + 1;
        links.push([linkId, Number(v[0]), v[1], Number(id), inputs.length, outTypes[String(v[0])] ?? "*"]);
        inputs.push({ name, type: "*", link: linkId });
      } else {
        inputs.push({ name, type: typeof v === "number" ? "INT" : "STRING", widget: { name }, link: null });
        widgets.push(v);
        if (name === "seed") widgets.push("fixed");
      }
    }
    const node: Record<string, unknown> = {
      id: Number(id),
      type: n.class_type,
      mode: 0,
      title: n._meta?.title,
      inputs,
      outputs: [{ type: "*" }],
      widgets_values: widgets,
    };
    if (n.class_type === "UNETLoader") {
      node.properties = {
        models: [
          { name: USER_MODEL, url: "http://127.0.0.1:9/wan.safetensors", directory: "diffusion_models" },
        ],
      };
    }
    return node;
  });
  nodes.push({ id: 99, type: "Note", mode: 0, inputs: [], outputs: [], widgets_values: ["my notes"] });
  return { nodes, links, version: 0.4 };
}
