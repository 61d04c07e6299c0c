// An own preset's sample drawn on a ComfyUI image target through the ComfyUI double: the target's workflow patched
// with the preset's steps, size and LoRAs, the picture kept as the preset's; missing model files refused at once.
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { picturePath } from "../lib/presets/store.ts";
import { presetJob } from "../workers/jobs/preset.ts";
import { DEFAULT_MODELS } from "./support/comfy-double/index.ts";
import { runJobGraph, shippedImageModels, useComfyStudio } from "./support/comfy-studio.ts";
import { refusal } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: graphs are checked field by field
type Any = any;

const c = useComfyStudio(shippedImageModels());
const bare = useComfyStudio(DEFAULT_MODELS);
const kinds = { preset: presetJob };

describe("a sample on a ComfyUI image target", () => {
  it("patches the target's workflow with the preset's values and keeps the picture", async () => {
    const saved = await c.s.call("POST", "/presets/own", {
      id: "zit",
      label: "Z quick",
      kind: "image",
      target: "z_image_turbo",
      steps: 5,
      size: "768x512",
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const queued = await c.s.call("POST", "/presets/own/render", {
      id: "zit",
      prompt: "a lighthouse at dusk",
    });
    expect(queued.status, JSON.stringify(queued.body)).toBe(200);
    expect(queued.body.job).toMatchObject({ kind: "preset", lane: "local" });
    const graph = await runJobGraph(c, kinds, queued.body.job.id);
    const nodes = Object.values(graph) as Any[];
    const sampler = nodes.find((n) => String(n.class_type).startsWith("KSampler"));
    expect(sampler.inputs.steps).toBe(5);
    const texts = nodes.filter((n) => typeof n.inputs?.text === "string").map((n) => n.inputs.text);
    expect(texts).toContain("a lighthouse at dusk");
    const sized = nodes.find((n) => n.inputs?.width === 768);
    expect(sized?.inputs.height).toBe(512);
    const meta = await sharp(picturePath(c.s.env.home, "zit")).metadata();
    expect(meta.format).toBe("png");
    const listed = await c.s.call("GET", "/presets", { kind: "image" });
    expect(listed.body.presets.find((p: Any) => p.id === "zit").picture).toMatch(
      /^\/studio\/presets\/image\?id=zit/,
    );
  });
});

describe("a ComfyUI target whose files the engine lacks", () => {
  it("refuses the sample at once, naming the missing files", async () => {
    const saved = await bare.s.call("POST", "/presets/own", {
      id: "lacking",
      label: "Lacking",
      kind: "image",
      target: "z_image_turbo",
    });
    expect(saved.status).toBe(200);
    const got = await bare.s.call("POST", "/presets/own/render", { id: "lacking" });
    refusal(got, 409, /^missing model files: .*z_image_turbo_bf16\.safetensors \(model\)/, ["missing_files"]);
    expect(got.body.missing_files).toContainEqual(
      expect.objectContaining({ param: "model", want: "z_image_turbo_bf16.safetensors" }),
    );
    expect((await bare.store.list()).jobs).toEqual([]);
  });
});
