// Reference defaults and effective settings: the precedence chain (request > view override > ref override >
// episode > series config `refs` > built-in), sizes per shape, seeds, negatives and params per target, and
// whether a reference can be generated here.
import { describe, expect, it } from "vitest";
import {
  canGenerate,
  effectiveRef,
  factsOf,
  keyframeSize,
  type RefDefaults,
  type RefFacts,
  refDefaults,
  stableRefSeed,
} from "../lib/refs/effective.ts";
import type { RefOverride } from "../lib/refs/overrides.ts";
import { parseTarget, registryView, shippedRegistry } from "../lib/targets/registry.ts";

const shipped = shippedRegistry();
const machine = { image: "card", audio: "silence" };
const realMachine = { image: "flux2_klein", audio: "ltx2_voice" };

const krea2 = parseTarget(
  {
    id: "krea2",
    kind: "image",
    label: "Krea 2",
    capabilities: { negative_prompt: true },
    template: { view_size: [1024, 1024], plate_size: [1344, 768], object_size: [1024, 1024] },
    binding: { params: { sampler: {}, scheduler: {}, negative: {} } },
    presets: { final: { model: "krea2_turbo.safetensors", lora: "", steps: 12, cfg: 1.0, sampler: "euler" } },
  },
  "krea2",
  "image",
);
const withKrea = registryView([
  ...["card", "flux2_klein", "flux2_klein_edit", "ltx2_voice", "silence", "animatic"].map(
    (id) => shipped.get(id)!,
  ),
  krea2,
]);

describe("refDefaults", () => {
  it("falls back to the machine's targets on a machine with no image model", () => {
    expect(refDefaults({ episode: undefined, seriesRefs: undefined, machine, registry: shipped })).toEqual({
      target: "card",
      target_source: "default",
      keyframe_target: "card",
      keyframe_target_source: "default",
      voice_target: "silence",
      voice_target_source: "default",
    });
  });

  it("keyframes default to flux2_klein_edit where real images render, else to the references' target", () => {
    // krea2 ships: where real images render it makes the references.
    const d = refDefaults({ episode: "e01", seriesRefs: {}, machine: realMachine, registry: shipped });
    expect(d).toMatchObject({
      target: "krea2",
      target_source: "default",
      keyframe_target: "flux2_klein_edit",
      voice_target: "ltx2_voice",
    });
    // Without krea2 in the registry, the machine's image target makes them.
    const noKrea = registryView(
      shipped
        .ids()
        .filter((id) => id !== "krea2")
        .map((id) => shipped.get(id)!),
    );
    const m = refDefaults({ episode: "e01", seriesRefs: {}, machine: realMachine, registry: noKrea });
    expect(m).toMatchObject({ target: "flux2_klein", keyframe_target: "flux2_klein_edit" });
    // A machine with no image model keeps the built-in card even though krea2 is registered.
    const k = refDefaults({ episode: undefined, seriesRefs: undefined, machine, registry: withKrea });
    expect(k).toMatchObject({ target: "card", keyframe_target: "card", keyframe_target_source: "default" });
  });

  it("series refs beat the built-in, the editor's choice beats both; each with its source", () => {
    const series = { target: "flux2_klein", voice_target: "ltx2_voice" };
    const d = refDefaults({ episode: "e01", seriesRefs: series, machine, registry: shipped });
    expect(d).toEqual({
      target: "flux2_klein",
      target_source: "series",
      keyframe_target: "flux2_klein",
      keyframe_target_source: "default",
      voice_target: "ltx2_voice",
      voice_target_source: "series",
    });
    const editor = { id: "e01", refs_target: "card", keyframe_target: "flux2_klein_edit" };
    const e = refDefaults({ episode: editor, seriesRefs: series, machine, registry: shipped });
    expect(e).toMatchObject({
      target: "card",
      target_source: "editor",
      keyframe_target: "flux2_klein_edit",
      keyframe_target_source: "editor",
      voice_target_source: "series",
    });
  });
});

const defaults: RefDefaults = {
  target: "krea2",
  target_source: "series",
  keyframe_target: "flux2_klein_edit",
  keyframe_target_source: "default",
  voice_target: "ltx2_voice",
  voice_target_source: "default",
};

const ada: RefFacts = {
  id: "subject:ada",
  kind: "character",
  built_prompt: "A character reference sheet of Ada.",
  views: [
    { view: "01_threequarter", built_prompt: "Ada, three-quarter." },
    { view: "02_side", built_prompt: "Ada, side." },
    { view: "03_back", built_prompt: "Ada, back." },
    { view: "04_face", built_prompt: "Ada, face." },
  ],
};
const kitchen: RefFacts = {
  id: "location:kitchen",
  kind: "location",
  built_prompt: "An empty kitchen.",
  views: [],
};
const cup: RefFacts = { id: "subject:cup", kind: "prop", built_prompt: "One cup.", views: [] };
const first: RefFacts = {
  id: "shot:sh010:first",
  kind: "keyframe",
  built_prompt: "The first frame.",
  views: [],
};
const voice: RefFacts = { id: "voice:ada", kind: "voice", built_prompt: "Ada says hello.", views: [] };

describe("effectiveRef", () => {
  it("built-in values: the target's preset, sizes by shape, the stable seed", () => {
    const e = effectiveRef({ ref: kitchen, view: null, override: undefined, defaults, registry: withKrea });
    expect(e).toEqual({
      prompt: "An empty kitchen.",
      seed: String(stableRefSeed("location:kitchen")),
      seed_source: "stable",
      model: "krea2_turbo.safetensors",
      loras: [],
      steps: 12,
      width: 1344,
      height: 768,
      cfg: 1,
      params: { sampler: "euler" },
      negative: null,
      target: "krea2",
    });
    expect(stableRefSeed("location:kitchen")).toBe(stableRefSeed("location:kitchen"));
    expect(stableRefSeed("location:kitchen")).not.toBe(stableRefSeed("location:hall"));
    expect(stableRefSeed("location:kitchen") < 1n << 63n).toBe(true);
    const view = effectiveRef({
      ref: ada,
      view: "02_side",
      override: undefined,
      defaults,
      registry: withKrea,
    });
    expect(view).toMatchObject({ prompt: "Ada, side.", width: 1024, height: 1024 });
    expect(
      effectiveRef({ ref: cup, view: null, override: undefined, defaults, registry: withKrea }),
    ).toMatchObject({ width: 1024, height: 1024 });
  });

  it("request beats the view's override, which beats the ref's, which beats the preset", () => {
    const override: RefOverride = {
      seed: 7n,
      model: "ref.safetensors",
      steps: 20,
      cfg: 3,
      negative: "blur",
      params: { scheduler: "beta" },
      size: "512x768",
      views: { "02_side": { prompt: "Ada in profile.", model: "view.safetensors", seed: 9n } },
    };
    const base = { ref: ada, override, defaults, registry: withKrea };
    const side = effectiveRef({ ...base, view: "02_side" });
    expect(side).toMatchObject({
      prompt: "Ada in profile.",
      seed: "9",
      seed_source: "override",
      model: "view.safetensors",
      steps: 20,
      cfg: 3,
      width: 512,
      height: 768,
      negative: "blur",
      params: { sampler: "euler", scheduler: "beta" },
    });
    const back = effectiveRef({ ...base, view: "03_back" });
    expect(back).toMatchObject({ prompt: "Ada, back.", seed: "7", model: "ref.safetensors" });
    const asked = effectiveRef({
      ...base,
      view: "02_side",
      request: {
        seed: 42n,
        model: "typed.safetensors",
        steps: 4,
        size: "768x768",
        params: { sampler: "dpm" },
      },
    });
    expect(asked).toMatchObject({
      seed: "42",
      seed_source: "typed",
      model: "typed.safetensors",
      steps: 4,
      width: 768,
      params: { sampler: "dpm", scheduler: "beta" },
    });
  });

  it("the target: request > override > the default for the ref's kind; a target without a negative has none", () => {
    const override: RefOverride = { target: "card", negative: "blur" };
    expect(effectiveRef({ ref: cup, view: null, override, defaults, registry: withKrea })).toMatchObject({
      target: "card",
      negative: null,
      params: {},
      model: null,
    });
    expect(
      effectiveRef({
        ref: cup,
        view: null,
        override,
        defaults,
        registry: withKrea,
        request: { target: "krea2" },
      }),
    ).toMatchObject({ target: "krea2", negative: "blur" });
    expect(
      effectiveRef({ ref: first, view: null, override: undefined, defaults, registry: withKrea }).target,
    ).toBe("flux2_klein_edit");
    expect(
      effectiveRef({ ref: voice, view: null, override: undefined, defaults, registry: withKrea }),
    ).toMatchObject({
      target: "ltx2_voice",
      width: null,
      height: null,
    });
  });

  it("a keyframe is made at its shot's size scaled up onto the target's grid", () => {
    const klein = shipped.get("flux2_klein_edit");
    expect(keyframeSize({ width: 640, height: 360 }, klein)).toEqual({ width: 1184, height: 672 });
    expect(keyframeSize({ width: 1920, height: 1080 }, klein)).toEqual({ width: 1920, height: 1088 });
    const e = effectiveRef({
      ref: first,
      view: null,
      override: undefined,
      defaults,
      registry: withKrea,
      shotSize: { width: 640, height: 360 },
    });
    expect(e).toMatchObject({ width: 1184, height: 672 });
  });
});

describe("canGenerate", () => {
  it("needs an image target that is installed; voices are imported", () => {
    expect(canGenerate(kitchen, "card", shipped)).toEqual({ can_generate: true, why_not: null });
    expect(canGenerate(kitchen, "krea2", shipped)).toEqual({ can_generate: true, why_not: null });
    const missing = canGenerate(kitchen, "sdxl_refs", shipped);
    expect(missing.can_generate).toBe(false);
    expect(missing.why_not).toMatch(
      /^the image target sdxl_refs is not installed here \(image targets: card, flux2_klein, .*krea2.*\)$/,
    );
    expect(canGenerate(kitchen, "animatic", shipped).why_not).toMatch(/animatic is a video target/);
    expect(canGenerate(voice, "ltx2_voice", shipped)).toEqual({
      can_generate: false,
      why_not: "voices are not generated: import a recording for this voice",
    });
  });
});

describe("factsOf", () => {
  it("reads a catalog reference's wording as the built prompts", () => {
    const listed = {
      ref: { id: "subject:ada" },
      kind: "character",
      prompt: "A character reference sheet of Ada.",
      views: ada.views.map((v) => ({ view: v.view, prompt: v.built_prompt })),
    };
    expect(factsOf(listed)).toEqual(ada);
  });
});
