// ltx2_ingredients renders through the ComfyUI double: POST /studio/render with "render anyway" on shots whose only
// reference (the location's plate) is not on disk renders each shot from the prompt alone (no sheet, guides or IC-LoRA in the graph the
// double accepted) with its exact frame count; a job whose composed sheet is staged uploads it and the double runs
// the sheet branch (LoadImage -> ResizeAndPadImage -> RepeatImageBatch -> LTXVAddGuide -> LTXVCropGuides).
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createComfyEngine } from "../lib/engines/comfyui/index.ts";
import type { EngineJob } from "../lib/engines/types.ts";
import { countFrames } from "../lib/media/ffmpeg.ts";
import { type ApiGraph, patchGraph } from "../lib/targets/graph.ts";
import { shippedRegistry } from "../lib/targets/registry.ts";
import {
  graphs,
  ofClass,
  png,
  renderQueued,
  runRenders,
  takeSidecar,
  targetModels,
  useComfyStudio,
} from "./support/comfy-studio.ts";
import { seriesS } from "./support/series-s.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const SCRIPT = [
  "= e01  T",
  "# sq01 kitchen",
  "## sh010",
  "dur: 2",
  "The kettle steams.",
  "## sh020",
  "dur: 3",
  "Rain on the window.",
].join("\n");
const TARGET = "ltx2_ingredients";
const spec = shippedRegistry().get(TARGET)!;

const c = useComfyStudio(targetModels([TARGET]));

describe("ltx2_ingredients on the local ComfyUI", () => {
  it("renders shots without reference pictures from the prompt alone, with exact frame counts", async () => {
    const series = seriesS();
    series.series.target = TARGET;
    const ep = await c.s.episode(SCRIPT, { series });
    const before = graphs(c.double).length;
    // The kitchen plate is a required sheet panel that is not on disk: "render anyway" drops it, leaving no panel.
    await renderQueued(c, { ep, allow_missing_refs: true }, [
      ["sh010", TARGET],
      ["sh020", TARGET],
    ]);

    const mine = graphs(c.double).slice(before);
    expect(mine).toHaveLength(2);
    for (const shot of ["sh010", "sh020"]) {
      const sc: Any = await takeSidecar(ep, shot);
      expect(sc).toMatchObject({ status: "ok", target: TARGET, backend: "local" });
      expect(sc.resolved.model).toMatchObject({ how: "exact" });
      const mp4 = path.join(ep, "renders_proxy", shot, sc.mp4);
      expect((await stat(mp4)).size).toBeGreaterThan(0);
      expect(await countFrames(mp4, c.s.env.services.media)).toBe(sc.length);
      expect((sc.length - 1) % 8).toBe(0);
      const g = mine.find((x) => ofClass(x, "EmptyLTXVLatentVideo")[0]?.inputs.length === sc.length) ?? {};
      for (const cls of ["LoadImage", "LTXVAddGuide", "LTXVCropGuides", "RepeatImageBatch"])
        expect(ofClass(g, cls), `${shot} ${cls}`).toEqual([]);
      const ks = ofClass(g, "KSampler");
      expect(ks).toHaveLength(1);
      // The IC-LoRA went with the sheet: the sampler reads the checkpoint's model.
      expect(g[ks[0].inputs.model[0]].class_type).toBe("CheckpointLoaderSimple");
    }
  });

  it("composes the shot's sheet at job start from the pictures on disk and renders through the sheet branch", async () => {
    const series = seriesS();
    series.series.target = TARGET;
    const ep = await c.s.episode(SCRIPT, { series });
    for (const dir of [path.dirname(ep), ep]) {
      await png(path.join(dir, "refs", "_bg", "kitchen.png"), 96, 54, "#556677");
    }
    const before = graphs(c.double).length;
    const res = await c.s.call("POST", "/render", { ep, shots: ["sh010"] });
    expect(res.status).toBe(200);
    expect(res.body.skipped, JSON.stringify(res.body.skipped)).toEqual([]);
    await runRenders(c, res.body.queued);
    const sc: Any = await takeSidecar(ep, "sh010");
    expect(sc.inputs.sheet).toBeTruthy();
    const g = graphs(c.double).slice(before)[0];
    const repeat = ofClass(g, "RepeatImageBatch");
    expect(repeat).toHaveLength(1);
    expect(repeat[0].inputs.amount).toBe(sc.length);
    const pad = g[repeat[0].inputs.image[0]];
    expect(g[pad.inputs.image[0]].inputs.image).toBe(sc.inputs.sheet);
    expect(ofClass(g, "LTXVAddGuide")).toHaveLength(1);
    expect(ofClass(g, "LoraLoaderModelOnly").map((n: Any) => n.inputs.lora_name)).toEqual([
      "ltx-2.3-22b-ic-lora-ingredients-0.9.safetensors",
    ]);
    const mp4 = path.join(ep, "renders_proxy", "sh010", sc.mp4);
    expect(await countFrames(mp4, c.s.env.services.media)).toBe(sc.length);
  });

  it("runs the sheet branch when a composed sheet is staged: uploaded, loaded, padded, repeated, guided, cropped", async () => {
    const dir = path.join(path.dirname(c.s.root), "ltx2-sheet");
    const sheet = path.join(dir, "sh010_refsheet.png");
    await png(sheet, 256, 64, "#224466");
    const workflow = JSON.parse(
      await readFile(
        path.join(import.meta.dirname, "..", "lib", "targets", "video", TARGET, "workflow.json"),
        "utf8",
      ),
    ) as ApiGraph;
    const frames = 25;
    const { graph, notes } = patchGraph(
      spec,
      workflow,
      {
        prompt: "Reference sheet: the kettle. The kettle steams.",
        seed: 3,
        steps: 2,
        width: 256,
        height: 160,
        length: frames,
        fps: 24,
        prefix: "studio/e01/sh010_sheet",
      },
      { sheet },
    );
    expect(notes).toEqual([]);
    const engine = createComfyEngine({ backend: "local", url: c.double.url });
    const job: EngineJob = {
      kind: "video",
      target: TARGET,
      ep: dir,
      pass: "proxy",
      subject: "sh010",
      take: 1,
      stem: "sh010_sheet",
      width: 256,
      height: 160,
      fps: 24,
      frames,
      seed: 3n,
      prompt: "The kettle steams.",
      negative: null,
      entry: {},
      inputs: { sheet },
      audio: null,
      captions: [],
      spoken: [],
      title: "sh010",
      workDir: dir,
      graph,
    };
    const hooks = { signal: new AbortController().signal, onProgress: () => {} };
    const prepared = await engine.prepare(job, hooks);
    const before = graphs(c.double).length;
    const submitted = await engine.submit(job, prepared, hooks);
    const out: Any = await engine.collect(job, submitted, hooks);
    const sent = graphs(c.double).slice(before)[0];
    const load = ofClass(sent, "LoadImage");
    expect(load).toHaveLength(1);
    expect(load[0].inputs.image).toBe(prepared.inputs.sheet);
    expect(c.double.uploads.map((u) => path.basename(u.name))).toContain(
      path.basename(prepared.inputs.sheet),
    );
    expect(ofClass(sent, "RepeatImageBatch")[0].inputs.amount).toBe(frames);
    expect(ofClass(sent, "LTXVCropGuides")).toHaveLength(1);
    expect(await countFrames(out.video, c.s.env.services.media)).toBe(frames);
    await engine.close();
  });
});
