// POST /studio/targets/inspect against the ComfyUI double's node list: a user's workflow (API or canvas, sent or
// saved in the engine) read for its output, prompts, render widgets and model files, proposed as a draft target
// whose binding selects its nodes; ambiguity, unknown classes and every refusal.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useComfyStudio } from "./support/comfy-studio.ts";
import {
  USER_MODEL,
  USER_TEXT_ENCODER,
  USER_VAE,
  userCanvas,
  userI2vWorkflow,
  userModels,
  userWorkflow,
} from "./support/user-workflow.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const c = useComfyStudio(userModels());

const inspect = (input: Record<string, unknown>) => c.s.call("POST", "/targets/inspect", input);

describe("a user's API workflow", () => {
  it("is proposed as a draft video target binding its prompts, widgets and model files", async () => {
    const res = await inspect({ graph: userWorkflow(), id: "my_wan", label: "My Wan" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const b: Any = res.body;
    expect(b.problems).toEqual([]);
    expect(b.can_save).toBe(true);
    expect(b.ambiguous).toEqual([]);
    // Both prompts carry the same title: told apart by the sampler input they feed.
    expect(b.matched.prompt).toEqual({
      class_type: "CLIPTextEncode",
      field: "text",
      feeds: ["KSampler", "positive"],
    });
    expect(b.matched.negative).toEqual({
      class_type: "CLIPTextEncode",
      field: "text",
      feeds: ["KSampler", "negative"],
    });
    expect(b.matched.seed).toEqual({ class_type: "KSampler", field: "seed" });
    expect(b.matched.steps).toEqual({ class_type: "KSampler", field: "steps" });
    expect(b.matched.width).toEqual({ class_type: "Wan22ImageToVideoLatent", field: "width" });
    expect(b.matched.length).toEqual({ class_type: "Wan22ImageToVideoLatent", field: "length" });
    expect(b.matched.shift).toEqual({ class_type: "ModelSamplingSD3", field: "shift" });
    expect(b.matched.model).toEqual({ class_type: "UNETLoader", field: "unet_name" });
    expect(b.matched.loras).toMatchObject({
      class_type: "LoraLoaderModelOnly",
      insert_after: { class_type: "UNETLoader" },
    });
    expect(b.models).toEqual([
      {
        param: "model",
        class_type: "UNETLoader",
        field: "unet_name",
        file: USER_MODEL,
        folder: "diffusion_models",
        family: "wan2.2-ti2v-5b",
      },
      {
        param: "text_encoder",
        class_type: "CLIPLoader",
        field: "clip_name",
        file: USER_TEXT_ENCODER,
        folder: "text_encoders",
        family: "umt5-xxl",
      },
      {
        param: "vae",
        class_type: "VAELoader",
        field: "vae_name",
        file: USER_VAE,
        folder: "vae",
        family: "wan2.2-vae",
      },
    ]);
    expect(b.nodes).toEqual([]);
    expect(b.unbound).toEqual(
      expect.arrayContaining([
        "1 UNETLoader.weight_dtype",
        "3 CLIPLoader.type",
        "7 Wan22ImageToVideoLatent.batch_size",
      ]),
    );
    expect(b.unbound.some((u: string) => u.includes(".seed") || u.includes(".text"))).toBe(false);

    const p: Any = b.proposal;
    expect(p).toMatchObject({ id: "my_wan", kind: "video", label: "My Wan", draft: true });
    expect(p.capabilities).toMatchObject({ audio: "none", negative_prompt: true });
    // The widgets' own limits: width step 32, length step 4.
    expect(p.template).toMatchObject({ size_multiple: 32, fps: 24, frames: { step: 4, base: 1 } });
    expect(p.presets.final).toMatchObject({ model: USER_MODEL, steps: 20, width: 1280, height: 704, cfg: 5 });
    expect(p.presets.proxy).toMatchObject({ width: 640, height: 352 });
    expect(p.binding.saver).toMatchObject({ class_type: "H3SaveShot", core: { class_type: "SaveVideo" } });
    expect(p.binding.workflow).toBe("workflow.json");
  });

  it("says which widgets it could not choose between, and which classes the backend does not know", async () => {
    const g: Any = userWorkflow();
    g["12"] = { class_type: "KSampler", inputs: { ...g["8"].inputs, seed: 7 }, _meta: { title: "KSampler" } };
    g["13"] = { class_type: "FancyUpscaler", inputs: { images: ["9", 0] }, _meta: { title: "Fancy" } };
    const res = await inspect({ graph: g });
    expect(res.status).toBe(200);
    expect(res.body.ambiguous.map((a: Any) => a.param)).toContain("seed");
    expect(res.body.matched.seed).toBeUndefined();
    // Two samplers agreeing on steps: both take the value.
    expect(res.body.matched.steps).toEqual({ class_type: "KSampler", field: "steps", all: true });
    expect(res.body.problems).toContain("node class FancyUpscaler is unknown to the backend");
    expect(res.body.can_save).toBe(false);
    expect(res.body.proposal.id).toBe("custom_workflow");
  });
});

describe("a workflow that loads a picture", () => {
  it("takes it as the shot's first frame: optional readers are disconnected without one, a required one makes it required", async () => {
    const g: Any = userI2vWorkflow();
    const optional = await inspect({ graph: g });
    expect(optional.body.can_save, JSON.stringify(optional.body.problems)).toBe(true);
    expect(optional.body.proposal.binding.inputs.first.disconnect).toEqual([
      { class_type: "Wan22ImageToVideoLatent", input: "start_image" },
    ]);
    expect(optional.body.proposal.recipe.keyframe_required).toBeUndefined();

    g["13"] = {
      class_type: "VAEEncode",
      inputs: { pixels: ["12", 0], vae: ["6", 0] },
      _meta: { title: "VAE Encode" },
    };
    const required = await inspect({ graph: g });
    expect(required.body.can_save, JSON.stringify(required.body.problems)).toBe(true);
    expect(required.body.proposal.recipe.keyframe_required.first).toContain("VAEEncode.pixels");
    expect(required.body.proposal.binding.inputs.first.disconnect).toEqual([
      { class_type: "Wan22ImageToVideoLatent", input: "start_image" },
    ]);
  });
});

describe("a canvas workflow", () => {
  it("is converted (notes dropped, seed control words skipped) and inspected like the API one, downloads kept", async () => {
    const res = await inspect({ graph: userCanvas() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.problems).toEqual([]);
    expect(res.body.matched.seed).toEqual({ class_type: "KSampler", field: "seed" });
    expect(res.body.proposal.presets.final.steps).toBe(20);
    expect(res.body.proposal.downloads[USER_MODEL]).toEqual({
      folder: "diffusion_models",
      url: "http://127.0.0.1:9/wan.safetensors",
    });
  });

  it("reads a workflow saved in the engine by name, and binds to that name", async () => {
    const dir = path.join(c.double.userDir, "default", "workflows");
    await writeFile(path.join(dir, "my wan.json"), JSON.stringify(userCanvas()));
    const res = await inspect({ workflow: "my wan.json" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.proposal.id).toBe("custom_my_wan");
    expect(res.body.proposal.binding.workflow_name).toBe("my wan.json");
    expect(res.body.proposal.binding.workflow).toBeUndefined();
    expect(res.body.can_save).toBe(true);
  });
});

describe("refusals", () => {
  it("answers 400 without a workflow, for a malformed one or one with no output node, 404 for an absent name", async () => {
    const noGraph = await inspect({});
    expect(noGraph.status).toBe(400);
    expect(noGraph.body.error).toContain("send a workflow");
    expect((await inspect({ graph: {} })).status).toBe(400);

    const malformed = await inspect({ graph: { "1": { inputs: {} } } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toContain("neither an API graph");

    const badCanvas = await inspect({ graph: { nodes: [{ id: 1 }], links: [] } });
    expect(badCanvas.status).toBe(400);

    const g: Any = userWorkflow();
    delete g["10"];
    delete g["11"];
    const noSaver = await inspect({ graph: g });
    expect(noSaver.status).toBe(400);
    expect(noSaver.body.error).toContain("no output node");

    const absent = await inspect({ workflow: "nothing here.json" });
    expect(absent.status).toBe(404);
    for (const name of ["../x.json", "a/b.json", "x.txt"]) {
      expect((await inspect({ workflow: name })).status, name).toBe(400);
    }
    const dir = path.join(c.double.userDir, "default", "workflows");
    await writeFile(path.join(dir, "broken.json"), "{not json");
    const broken = await inspect({ workflow: "broken.json" });
    expect(broken.status).toBe(400);
    expect(broken.body.error).toContain("not valid JSON");
    expect((await inspect({ graph: userWorkflow(), id: "../x" })).status).toBe(400);
  });

  it("answers 502 when the backend does not answer", async () => {
    await c.double.setRefusing(true);
    c.s.env.services.engines.lookups.clear();
    try {
      const res = await inspect({ graph: userWorkflow() });
      expect(res.status).toBe(502);
      expect(res.body.error).toContain("node list is unavailable");
      expect((await inspect({ workflow: "my wan.json" })).status).toBe(502);
    } finally {
      await c.double.setRefusing(false);
    }
  });
});
