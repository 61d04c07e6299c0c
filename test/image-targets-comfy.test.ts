// Every shipped ComfyUI image target run against the ComfyUI double: the text-to-image targets through
// POST /studio/refs/generate and a real ref job (the picture collected into the take), the edit and panorama targets
// (which a plain candidate cannot send) as the engine job for them is built, with their reference picture or canvas
// uploaded. Each time the double accepts the graph against its catalogue (the node schemas read from ComfyUI's
// source), every input the graph sends is one the class declares, the job's values reach the nodes the target's
// binding names, and the picture comes back at the size ComfyUI would make it.
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { createComfyEngine } from "../lib/engines/comfyui/index.ts";
import type { EngineJob, RunHooks } from "../lib/engines/types.ts";
import { type ApiGraph, type PatchValues, patchGraph } from "../lib/targets/graph.ts";
import { type Listing, resolveModels } from "../lib/targets/models.ts";
import { shippedRegistry, type TargetSpec } from "../lib/targets/registry.ts";
import { resolveWorkflow } from "../lib/targets/workflow.ts";
import { refJob } from "../workers/jobs/ref.ts";
import { startComfyDouble } from "./support/comfy-double/index.ts";
import { jobEnded, targetModels, useComfyStudio } from "./support/comfy-studio.ts";
import { seriesS } from "./support/series-s.ts";
import { SCRIPT } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const registry = shippedRegistry();
const comfyTargets = registry
  .ids("image")
  .filter((id) => registry.get(id)?.backend !== "builtin")
  .sort();
const spec = (id: string): TargetSpec => {
  const s = registry.get(id);
  if (!s) throw new Error(`no shipped target ${id}`);
  return s;
};
const mode = (id: string) => spec(id).capabilities.mode;
const t2iTargets = comfyTargets.filter((id) => mode(id) === "t2i");
const pictureTargets = comfyTargets.filter((id) => mode(id) === "edit" || mode(id) === "pano");

/** The files every shipped ComfyUI image target downloads, by model folder, on top of the double's own. */
const MODELS = targetModels(comfyTargets);
const c = useComfyStudio(MODELS);
/** The double's /object_info: what each class declares. */
let objectInfo: Record<string, Any>;

beforeAll(async () => {
  objectInfo = (await (await fetch(`${c.double.url}/object_info`)).json()) as Record<string, Any>;
});

async function pngSize(file: string) {
  const meta = await sharp(file).metadata();
  return { width: meta.width, height: meta.height, format: meta.format };
}

/** The last graph the double accepted (every POST /prompt so far answered 200). */
function acceptedGraph(): Record<string, Any> {
  const refused = c.double.prompts.filter((p) => p.status !== 200);
  expect(refused.map((p) => p.response)).toEqual([]);
  const last: Any = c.double.prompts.at(-1)?.body;
  return last.prompt;
}

/**
 * Inputs the double's catalogue does not declare for their class. ComfyUI itself ignores an input its class
 * lacks, so a misspelt or stale input would run silently: it is caught here instead.
 */
function undeclaredInputs(graph: Record<string, Any>): string[] {
  const out: string[] = [];
  for (const [id, node] of Object.entries(graph)) {
    const info = objectInfo[node.class_type];
    if (!info) {
      out.push(`${id}: class ${node.class_type} unknown`);
      continue;
    }
    const declared = { ...info.input.required, ...info.input.optional };
    for (const name of Object.keys(node.inputs)) {
      if (!(name in declared)) out.push(`${id} (${node.class_type}).${name}`);
    }
  }
  return out;
}

/** The value the target's binding puts `param` at, in the graph sent: every place it names carries the same one. */
function bound(graph: Record<string, Any>, target: TargetSpec, param: string): unknown {
  const declared = (target.binding.params as Record<string, Any>)[param];
  expect(declared, `${target.id} binds ${param}`).toBeDefined();
  const values = (Array.isArray(declared) ? declared : [declared]).map((where: Any) => {
    const nodes = Object.values(graph).filter(
      (n) => n.class_type === where.class_type && (!where.title || n._meta?.title === where.title),
    );
    expect(nodes, `${target.id}: the ${where.class_type} node carrying ${param}`).toHaveLength(1);
    return nodes[0].inputs[where.field];
  });
  expect(new Set(values).size, `${target.id}: ${param} the same everywhere`).toBe(1);
  return values[0];
}

/** The final preset's model files the binding patches in (the double lists exactly the shipped files). */
function presetFiles(target: TargetSpec): Record<string, string> {
  const preset = (target.presets.final ?? {}) as Record<string, unknown>;
  const params = target.binding.params as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const p of ["model", "text_encoder", "text_encoder_2", "vae"]) {
    if (p in params && typeof preset[p] === "string") out[p] = preset[p] as string;
  }
  return out;
}

describe.each(t2iTargets)("%s through POST /studio/refs/generate", (id) => {
  it("sends a graph the double accepts with the candidate's values bound, and the picture becomes the take", async () => {
    const target = spec(id);
    const series = seriesS();
    series.refs = { target: id, keyframe_target: id };
    const ep = await c.s.episode(SCRIPT, { series });
    const takesNegative = "negative" in (target.binding.params as Record<string, unknown>);
    const res = await c.s.call("POST", "/refs/generate", {
      ep,
      ref: "location:kitchen",
      seed: "4242",
      prompt: "a cramped kitchen at dawn, empty",
      steps: 5,
      ...(takesNegative ? { negative: "people, text" } : {}),
    });
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([]);
    expect(res.body.queued[0]).toMatchObject({ backend: "local", target: id, seed: "4242" });
    const job = res.body.queued[0].prompt_id;
    const before = c.double.prompts.length;
    c.pool({ ref: refJob });
    const done: Any = await jobEnded(c.store, job);
    expect(done.status, JSON.stringify(done.error ?? done.log)).toBe("succeeded");
    expect(c.double.prompts.length).toBe(before + 1);

    const graph = acceptedGraph();
    expect(undeclaredInputs(graph)).toEqual([]);
    expect(bound(graph, target, "prompt")).toBe("a cramped kitchen at dawn, empty");
    if (takesNegative) expect(bound(graph, target, "negative")).toBe("people, text");
    expect(bound(graph, target, "seed")).toBe(4242);
    expect(bound(graph, target, "steps")).toBe(5);
    expect([bound(graph, target, "width"), bound(graph, target, "height")]).toEqual([1344, 768]);
    for (const [param, file] of Object.entries(presetFiles(target))) {
      expect(bound(graph, target, param), param).toBe(file);
    }

    const dir = path.join(ep, "refs", "_takes", "location__kitchen");
    const sidecar: Any = JSON.parse(await readFile(path.join(dir, "location__kitchen_t01.json"), "utf8"));
    expect(sidecar).toMatchObject({
      status: "ok",
      target: id,
      backend: "local",
      image: "location__kitchen_t01.png",
      width: 1344,
      height: 768,
      backend_prompt_id: c.double.prompts.at(-1)?.prompt_id,
    });
    expect(await pngSize(path.join(dir, "location__kitchen_t01.png"))).toEqual({
      width: 1344,
      height: 768,
      format: "png",
    });
  });
});

/** A flat reference picture (or canvas) in a scratch folder. */
async function picture(name: string, width: number, height: number): Promise<string> {
  const dir = path.join(c.s.outside, "image-targets-comfy");
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, name);
  // A colour of its own per picture: the engine uploads by content, so equal pictures would be sent once.
  const shade = [...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) & 0xffffff, 7);
  await sharp({
    create: { width, height, channels: 3, background: `#${shade.toString(16).padStart(6, "0")}` },
  })
    .png()
    .toFile(file);
  return file;
}

const hooks = (): RunHooks => ({ signal: new AbortController().signal, onProgress: () => {} });

/**
 * The engine job a reference candidate on `target` would be, with `pictures` as its reference pictures: the
 * workflow resolved and patched as the ref job does (model files resolved against the double's listing, the
 * target's preset LoRAs), each picture an input the engine uploads; then prepared, submitted and collected.
 */
async function runWithPictures(id: string, pictures: string[], width: number, height: number) {
  const target = spec(id);
  const workflow = await resolveWorkflow(target, {
    env: {},
    fetch: async (route) => {
      const r = await fetch(c.double.url + route);
      return { status: r.status, text: () => r.text() };
    },
  });
  if (!workflow.ok) throw new Error(workflow.error);
  const listing: Listing = Object.fromEntries(
    await Promise.all(
      ["diffusion_models", "text_encoders", "vae", "loras", "checkpoints"].map(async (folder) => [
        folder,
        await (await fetch(`${c.double.url}/models/${folder}`)).json(),
      ]),
    ),
  );
  const models = await resolveModels(target, "final", listing);
  expect(models.blocked, models.notes.join("; ")).toBe(false);
  const takesNegative = "negative" in (target.binding.params as Record<string, unknown>);
  const values: PatchValues = {
    ...models.files,
    prompt: "the image, in warm evening light",
    ...(takesNegative ? { negative: "blurry" } : {}),
    seed: 90210n,
    width,
    height,
    steps: 6,
    loras: models.loras,
    prefix: `${id}_t01`,
  };
  const patched = patchGraph(target, workflow.graph, values, { references: pictures });
  const workDir = path.join(c.s.root, "..", "image-targets-comfy", `${id}-${c.double.prompts.length}`);
  const job: EngineJob = {
    kind: "image",
    target: id,
    ep: c.s.root,
    pass: "final",
    subject: "location__kitchen",
    take: 1,
    stem: `${id}_t01`,
    width,
    height,
    fps: 24,
    frames: 0,
    seed: 90210n,
    prompt: String(values.prompt),
    negative: takesNegative ? "blurry" : null,
    entry: {} as EngineJob["entry"],
    inputs: Object.fromEntries(pictures.map((p, i) => [`reference_${i + 1}`, p])),
    workDir,
    graph: patched.graph,
  };
  const engine = createComfyEngine({ url: c.double.url });
  try {
    const prepared = await engine.prepare(job, hooks());
    const submitted = await engine.submit(job, prepared, hooks());
    const outputs = await engine.collect(job, submitted, hooks());
    return { target, values, prepared, outputs, sent: patched.graph };
  } finally {
    await engine.close();
  }
}

/** The LoadImage node titled `Reference <n>`, or feeding the n-th numbered picture input, in the graph sent. */
function referenceLoads(graph: Record<string, Any>): string[] {
  return Object.values(graph)
    .filter((n) => n.class_type === "LoadImage")
    .map((n) => n.inputs.image as string);
}

describe.each(pictureTargets)("%s as the engine job with its picture", (id) => {
  it("uploads the picture, sends a graph the double accepts with the job's values bound, and collects the picture", async () => {
    const pano = mode(id) === "pano";
    // A panorama outpaints its 2:1 canvas, which sets the output size; an edit renders at the asked size.
    const [width, height] = pano ? [2048, 1024] : [1344, 768];
    const ref = await picture(`${id}_ref.png`, width, height);
    const before = c.double.uploads.length;
    const { target, values, prepared, outputs } = await runWithPictures(id, [ref], width, height);

    const graph = acceptedGraph();
    expect(undeclaredInputs(graph)).toEqual([]);
    // The picture was uploaded and the graph reads it by the name ComfyUI stored it under.
    expect(c.double.uploads.length).toBeGreaterThan(before);
    const uploaded = prepared.inputs.reference_1;
    expect(uploaded).toMatch(/^studio\/[0-9a-f]{40}\.png$/);
    expect(referenceLoads(graph)).toEqual([uploaded]);
    expect(await pngSize(path.join(c.double.inputDir, uploaded))).toMatchObject({ width, height });

    expect(bound(graph, target, "prompt")).toBe(values.prompt);
    if (values.negative !== undefined) expect(bound(graph, target, "negative")).toBe("blurry");
    expect(bound(graph, target, "seed")).toBe(90210);
    expect(bound(graph, target, "steps")).toBe(6);
    const params = target.binding.params as Record<string, unknown>;
    if ("width" in params) {
      expect([bound(graph, target, "width"), bound(graph, target, "height")]).toEqual([width, height]);
    }
    for (const [param, file] of Object.entries(presetFiles(target))) {
      expect(bound(graph, target, param), param).toBe(file);
    }
    if (pano) {
      // The 360 LoRA of the preset stays in the graph's loader, at its strength.
      const lora = Object.values(graph).find((n) => n.class_type === "LoraLoaderModelOnly");
      expect(lora.inputs).toMatchObject({
        lora_name: "flux-2-klein-9B-360-erp-outpaint-lora_V1.safetensors",
        strength_model: 0.9,
      });
    }

    expect(outputs.image).toBeDefined();
    expect(await pngSize(outputs.image as string)).toEqual({ width, height, format: "png" });
  });
});

describe("the double runs the new classes as ComfyUI does", () => {
  it("qwen_image_21 with a picture samples the encoder's latent: the result takes the reference's size", async () => {
    // The switch hands the sampler the latent TextEncodeQwenImage21 made on the first reference (resolution 0:
    // the reference's own size on the 32 grid), not the empty latent at the asked size.
    const ref = await picture("qwen21_portrait.png", 800, 1200);
    const { outputs } = await runWithPictures("qwen_image_21", [ref], 1344, 768);
    const graph = acceptedGraph();
    const sw = Object.values(graph).find((n) => n.class_type === "ComfySwitchNode");
    expect(sw.inputs.switch).toBe(false);
    expect(await pngSize(outputs.image as string)).toEqual({ width: 800, height: 1216, format: "png" });
  });

  it("refuses a graph whose class it lacks, naming the node as ComfyUI does", async () => {
    const lacking = await startComfyDouble({
      models: MODELS,
      nodes: Object.keys(objectInfo).filter((cls) => cls !== "FluxGuidance"),
      profile: "new",
    });
    try {
      const target = spec("flux_kontext");
      const shipped = JSON.parse(
        await readFile(
          path.join(import.meta.dirname, "..", "lib", "targets", "image", "flux_kontext", "workflow.json"),
          "utf8",
        ),
      ) as ApiGraph;
      const { graph } = patchGraph(target, shipped, { prompt: "a door" });
      const r = await fetch(`${lacking.url}/prompt`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ prompt: graph }),
      });
      expect(r.status).toBe(400);
      const body: Any = await r.json();
      expect(body.error).toMatchObject({
        type: "missing_node_type",
        message: "Node 'Guidance' not found. The custom node may not be installed.",
      });
    } finally {
      await lacking.close();
    }
  });
});
