// The target registry and the grid arithmetic every compile uses (targets 0.1, 1, 1.2; script format 4.4).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkStrictSize,
  FramesOverMax,
  fitSize,
  framesFor,
  snapFrames,
  targetFps,
} from "../lib/targets/grid.ts";
import {
  parseTarget,
  promptWriter,
  shippedRegistry,
  TargetError,
  videoCapabilities,
} from "../lib/targets/registry.ts";
import { loadShowTargets, loadTargetTree, targetsForShow } from "../lib/targets/target-tree.ts";

const shipped = shippedRegistry();
const getTarget = (id: string) => shipped.get(id);

const SHIPPED = [
  "animatic",
  "ltx2",
  "ltx2_ingredients",
  "minimax_h3_fl2va",
  "minimax_h3_ref2va",
  "wan22_i2v",
  "wan22_ti2v",
  "wan22_vace",
];

describe("shipped video targets", () => {
  it("lists the seven reference targets and the animatic, sorted", async () => {
    expect(shipped.ids("video")).toEqual(SHIPPED);
  });

  it("bundles every target.json of the shipped folders, checked as the files on disk read", async () => {
    const onDisk = await loadTargetTree(
      path.dirname(fileURLToPath(import.meta.resolve("../lib/targets/registry.ts"))),
    );
    expect(onDisk.length).toBeGreaterThan(SHIPPED.length);
    expect(shipped.ids()).toEqual(onDisk.map((s) => s.id).sort());
    for (const spec of onDisk) expect(shipped.get(spec.id), spec.id).toEqual(spec);
  });

  it("checks the typed blocks of a target.json, naming the field", () => {
    const base = { id: "x", kind: "video", template: {}, presets: { final: {} } };
    expect(() => parseTarget({ ...base, template: { frames: { step: 0, base: 1, max: 2 } } }, "x")).toThrow(
      /target x: template\.frames\.step/,
    );
    expect(() => parseTarget({ ...base, template: { fps: "fast" } }, "x")).toThrow(/template\.fps/);
    expect(() => parseTarget({ ...base, recipe: { policies: ["loud"] } }, "x")).toThrow(
      /recipe\.policies\.0/,
    );
    expect(() => parseTarget({ ...base, presets: { final: { steps: "8" } } }, "x")).toThrow(
      /presets\.final\.steps/,
    );
    const kept = parseTarget({ ...base, recipe: { policies: ["dub"], extra: 1 } }, "x");
    expect(kept.recipe).toEqual({ policies: ["dub"], extra: 1 });
  });

  it("drops comment keys at every level", async () => {
    const h3 = (await getTarget("minimax_h3_ref2va"))!;
    expect(h3).not.toHaveProperty("_note");
    expect(h3.template).not.toHaveProperty("_fps");
    expect(h3.presets.proxy).not.toHaveProperty("_model");
  });

  it("carries the frame grids, fps and presets of the target catalogue", async () => {
    const grid = async (id: string) => (await getTarget(id))!.template.frames;
    expect(await grid("minimax_h3_ref2va")).toEqual({ step: 17, base: 5, max: 3592 });
    expect(await grid("minimax_h3_fl2va")).toEqual({ step: 17, base: 5, max: 3592 });
    expect(await grid("ltx2")).toEqual({ step: 8, base: 1, max: 481 });
    expect(await grid("ltx2_ingredients")).toEqual({ step: 8, base: 49, max: 481 });
    expect(await grid("wan22_i2v")).toEqual({ step: 4, base: 5, max: 161 });
    expect(await grid("wan22_ti2v")).toEqual({ step: 4, base: 5, max: 241 });
    expect(await grid("wan22_vace")).toEqual({ step: 4, base: 5, max: 161 });
    // Every Wan target is timed at 24 fps (open point 15); H3 Ref2VA and LTX-2 follow the series.
    for (const id of ["wan22_i2v", "wan22_ti2v", "wan22_vace", "minimax_h3_fl2va", "ltx2_ingredients"]) {
      expect((await getTarget(id))!.template.fps).toBe(24);
    }
    expect((await getTarget("minimax_h3_ref2va"))!.template.fps).toBe("series");
    expect((await getTarget("ltx2"))!.template.fps).toBe("series");
    const h3 = (await getTarget("minimax_h3_ref2va"))!;
    expect(h3.presets.final).toMatchObject({ width: 1344, height: 768, steps: 8, ref_image_size: "max" });
    expect(h3.presets.proxy).toMatchObject({ width: 512, height: 288, steps: 4, ref_image_size: "match" });
    expect(h3.presets.final?.base).toEqual({ loras: [], steps: 20, sampler: "res_multistep" });
    expect(h3.continuous).toMatchObject({
      modes: ["latent"],
      first: "minimax_h3_fl2va",
      latent: { overlap: 39 },
    });
    expect(h3.binding).toMatchObject({ workflow_name: "H3_Ref2VA_Shotlist_v1.json", env: "H3_WORKFLOW" });
    expect((await getTarget("wan22_ti2v"))!.presets.proxy).toMatchObject({
      width: 640,
      height: 352,
      steps: 12,
    });
    expect((await getTarget("wan22_vace"))!.presets.proxy?.base).toMatchObject({ steps: 10 });
    expect((await getTarget("ltx2"))!.presets.final).toMatchObject({
      default_seconds: 5,
      min_seconds: 1,
      max_seconds: 20,
    });
  });

  it("describes the animatic as a builtin, model-free target", async () => {
    const a = (await getTarget("animatic"))!;
    expect(a).toMatchObject({
      kind: "video",
      label: "Animatic (timing preview, no model)",
      short: "Animatic",
    });
    expect(a.backend).toBe("builtin");
    expect(a.template).toMatchObject({ fps: "series", size_multiple: 2, size_fit: "snap" });
    expect(a.template.frames).toMatchObject({ step: 1, base: 1 });
    expect(a.recipe).toMatchObject({ policies: ["generate", "silent"], keyframes: ["first"] });
    expect(a.presets.final).toMatchObject({ width: 1344, height: 768, steps: 1, model: null });
    expect(a.presets.proxy).toMatchObject({ width: 448, height: 256, steps: 1 });
  });

  it("derives capabilities and the prompt writer", async () => {
    const caps = videoCapabilities((await getTarget("wan22_i2v"))!);
    expect(caps).toMatchObject({
      requires_first: true,
      audio: "none",
      policy_fallback: "silent",
      prompt: "prose_silent",
    });
    expect(videoCapabilities((await getTarget("minimax_h3_ref2va"))!)).toMatchObject({
      voice_reference: true,
      subject_refs: true,
      prompt: "sections",
      negative_prompt: false,
    });
    expect(promptWriter((await getTarget("minimax_h3_fl2va"))!)).toBe("fields");
    expect(videoCapabilities((await getTarget("ltx2"))!)).toMatchObject({
      duration: "predict",
      negative_prompt: true,
    });
  });
});

describe("parseTarget", () => {
  const minimal = {
    id: "x",
    kind: "video",
    template: { fps: 24 },
    presets: { final: { width: 64, height: 64 } },
  };

  it("requires the folder name to equal the id and the folder kind to equal the kind", () => {
    expect(() => parseTarget(minimal, "y")).toThrow(TargetError);
    expect(() => parseTarget(minimal, "x", "image")).toThrow(/kind 'video'/);
    expect(parseTarget(minimal, "x", "video")).toMatchObject({ id: "x", label: "x", short: "x" });
  });

  it("rejects a video target without a template or presets", () => {
    expect(() => parseTarget({ id: "x", kind: "video", presets: minimal.presets }, "x")).toThrow(/template/);
    expect(() => parseTarget({ id: "x", kind: "video", template: {} }, "x")).toThrow(/presets/);
  });

  it("gives a custom video target the generic prose code", () => {
    expect(parseTarget(minimal, "x", undefined, true)).toMatchObject({
      custom: true,
      code: "builtin:video_prose",
    });
  });
});

describe("custom show targets", () => {
  let show: string;
  beforeAll(async () => {
    show = await mkdtemp(path.join(os.tmpdir(), "targets-show-"));
    const put = async (id: string, body: unknown) => {
      await mkdir(path.join(show, "targets", id), { recursive: true });
      await writeFile(path.join(show, "targets", id, "target.json"), JSON.stringify(body));
    };
    await put("my_model", {
      id: "my_model",
      kind: "video",
      _note: "a comment",
      template: { fps: 30, frames: { step: 4, base: 1, max: 200 } },
      presets: { final: { width: 640, height: 360, steps: 10 } },
    });
    // Same id as a shipped target: never shadows it.
    await put("ltx2", { id: "ltx2", kind: "video", label: "fake", template: {}, presets: { final: {} } });
    await put("broken", { id: "other", kind: "video", template: {}, presets: { final: {} } });
  });
  afterAll(async () => {
    await rm(show, { recursive: true, force: true });
  });

  it("loads the show's own targets, ignores shipped ids and reports broken ones", async () => {
    const { targets, errors } = await loadShowTargets(shipped, show);
    expect(targets.map((t) => t.id)).toEqual(["my_model"]);
    expect(targets[0]).not.toHaveProperty("_note");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/folder name 'broken'/);
    const view = await targetsForShow(shipped, show, null);
    expect(view.ids("video")).toContain("my_model");
    expect(view.get("ltx2")!.label).not.toBe("fake");
    expect(view.get("my_model")!.custom).toBe(true);
  });

  it("has nothing to add for a show without a targets folder", async () => {
    expect((await loadShowTargets(shipped, path.join(show, "nowhere"))).targets).toEqual([]);
    expect(await targetsForShow(shipped, null, null)).toBe(shipped);
  });

  it("reads any kind folder that exists under a tree", async () => {
    const tree = await mkdtemp(path.join(os.tmpdir(), "targets-tree-"));
    await mkdir(path.join(tree, "image", "pic"), { recursive: true });
    await writeFile(
      path.join(tree, "image", "pic", "target.json"),
      JSON.stringify({ id: "pic", kind: "image", presets: { final: {} } }),
    );
    const specs = await loadTargetTree(tree);
    expect(specs.map((s) => [s.id, s.kind])).toEqual([["pic", "image"]]);
    await rm(tree, { recursive: true, force: true });
  });
});

describe("frame grid", () => {
  const h3 = { step: 17, base: 5, max: 3592 };
  const ltx = { step: 8, base: 1, max: 481 };

  it("rounds up onto step·k + base", () => {
    expect(snapFrames(1, h3)).toBe(5);
    expect(snapFrames(6, h3)).toBe(22);
    expect(snapFrames(22, h3)).toBe(22);
    expect(snapFrames(23, h3)).toBe(39);
    expect(snapFrames(72, ltx)).toBe(73);
    expect(snapFrames(0, { step: 8, base: 49, max: 481 })).toBe(49);
  });

  it("converts seconds with round-half-even and checks the maximum", () => {
    expect(framesFor(0.9375, 24, h3)).toEqual({ requested: 22, length: 22 });
    expect(framesFor(1.0625, 24, ltx)).toEqual({ requested: 26, length: 33 }); // 25.5 → 26 (even)
    expect(framesFor(0.001, 24, ltx)).toEqual({ requested: 1, length: 1 });
    expect(framesFor(20, 24, ltx).length).toBe(481);
    expect(() => framesFor(20.1, 24, ltx)).toThrow(FramesOverMax);
  });

  it("takes the series fps only where the template says so", () => {
    expect(targetFps({ fps: "series", default_fps: 24 }, 30)).toBe(30);
    expect(targetFps({ fps: "series", default_fps: 24 }, undefined)).toBe(24);
    expect(targetFps({ fps: "series" }, "25")).toBe(25);
    expect(targetFps({ fps: 24 }, 30)).toBe(24);
  });
});

describe("size fit", () => {
  const ltx = { size_multiple: 64, max_size: { long_side: 1536, pixels: 1048576 } };
  const wan14 = { size_multiple: 16, max_size: { long_side: 1280, pixels: 921600 } };

  it("snaps sizes to the grid like the reference", () => {
    expect(fitSize(480, 272, ltx)).toEqual({ width: 448, height: 256, changed: true });
    expect(fitSize(1920, 1080, ltx)).toEqual({ width: 1344, height: 768, changed: true });
    expect(fitSize(960, 544, ltx)).toEqual({ width: 960, height: 512, changed: true });
    expect(fitSize(1344, 768, wan14)).toEqual({ width: 1264, height: 720, changed: true });
    expect(fitSize(832, 480, wan14)).toEqual({ width: 832, height: 480, changed: false });
    expect(fitSize(10, 10, { size_multiple: 32 })).toEqual({ width: 32, height: 32, changed: true });
  });

  it("names the axis and the two nearest legal values on a strict grid (6.30)", () => {
    const msg = checkStrictSize(1280, 720, 32);
    expect(msg).toContain("height=720");
    expect(msg).toContain("704");
    expect(msg).toContain("736");
    expect(msg).not.toContain("width");
    expect(checkStrictSize(1344, 768, 32)).toBeNull();
  });
});
