// Generate's `pano` option against the ComfyUI double: the canvas (the live plate ahead, more plates around it on
// grey) is klein_erp_360's one picture, its 360 LoRA kept at 0.9, the prompt one short sentence, the take of the
// `pano` pseudo-view listed under `panos` and never pickable; `latent: empty`; every refusal.
import { readFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { panoPrompt } from "../lib/refs/pano.ts";
import { refJob } from "../workers/jobs/ref.ts";
import {
  loads,
  pictureEpisode,
  runJobGraph,
  shippedImageModels,
  sizeOf,
  useComfyStudio,
} from "./support/comfy-studio.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const c = useComfyStudio(shippedImageModels());
/** Run the queued job through a worker pool and answer the graph the double accepted for it. */
const runJob = (job: string) => runJobGraph(c, { ref: refJob }, job);
const episode = () => pictureEpisode(c.s);

describe("pano on klein_erp_360", () => {
  it("outpaints a canvas of the live plate and another, with the 360 LoRA, as a pano take", async () => {
    const ep = await episode();
    const res = await c.s.call("POST", "/refs/generate", {
      ep,
      ref: "location:kitchen",
      prompt:
        "A cramped kitchen at night with a humming fridge, a dented kettle on the stove, yellow light from one bulb, rain on the window, dishes stacked in the sink and a calendar on the wall by the door. Second sentence.",
      pano: { with: ["street"] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.errors).toEqual([]);
    expect(res.body.queued[0]).toMatchObject({ view: "pano", target: "klein_erp_360" });
    const graph = await runJob(res.body.queued[0].prompt_id);
    const sent = loads(graph);
    expect(sent).toHaveLength(1);
    const canvas = path.join(c.double.inputDir, sent[0]);
    expect(await sizeOf(canvas)).toEqual([2048, 1024]);
    const { data } = await sharp(canvas).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [...data.subarray((y * 2048 + x) * 3, (y * 2048 + x) * 3 + 3)];
    expect(at(1024, 512)).toEqual([0xd0, 0x20, 0x20]);
    expect(at(Math.round((2048 * 5) / 6), 512)).toEqual([0x20, 0x20, 0xd0]);
    expect(at(10, 10)).toEqual([0x80, 0x80, 0x80]);
    const lora = Object.values(graph).find((n: Any) => n.class_type === "LoraLoaderModelOnly");
    expect(lora.inputs).toMatchObject({
      lora_name: "flux-2-klein-9B-360-erp-outpaint-lora_V1.safetensors",
      strength_model: 0.9,
    });
    const prompt = Object.values(graph).find((n: Any) => n._meta?.title === "Positive prompt").inputs.text;
    expect(prompt.split(/\s+/).length).toBeLessThanOrEqual(35);
    expect(prompt).not.toMatch(/Second/);
    const done = JSON.parse(
      await readFile(path.join(ep, "refs/_takes/location__kitchen/location__kitchen_pano_t01.json"), "utf8"),
    );
    expect(done).toMatchObject({ status: "ok", source: "pano", view: "pano", width: 2048, height: 1024 });
    expect(done.pano).toMatchObject({ with: ["location:street"], engine: "klein", size: "2048x1024" });
    const listed = await c.s.call("GET", "/refs", { ep });
    const kitchen = listed.body.refs.find((r: Any) => r.id === "location:kitchen");
    expect(kitchen.panos.map((t: Any) => t.take)).toEqual([1]);
    const pick = await c.s.call("PUT", "/refs/pick", { ep, ref: "location:kitchen", view: "pano", take: 1 });
    expect(pick.status).toBe(400);
  });

  it("latent empty: the sampler starts from an empty latent at the panorama's size", async () => {
    const ep = await episode();
    const res = await c.s.call("POST", "/refs/generate", {
      ep,
      ref: "location:kitchen",
      pano: { size: "1024x512", latent: "empty" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const graph = await runJob(res.body.queued[0].prompt_id);
    const sampler = Object.values(graph).find((n: Any) => n.class_type === "KSampler");
    const empty = graph[sampler.inputs.latent_image[0]];
    expect(empty).toMatchObject({
      class_type: "EmptyFlux2LatentImage",
      inputs: { width: 1024, height: 512 },
    });
  });

  it("answers 400 for what cannot be a panorama", async () => {
    const ep = await episode();
    const ask = (body: Record<string, unknown>) =>
      c.s.call("POST", "/refs/generate", { ep, ref: "location:kitchen", pano: {}, ...body });
    expect((await ask({ ref: "subject:ada" })).status).toBe(400);
    expect((await ask({ pano: { size: "1024x1024" } })).body.error).toMatch(/2:1/);
    expect((await ask({ pano: { with: ["kitchen_rev"] } })).body.error).toMatch(/has no live plate/);
    expect((await ask({ pano: { with: ["street", "kitchen_rev", "kitchen"] } })).status).toBe(400);
    expect((await ask({ target: "krea2" })).body.error).toMatch(/not a panorama target/);
    expect((await ask({ ref: "location:kitchen_rev" })).body.error).toMatch(/has no live plate/);
    // A plain candidate on the panorama target is refused as before: it has no canvas to send.
    const plain = await c.s.call("POST", "/refs/generate", {
      ep,
      ref: "location:kitchen",
      target: "klein_erp_360",
    });
    expect(plain.body.errors[0].error).toMatch(/pano target/);
  });

  it("cuts the prompt to one sentence of at most 35 words", () => {
    const long = Array.from({ length: 50 }, (_, i) => `w${i}`).join(" ");
    expect(panoPrompt(long).split(" ")).toHaveLength(35);
    expect(panoPrompt("A kitchen. A street.")).toBe("A kitchen.");
  });
});
