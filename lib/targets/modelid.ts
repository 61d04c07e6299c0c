// What model family a .safetensors file holds, from its header alone (targets 4.4): the tensor names and
// shapes, and the `__metadata__` strings, compared against known family signatures.
import { open } from "node:fs/promises";
import { isObject } from "../store/json-guards.ts";

export interface TensorInfo {
  dtype: string;
  shape: number[];
}

export interface SafetensorsHeader {
  metadata: Record<string, string>;
  tensors: Record<string, TensorInfo>;
}

export type Confidence = "metadata" | "tensors" | "name" | "unknown";

export interface Identification {
  family: string | null;
  confidence: Confidence;
  /** The header family a name narrowed down from (`minimax-h3` for a `*ref2v*` file). */
  base?: string;
  detail: string;
}

export type Relation = "same" | "variant" | "ambiguous" | "different" | "unregistered";

/** A header longer than this is not a model file we should trust (and would cost too much to read). */
const MAX_HEADER = 256 * 1024 * 1024;

export class HeaderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HeaderError";
  }
}

function splitHeader(json: unknown): SafetensorsHeader {
  if (!isObject(json)) throw new HeaderError("the safetensors header is not a JSON object");
  const metadata: Record<string, string> = {};
  const tensors: Record<string, TensorInfo> = {};
  for (const [k, v] of Object.entries(json)) {
    if (k === "__metadata__") {
      if (v && typeof v === "object") {
        for (const [mk, mv] of Object.entries(v)) if (typeof mv === "string") metadata[mk] = mv;
      }
      continue;
    }
    if (isObject(v)) {
      tensors[k] = {
        dtype: String(v.dtype ?? ""),
        shape: Array.isArray(v.shape) ? v.shape.map(Number) : [],
      };
    }
  }
  return { metadata, tensors };
}

/** Parse a header from the file's first bytes (8-byte little-endian length, then that much JSON). */
export function parseSafetensorsHeader(bytes: Uint8Array): SafetensorsHeader {
  if (bytes.length < 8) throw new HeaderError("shorter than a safetensors length prefix");
  const n = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  if (n <= 1n || n > BigInt(MAX_HEADER)) throw new HeaderError(`implausible header length ${n}`);
  const len = Number(n);
  if (bytes.length < 8 + len) throw new HeaderError(`header needs ${len} bytes, got ${bytes.length - 8}`);
  const text = new TextDecoder().decode(bytes.subarray(8, 8 + len));
  return splitHeader(JSON.parse(text));
}

/** Read just the header of a .safetensors file (never the tensors). */
export async function readSafetensorsHeader(file: string): Promise<SafetensorsHeader> {
  const fh = await open(file, "r");
  try {
    const prefix = new Uint8Array(8);
    const { bytesRead } = await fh.read(prefix, 0, 8, 0);
    if (bytesRead < 8) throw new HeaderError(`${file}: shorter than a safetensors length prefix`);
    const n = new DataView(prefix.buffer).getBigUint64(0, true);
    if (n <= 1n || n > BigInt(MAX_HEADER)) throw new HeaderError(`${file}: implausible header length ${n}`);
    const body = new Uint8Array(Number(n));
    const got = await fh.read(body, 0, body.length, 8);
    if (got.bytesRead < body.length) throw new HeaderError(`${file}: truncated header`);
    return splitHeader(JSON.parse(new TextDecoder().decode(body)));
  } finally {
    await fh.close();
  }
}

interface Rule {
  all?: string[];
  none?: string[];
  /** Leading dims per tensor; `null` = any. */
  shapes?: Record<string, (number | null)[]>;
}

interface Signature extends Rule {
  family: string;
  /** A metadata key whose presence confirms the family. */
  meta_key?: string;
  /** Narrower families told apart by tensors; the first that matches wins. */
  variants?: (Rule & { family: string })[];
  /** `__metadata__.model_version` picks `ltx<major.minor>…` when that family is registered. */
  version?: boolean;
}

// Family signatures (tensor names after the diffusion-model prefix is stripped). Order matters: the first
// signature that matches wins.
const SIGNATURES: Signature[] = [
  {
    family: "minimax-h3",
    all: [
      "adaln_t_table",
      "video_patch_proj.weight",
      "audio_patch_proj.weight",
      "condition_proj.weight",
      "token_refiner.final_norm.weight",
      "final_layer.video_out.weight",
      "blocks.0.",
    ],
  },
  {
    family: "minimax-h3-video-vae",
    meta_key: "minimax_h3_video_vae",
    all: ["decoder.register_tokens", "decoder.mask_token", "quant_conv.weight", "latents_mean"],
  },
  {
    family: "minimax-h3-audio-vae",
    meta_key: "minimax_h3_audio_vae",
    all: ["pre_block.proj.weight", "dec_in_proj.weight", "logs_proj.weight", "latents_mean"],
  },
  {
    family: "qwen3vl-32b",
    all: [
      "visual.deepstack_merger_list.0.",
      "visual.merger.linear_fc2.weight",
      "model.layers.0.self_attn.q_proj.weight",
    ],
    shapes: { "visual.merger.linear_fc2.weight": [5120], "model.layers.0.self_attn.q_proj.weight": [8192] },
  },
  {
    family: "ltx2",
    version: true,
    all: [
      "patchify_proj.weight",
      "audio_patchify_proj.weight",
      "adaln_single.linear.weight",
      "av_ca_a2v_gate_adaln_single.linear.weight",
      "transformer_blocks.0.audio_ff.net.0.proj.weight",
    ],
    variants: [
      {
        family: "ltx2.5",
        all: ["keyframes_abs_pos_embedding"],
        none: ["transformer_blocks.0.ff.net.0.proj.bias"],
      },
      {
        family: "ltx2.3",
        all: ["transformer_blocks.0.ff.net.0.proj.bias"],
        none: ["keyframes_abs_pos_embedding"],
      },
    ],
  },
  {
    family: "ltx2-video-vae",
    version: true,
    all: ["per_channel_statistics.mean-of-means", "encoder.conv_in.conv.weight", "encoder.down_blocks.0."],
    variants: [
      { family: "ltx2.5-video-vae", all: ["decoder.det_stages.0.", "decoder.diff_blocks.0."] },
      {
        family: "ltx2.3-video-vae",
        all: ["decoder.up_blocks.0.", "decoder.conv_in.conv.weight"],
        none: ["decoder.det_stages.0."],
      },
    ],
  },
  {
    family: "ltx2-audio-vae",
    version: true,
    all: ["audio_vae.encoder.conv_in.conv.weight", "audio_vae.decoder.conv_in.conv.weight", "vocoder."],
  },
  {
    family: "ltx2-latent-upscaler",
    all: [
      "initial_conv.weight",
      "initial_norm.weight",
      "res_blocks.0.",
      "post_upsample_res_blocks.0.",
      "upsampler.0.",
      "final_conv.weight",
    ],
    shapes: { "final_conv.weight": [128] },
  },
  {
    family: "ltx2.5-text-encoder",
    all: [
      "text_embedding_projection.video_aggregate_embed.weight",
      "model.layers.0.",
      "model.embed_tokens.weight",
    ],
    shapes: { "model.embed_tokens.weight": [262144, 3840] },
  },
  {
    family: "ltx2-text-projection",
    version: true,
    all: [
      "text_embedding_projection.video_aggregate_embed.weight",
      "text_embedding_projection.audio_aggregate_embed.weight",
    ],
    none: ["model.layers.0."],
  },
  {
    family: "gemma3-12b",
    all: [
      "model.embed_tokens.weight",
      "model.layers.47.",
      "vision_model.embeddings.patch_embedding.weight",
      "multi_modal_projector.mm_input_projection_weight",
    ],
    none: ["model.layers.48."],
    shapes: { "model.embed_tokens.weight": [262208, 3840] },
  },
  {
    family: "wan2.2-vace-14b",
    all: [
      "vace_patch_embedding.weight",
      "vace_blocks.0.",
      "patch_embedding.weight",
      "head.modulation",
      "blocks.39.",
    ],
    none: ["blocks.40."],
    shapes: { "patch_embedding.weight": [5120, 16] },
  },
  {
    family: "wan2.2-i2v-14b",
    all: ["patch_embedding.weight", "head.modulation", "text_embedding.0.", "blocks.39."],
    none: ["blocks.40.", "vace_patch_embedding.weight", "img_emb."],
    shapes: { "patch_embedding.weight": [5120, 36] },
  },
  {
    family: "wan2.2-ti2v-5b",
    all: ["patch_embedding.weight", "head.modulation", "blocks.29."],
    none: ["blocks.30.", "vace_patch_embedding.weight"],
    shapes: { "patch_embedding.weight": [3072, 48] },
  },
  {
    family: "wan2.2-fun-inpaint-5b",
    all: ["patch_embedding.weight", "head.modulation", "blocks.29."],
    none: ["blocks.30.", "vace_patch_embedding.weight"],
    shapes: { "patch_embedding.weight": [3072, 100] },
  },
  {
    family: "wan2.2-vae",
    all: [
      "encoder.conv1.weight",
      "decoder.conv1.weight",
      "conv1.weight",
      "conv2.weight",
      "decoder.middle.0.",
    ],
    shapes: { "conv2.weight": [48], "decoder.conv1.weight": [1024, 48] },
  },
  {
    family: "wan2.1-vae",
    all: [
      "encoder.conv1.weight",
      "decoder.conv1.weight",
      "conv1.weight",
      "conv2.weight",
      "decoder.middle.0.",
    ],
    shapes: { "conv2.weight": [16], "decoder.conv1.weight": [384, 16] },
  },
  {
    family: "umt5-xxl",
    all: ["shared.weight", "encoder.block.23.", "encoder.final_layer_norm.weight"],
    none: ["encoder.block.24.", "decoder."],
    shapes: { "shared.weight": [256384, 4096] },
  },
  {
    family: "krea2",
    all: [
      "txtfusion.projector.weight",
      "txtfusion.refiner_blocks.0.",
      "first.weight",
      "last.linear.weight",
      "tmlp.0.weight",
      "tproj.1.weight",
      "blocks.0.",
    ],
    shapes: { "first.weight": [6144] },
  },
  {
    family: "z-image",
    all: [
      "x_embedder.weight",
      "cap_embedder.1.weight",
      "noise_refiner.0.",
      "context_refiner.0.",
      "layers.29.",
      "t_embedder.mlp.0.weight",
    ],
    none: ["layers.30."],
    shapes: { "x_embedder.weight": [3840, 64], "cap_embedder.1.weight": [3840, 2560] },
  },
  {
    family: "flux2-klein-9b",
    all: [
      "img_in.weight",
      "txt_in.weight",
      "double_stream_modulation_img.",
      "single_stream_modulation.",
      "double_blocks.7.",
      "single_blocks.23.",
    ],
    none: ["double_blocks.8.", "single_blocks.24."],
    shapes: { "img_in.weight": [4096, 128], "txt_in.weight": [4096, 12288] },
  },
  {
    family: "flux1",
    all: [
      "img_in.weight",
      "txt_in.weight",
      "vector_in.in_layer.weight",
      "double_blocks.18.",
      "single_blocks.37.",
    ],
    none: ["double_blocks.19."],
    shapes: { "img_in.weight": [3072, 64], "txt_in.weight": [3072, 4096] },
    variants: [
      { family: "flux1-dev", all: ["guidance_in.in_layer.weight"] },
      { family: "flux1-schnell", none: ["guidance_in.in_layer.weight"] },
    ],
  },
  {
    family: "qwen3vl-4b",
    all: ["model.embed_tokens.weight", "model.layers.35.", "model.visual.merger."],
    none: ["model.layers.36."],
    shapes: { "model.embed_tokens.weight": [151936, 2560] },
  },
  {
    family: "qwen3-4b",
    all: ["model.embed_tokens.weight", "model.layers.35.", "model.norm.weight"],
    none: ["model.layers.36.", "model.visual."],
    shapes: { "model.embed_tokens.weight": [151936, 2560] },
  },
  {
    family: "qwen3-8b",
    all: ["model.embed_tokens.weight", "model.layers.35.", "model.norm.weight"],
    none: ["model.layers.36.", "model.visual."],
    shapes: { "model.embed_tokens.weight": [151936, 4096] },
  },
  {
    family: "clip-l",
    all: [
      "text_model.embeddings.token_embedding.weight",
      "text_model.encoder.layers.11.",
      "text_model.final_layer_norm.weight",
    ],
    none: ["text_model.encoder.layers.12."],
    shapes: { "text_model.embeddings.token_embedding.weight": [49408, 768] },
  },
  {
    family: "t5-xxl",
    all: ["shared.weight", "encoder.block.23.", "encoder.final_layer_norm.weight"],
    none: ["encoder.block.24.", "decoder."],
    shapes: { "shared.weight": [32128, 4096] },
  },
  {
    family: "flux2-vae",
    all: ["bn.running_mean", "encoder.conv_in.weight", "decoder.conv_in.weight", "encoder.conv_out.weight"],
    shapes: { "decoder.conv_in.weight": [null, 32], "encoder.conv_out.weight": [64] },
  },
  {
    family: "flux1-vae",
    all: [
      "encoder.conv_in.weight",
      "decoder.conv_in.weight",
      "decoder.mid.block_1.norm1.weight",
      "encoder.conv_out.weight",
    ],
    none: ["bn.running_mean", "quant_conv.weight"],
    shapes: { "decoder.conv_in.weight": [512, 16], "encoder.conv_out.weight": [32] },
  },
];

/** Parent of each narrower family (the family tree `relation` walks). */
const PARENT: Record<string, string> = {
  "minimax-h3-ref2va": "minimax-h3",
  "minimax-h3-fl2va": "minimax-h3",
  "ltx2.3": "ltx2",
  "ltx2.5": "ltx2",
  "ltx2.3-video-vae": "ltx2-video-vae",
  "ltx2.5-video-vae": "ltx2-video-vae",
  "ltx2.3-audio-vae": "ltx2-audio-vae",
  "ltx2.5-audio-vae": "ltx2-audio-vae",
  "ltx2.3-latent-upscaler": "ltx2-latent-upscaler",
  "ltx2.5-latent-upscaler": "ltx2-latent-upscaler",
  "ltx2.3-text-projection": "ltx2-text-projection",
  "ltx2.5-text-projection": "ltx2-text-projection",
  "wan2.2-i2v-14b-high": "wan2.2-i2v-14b",
  "wan2.2-i2v-14b-low": "wan2.2-i2v-14b",
  "wan2.2-vace-14b-high": "wan2.2-vace-14b",
  "wan2.2-vace-14b-low": "wan2.2-vace-14b",
  "z-image-turbo": "z-image",
  "flux1-dev": "flux1",
  "flux1-schnell": "flux1",
  "flux1-kontext-dev": "flux1-dev",
};

/** Children a header family is narrowed to by the file's name. */
const NAME_HINTS: Record<string, string[]> = {
  "minimax-h3-ref2va": ["*ref2v*", "*ref_2v*"],
  "minimax-h3-fl2va": ["*fl2v*", "*fl_2v*"],
  "ltx2.3-latent-upscaler": ["*2.3*", "*2_3*"],
  "ltx2.5-latent-upscaler": ["*2.5*", "*2_5*"],
  "wan2.2-i2v-14b-high": ["*high*"],
  "wan2.2-i2v-14b-low": ["*low*"],
  "wan2.2-vace-14b-high": ["*high*"],
  "wan2.2-vace-14b-low": ["*low*"],
  "z-image-turbo": ["*turbo*"],
  "flux1-kontext-dev": ["*kontext*"],
};

/** Families known only by name (LoRAs and unsigned models): registered, so relations are not `unregistered`. */
const NAME_ONLY = [
  "minimax-h3-ref2v-turbo-lora",
  "minimax-h3-fl2v-turbo-lora",
  "ltx2.3-ic-lora-ingredients",
  "ltx2.5-ic-lora-ingredients",
  "wan2.2-i2v-lightx2v-lora",
  "ltx2.5-duration-head",
  "qwen-image-2.1",
  "qwen-image-2.1-vae",
  "qwen3vl-8b",
];

const REGISTERED = new Set<string>([
  ...SIGNATURES.flatMap((s) => [s.family, ...(s.variants ?? []).map((v) => v.family)]),
  ...Object.keys(PARENT),
  ...Object.values(PARENT),
  ...NAME_ONLY,
]);

/** Lower-case fnmatch-style glob (`*`, `?`, `[...]`) as an anchored regex. */
export function globRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") re += ".*";
    else if (c === "?") re += ".";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end < 0) re += "\\[";
      else {
        const body = glob.slice(i + 1, end);
        re += `[${body.startsWith("!") ? `^${body.slice(1)}` : body}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`, "s");
}

export const globMatch = (glob: string, name: string) =>
  globRegExp(glob.toLowerCase()).test(name.toLowerCase());

const stripPrefix = (name: string) =>
  name.replace(/^model\.diffusion_model\./, "").replace(/^diffusion_model\./, "");

function ruleMatches(rule: Rule, names: Map<string, TensorInfo>, keys: string[]): boolean {
  const has = (k: string) => (k.endsWith(".") ? keys.some((n) => n.startsWith(k)) : names.has(k));
  if (rule.all && !rule.all.every(has)) return false;
  if (rule.none?.some(has)) return false;
  for (const [k, dims] of Object.entries(rule.shapes ?? {})) {
    const t = names.get(k);
    if (!t) return false;
    if (dims.some((d, i) => d !== null && t.shape[i] !== d)) return false;
  }
  return true;
}

/** Whether `identify` can tell this family (or an ancestor of it) from a header. */
export function hasSignature(family: string): boolean {
  for (let f: string | undefined = family; f; f = PARENT[f]) {
    if (SIGNATURES.some((s) => s.family === f || s.variants?.some((v) => v.family === f))) return true;
  }
  return false;
}

function narrowByName(family: string, fileName: string | undefined): { family: string; base?: string } {
  if (!fileName) return { family };
  const children = Object.keys(PARENT).filter((c) => PARENT[c] === family && NAME_HINTS[c]);
  const hits = children.filter((c) => NAME_HINTS[c].some((g) => globMatch(g, fileName)));
  return hits.length === 1 ? { family: hits[0], base: family } : { family };
}

/** The family a header belongs to; `fileName` narrows a family with name-told children. */
export function identify(header: SafetensorsHeader, fileName?: string): Identification {
  const names = new Map<string, TensorInfo>();
  for (const [k, v] of Object.entries(header.tensors)) names.set(stripPrefix(k), v);
  const keys = [...names.keys()];
  for (const sig of SIGNATURES) {
    if (!ruleMatches(sig, names, keys)) continue;
    let family = sig.family;
    let confidence: Confidence = sig.meta_key && sig.meta_key in header.metadata ? "metadata" : "tensors";
    const variant = sig.variants?.find((v) => ruleMatches(v, names, keys));
    if (variant) family = variant.family;
    if (sig.version) {
      const m = /^\s*(\d+)\.(\d+)/.exec(header.metadata.model_version ?? "");
      const versioned = m ? sig.family.replace(/^ltx2/, `ltx${m[1]}.${m[2]}`) : null;
      if (versioned && REGISTERED.has(versioned)) {
        family = versioned;
        confidence = "metadata";
      }
    }
    const narrowed = narrowByName(family, fileName);
    if (narrowed.base) {
      return {
        family: narrowed.family,
        base: narrowed.base,
        confidence: "name",
        detail: `${family} by header, narrowed by name`,
      };
    }
    return {
      family,
      confidence,
      detail: `signature ${sig.family}${family !== sig.family ? ` → ${family}` : ""}`,
    };
  }
  const arch = header.metadata["modelspec.architecture"];
  if (arch && REGISTERED.has(arch))
    return { family: arch, confidence: "metadata", detail: "modelspec.architecture" };
  return {
    family: null,
    confidence: "unknown",
    detail: `no signature matched (${keys.length} tensor${keys.length === 1 ? "" : "s"})`,
  };
}

const lineage = (f: string): string[] => {
  const out: string[] = [];
  for (let x: string | undefined = PARENT[f]; x; x = PARENT[x]) out.push(x);
  return out;
};

/** How a found family stands to the wanted one: only `same` and `variant` may stand in. */
export function relation(found: string, wanted: string): Relation {
  if (!REGISTERED.has(found) || !REGISTERED.has(wanted)) return "unregistered";
  if (found === wanted) return "same";
  if (lineage(found).includes(wanted)) return "variant";
  if (lineage(wanted).includes(found)) return "ambiguous";
  return "different";
}
