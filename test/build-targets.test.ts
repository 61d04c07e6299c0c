// Target choice, settings layering, pass sizes and the build outputs (script format 4.1, 4.3–4.7, 4.14, 5.3).

import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BuildError, type BuildResult, buildEpisode, compileOneShot } from "../lib/compile/build.ts";
import { shotlistFileName, writeBuildOutputs } from "../lib/compile/write.ts";
import { pyJson } from "../lib/script/canonical.ts";
import { parseScript, shotSeed, storyHash, storyToJson } from "../lib/script/index.ts";
import { shippedRegistry, type TargetRegistryView } from "../lib/targets/registry.ts";
import {
  buildError,
  type CompileOptions,
  compileText,
  entryOf,
  prepare,
  type Raw,
} from "./support/compile.ts";

let targets: TargetRegistryView;
beforeAll(async () => {
  targets = shippedRegistry();
});

const build = (text: string, opts: CompileOptions = {}): BuildResult => compileText(targets, text, opts);
const entry = entryOf;

const S627 = `= e01  T
# sq01 kitchen
## sh010
who: ada
dur: 3.04
Ada waits.
## sh020
target: minimax_h3_ref2va
continuous: first
who: ada
dur: 3.04
Ada keeps waiting.
`;

describe("6.27 continuation and a named target", () => {
  it("refuses a named target that cannot render the mode, listing the capable ones", () => {
    const err = buildError(() => build(S627));
    expect(err.message).toMatch(/^shot sh020: /);
    expect(err.message).toContain("continuous: first");
    expect(err.message).toContain("minimax_h3_ref2va");
    expect(err.message).toContain("ltx2, minimax_h3_fl2va, wan22_i2v, wan22_ti2v, wan22_vace");
    expect(err.message).not.toContain("ltx2_ingredients");
    expect(err).toMatchObject({ shot: "sh020", key: "target", file: "script" });
  });

  it("switches to the partner when the shot names no target", () => {
    const r = build(S627.replace("target: minimax_h3_ref2va\n", ""));
    expect(r.shotTargets).toEqual({ sh010: "minimax_h3_ref2va", sh020: "minimax_h3_fl2va" });
    expect(r.docs.minimax_h3_fl2va.shots.map((s) => s.id)).toEqual(["sh020"]);
    expect(shotlistFileName("minimax_h3_fl2va", r.seriesTarget, "final")).toBe(
      "shotlist.minimax_h3_fl2va.json",
    );
    expect(entry(r, "sh020").keyframes).toEqual({
      first: "refs/shots/sh020/first.png",
      last: "refs/shots/sh020/last.png",
    });
  });

  it("a profile or sequence target does not count as naming one (6.10 targets)", () => {
    const text = `= e01  T
# sq01 kitchen
continuous: first
## sh010
Ada waits.
dur: 3
## sh020
continuous: none
dur: 3
Ada waits.
## sh030
first: continuity
continuous: latent
dur: 3
Ada waits.
# sq02 street
continuous: yes
## sh040
first: continuity
dur: 3
Ada waits.
`;
    const r = build(text);
    expect(r.shotTargets).toEqual({
      sh010: "minimax_h3_ref2va",
      sh020: "minimax_h3_ref2va",
      sh030: "minimax_h3_ref2va",
      sh040: "minimax_h3_fl2va",
    });
    // The three legacy notes are reported as warnings on the series target.
    const legacy = r.reports.minimax_h3_ref2va.warnings.filter((w) => /line (12|17|19)\b/.test(w));
    expect(legacy).toHaveLength(3);
  });
});

const S628 = `= e01  T
# sq01 kitchen
profile: quality
## sh010
dur: 3.04
Ada waits.
## sh020
target: wan22_ti2v
dur: 3.04
Ada waits.
# sq02 street
## sh030
dur: 3.04
Ada waits.
`;
const quality = (raw: Raw) => {
  raw.profiles = { quality: { target: "ltx2" } };
};

describe("6.28 target precedence", () => {
  it("shot line, then profile, then the series target", () => {
    const r = build(S628, { patch: quality });
    expect(r.shotTargets).toEqual({ sh010: "ltx2", sh020: "wan22_ti2v", sh030: "minimax_h3_ref2va" });
    expect(Object.keys(r.docs)).toEqual(["minimax_h3_ref2va", "ltx2", "wan22_ti2v"]);
    expect(r.docs.minimax_h3_ref2va.shots.map((s) => s.id)).toEqual(["sh030"]);
    expect(r.docs.minimax_h3_ref2va).not.toHaveProperty("target");
    expect(r.docs.minimax_h3_ref2va.prompt_prefix).toBe("");
    expect(r.docs.ltx2.target).toBe("ltx2");
    expect(r.docs.ltx2).not.toHaveProperty("prompt_prefix");
    expect(entry(r, "sh010").profile).toBe("quality");
    expect(r.reports.ltx2).toMatchObject({ shots: 1, sequences: 1, target: "ltx2" });
    expect(r.reports.minimax_h3_ref2va).toMatchObject({ shots: 1, sequences: 1 });
  });

  it("an unknown target on a shot lists the known video targets", () => {
    const err = buildError(() =>
      build(S628.replace("target: wan22_ti2v", "target: ltx_2_3"), { patch: quality }),
    );
    expect(err.message).toMatch(/^shot sh020: target 'ltx_2_3' is not a video target \(known: /);
    expect(err.message).toContain("minimax_h3_ref2va, wan22_i2v");
    expect(err).toMatchObject({ shot: "sh020", key: "target" });
  });

  it("an unknown profile names it and lists the known ones", () => {
    const err = buildError(() =>
      build(S628.replace("profile: quality", "profile: fast"), { patch: quality }),
    );
    expect(err.message).toMatch(/^sequence sq01: profile 'fast'/);
    expect(err.message).toContain("quality");
    expect(err).toMatchObject({ sequence: "sq01", key: "profile" });
    const none = buildError(() => build(S628.replace("profile: quality", "profile: fast")));
    expect(none.message).toContain("has no profiles");
  });

  it("series.target picks the series target; the machine default applies only when nothing names one", () => {
    const plain = `= e01  T\n# sq01 kitchen\n## sh010\ndur: 3.04\nAda waits.\n`;
    const animatic = build(plain, { target: "animatic" });
    expect(animatic.seriesTarget).toBe("animatic");
    expect(animatic.shotTargets.sh010).toBe("animatic");
    const named = build(plain, { target: "animatic", patch: (raw) => (raw.series.target = "ltx2") });
    expect(named.seriesTarget).toBe("ltx2");
    expect(Object.keys(named.docs)).toEqual(["ltx2"]);
    const bad = buildError(() => build(plain, { patch: (raw) => (raw.series.target = "nope") }));
    expect(bad).toMatchObject({ file: "series", key: "series.target" });
  });

  it("compiles the series target even with zero shots", () => {
    const r = build(`= e01  T\n# sq01 kitchen\n## sh010\ntarget: ltx2\ndur: 3\nAda waits.\n`);
    expect(r.docs.minimax_h3_ref2va.shots).toEqual([]);
    expect(r.reports.minimax_h3_ref2va.shots).toBe(0);
    expect(Object.keys(r.docs)[0]).toBe("minimax_h3_ref2va");
  });
});

describe("series.json blocks the build checks", () => {
  const one = `= e01  T\n# sq01 kitchen\n## sh010\ndur: 3.04\nAda waits.\n`;

  it("a bad refs block fails an H3 build, naming the key", () => {
    expect(buildError(() => build(one, { patch: (raw) => (raw.refs = "krea2") }))).toMatchObject({
      file: "series",
      key: "refs",
    });
    const err = buildError(() => build(one, { patch: (raw) => (raw.refs = { voice_target: 5 }) }));
    expect(err.message).toContain("refs.voice_target");
    expect(err.key).toBe("refs.voice_target");
    // Image targets are not shipped yet: a named one is taken on trust.
    expect(build(one, { patch: (raw) => (raw.refs = { target: "krea2" }) }).ok).toBe(true);
  });

  it("an invalid speech.pace or a bad profiles block is a series.json error", () => {
    const pace = buildError(() => build(one, { patch: (raw) => (raw.speech = { pace: "brisk" }) }));
    expect(pace).toMatchObject({ file: "series", key: "speech.pace" });
    expect(pace.message).toContain("series.json");
    const prof = buildError(() => build(one, { patch: (raw) => (raw.profiles = { q: { colour: "red" } }) }));
    expect(prof).toMatchObject({ file: "series", key: "profiles.q" });
    const target = buildError(() =>
      build(one, { patch: (raw) => (raw.profiles = { q: { target: "nope" } }) }),
    );
    expect(target.message).toContain("profile 'q': target 'nope' is not a video target");
  });
});

describe("6.29 settings layering", () => {
  const profile = (raw: Raw) => {
    raw.profiles = {
      dialogue_close: {
        model: "h3_faces.safetensors",
        loras: ["turbo_8step.safetensors", "soft.safetensors:0.6"],
        steps: 8,
      },
    };
  };
  const text = `= e01  T
# sq01 kitchen
profile: dialogue_close
## sh010
steps: 9
dur: 3.04
Ada waits.
## sh020
lora: other.safetensors
dur: 3.04
Ada waits.
`;

  it("layers profile and lines into the entries", () => {
    const r = build(text, { patch: profile });
    const a = entry(r, "sh010");
    expect(a).toMatchObject({ model: "h3_faces.safetensors", steps: 9, profile: "dialogue_close" });
    expect(a.loras).toEqual([
      { name: "turbo_8step.safetensors", strength: 1 },
      { name: "soft.safetensors", strength: 0.6 },
    ]);
    expect(a).not.toHaveProperty("lora");
    const b = entry(r, "sh020");
    expect(b).toMatchObject({
      model: "h3_faces.safetensors",
      lora: "other.safetensors",
      steps: 8,
      profile: "dialogue_close",
    });
    expect(b).not.toHaveProperty("loras");
    // Settings come after the prompt, before the timing.
    const keys = Object.keys(a);
    expect(keys.slice(keys.indexOf("prompt"))).toEqual(["prompt", "model", "loras", "profile", "duration"]);
  });

  it("warns once per shot-level value and for steps that differ from the pass", () => {
    const r = build(text, { patch: profile });
    const w = r.warnings;
    expect(w).toContain("sh010 overrides model: h3_faces.safetensors");
    expect(w).toContain("sh010 overrides loras: turbo_8step.safetensors@1, soft.safetensors@0.6");
    expect(w).toContain("sh010 overrides steps: 9");
    expect(w).toContain("sh020 overrides model: h3_faces.safetensors");
    expect(w).toContain("sh020 overrides lora: other.safetensors");
    expect(w.some((x) => x.startsWith("sh020 overrides steps"))).toBe(false);
    expect(w.some((x) => x.startsWith("sh010:") && x.includes("turbo_8step") && x.includes("9"))).toBe(true);
  });

  it("takes the series pass block only on the series target", () => {
    const t = `= e01  T\n# sq01 kitchen\n## sh010\ndur: 3\nAda waits.\n## sh020\ntarget: ltx2\ndur: 3\nAda waits.\n`;
    const r = build(t, {
      patch: (raw) => {
        raw.series.steps = 6;
        raw.series.model = "mine.safetensors";
        raw.series.lora = "none";
      },
    });
    expect(r.docs.minimax_h3_ref2va.defaults).toMatchObject({
      steps: 6,
      model: "mine.safetensors",
      lora: "none",
    });
    expect(r.docs.ltx2.defaults).toMatchObject({
      steps: 8,
      model: "ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors",
    });
    const proxy = build(t, { pass: "proxy", patch: (raw) => (raw.series.model = "mine.safetensors") });
    // Proxy model: proxy.model, else series.model, else the preset's.
    expect(proxy.docs.minimax_h3_ref2va.defaults.model).toBe("mine.safetensors");
    expect(proxy.docs.ltx2.defaults.model).toBe(
      "ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors",
    );
  });

  it("a non-integer steps line is an error naming the shot", () => {
    const err = buildError(() =>
      build(`= e01  T\n# sq01 kitchen\n## sh010\nsteps: eight\ndur: 3\nAda waits.\n`),
    );
    expect(err.message).toMatch(/^shot sh010: steps 'eight' must be a whole number/);
    expect(err.key).toBe("steps");
  });
});

describe("pass sizes", () => {
  const one = (target: string) =>
    `= e01  T\n# sq01 kitchen\n## sh010\ntarget: ${target}\ndur: 3\nAda waits.\n`;
  const size = (r: BuildResult, t: string) => [r.docs[t].defaults.width, r.docs[t].defaults.height];

  it("6.30 H3 refuses a size off its 32 grid, naming the axis and the nearest legal values", () => {
    const err = buildError(() =>
      build(one("minimax_h3_ref2va"), {
        patch: (raw) => {
          raw.series.width = 1280;
          raw.series.height = 720;
        },
      }),
    );
    expect(err.message).toContain("series.json");
    expect(err.message).toContain("height=720");
    expect(err.message).toContain("704");
    expect(err.message).toContain("736");
    expect(err).toMatchObject({ file: "series", key: "series.height" });
  });

  it("6.31 LTX-2 as the series target snaps the pass sizes, with a warning", () => {
    const patch = (raw: Raw) => {
      raw.series.target = "ltx2";
      raw.proxy = { width: 480, height: 272 };
    };
    const proxy = build(one("ltx2"), { patch, pass: "proxy" });
    expect(size(proxy, "ltx2")).toEqual([448, 256]);
    expect(proxy.warnings.some((w) => w.includes("480x272") && w.includes("448x256"))).toBe(true);
    const final = build(one("ltx2"), {
      patch: (raw) => {
        patch(raw);
        raw.series.width = 1920;
        raw.series.height = 1080;
      },
    });
    expect(size(final, "ltx2")).toEqual([1344, 768]);
    expect(final.reports.ltx2.resolution).toBe("1344x768");
  });

  it("6.31 LTX-2 as another target still takes the pass block size", () => {
    const r = build(one("ltx2"), {
      patch: (raw) => {
        raw.series.width = 960;
        raw.series.height = 544;
      },
    });
    expect(size(r, "ltx2")).toEqual([960, 512]);
    expect(size(r, "minimax_h3_ref2va")).toEqual([960, 544]);
  });

  it("6.31 Wan takes the pass block only as the series target; ingredients always its preset", () => {
    const series = build(one("wan22_i2v"), { patch: (raw) => (raw.series.target = "wan22_i2v") });
    expect(size(series, "wan22_i2v")).toEqual([1264, 720]);
    const other = build(one("wan22_i2v"));
    expect(size(other, "wan22_i2v")).toEqual([832, 480]);
    const otherProxy = build(one("wan22_i2v"), {
      pass: "proxy",
      patch: (raw) => (raw.proxy = { width: 1024, height: 576 }),
    });
    expect(size(otherProxy, "wan22_i2v")).toEqual([640, 352]);
    const ing = build(one("ltx2_ingredients"), { patch: (raw) => (raw.series.target = "ltx2_ingredients") });
    expect(size(ing, "ltx2_ingredients")).toEqual([768, 448]);
    const ingProxy = build(one("ltx2_ingredients"), {
      pass: "proxy",
      patch: (raw) => (raw.proxy = { width: 448, height: 256 }),
    });
    expect(size(ingProxy, "ltx2_ingredients")).toEqual([512, 288]);
  });

  it("6.31 no proxy block on H3: the preset's 512x288 at 4 steps", () => {
    const r = build(one("minimax_h3_ref2va"), { pass: "proxy" });
    expect(r.docs.minimax_h3_ref2va.defaults).toMatchObject({
      width: 512,
      height: 288,
      steps: 4,
      ref_image_size: "match",
    });
    expect(r.reports.minimax_h3_ref2va).toMatchObject({ mode: "proxy", resolution: "512x288", steps: 4 });
  });
});

describe("shot-list documents", () => {
  it("H3 defaults and subjects carry the documented keys in order", () => {
    const r = build(`= e01  T\n# sq01 kitchen\n## sh010\nwho: ada\ndur: 3.04\nAda waits.\n`);
    const doc = r.docs.minimax_h3_ref2va;
    expect(Object.keys(doc)).toEqual(["episode", "title", "prompt_prefix", "defaults", "subjects", "shots"]);
    expect(Object.keys(doc.defaults)).toEqual([
      "width",
      "height",
      "steps",
      "model",
      "lora",
      "sheet_panels",
      "ref_image_size",
      "audio_policy",
      "master_track",
    ]);
    expect(Object.keys(doc.subjects)).toEqual(["ada", "bo", "cy", "mom", "gina", "gina_towel", "kettle"]);
    expect(doc.subjects.kettle).toEqual({ kind: "prop", sheet: "refs/props/kettle.png", voice_sample: "" });
    const e = doc.shots[0];
    expect(Object.keys(e)).toEqual([
      "id",
      "sequence",
      "subjects",
      "background",
      "size",
      "panels",
      "panel_view",
      "length",
      "seed",
      "steps",
      "audio_policy",
      "audio_retention",
      "voices",
      "voice_subject",
      "voice_refs",
      "prompt",
      "duration",
    ]);
    expect(e.seed).toBe(shotSeed("e01", "sq01", "sh010"));
    expect(typeof e.seed).toBe("bigint");
    const prompt = e.prompt as string[];
    expect(prompt.map((p) => p.split(":\n")[0])).toEqual([
      "subject_definitions",
      "summary",
      "retention_analysis",
      "detailed_description",
      "overall_soundscape",
      "non_diegetic_music",
    ]);
    expect(prompt[0]).toContain("<Subject 1> is Ada, defined by <Picture 1>");
    expect(prompt[0]).toContain("<Picture 4>");
  });

  it("prose targets write fps, the preset extras and one prompt string", () => {
    const r = build(
      `= e01  T\n# sq01 kitchen\n## sh010\ntarget: wan22_i2v\nwho: ada\ncamera: pushes in\ndur: 3\nAda waits.\n`,
    );
    const doc = r.docs.wan22_i2v;
    expect(Object.keys(doc)).toEqual(["episode", "title", "target", "defaults", "subjects", "shots"]);
    expect(doc.defaults).toMatchObject({ fps: 24, audio_policy: "silent", cfg: 1, shift: 5, split: 0.5 });
    expect(doc.defaults.loras).toHaveLength(2);
    expect(doc.defaults).not.toHaveProperty("base");
    const e = doc.shots[0];
    expect(typeof e.prompt).toBe("string");
    expect(e.prompt).toContain("a flat 2D cartoon".replace(/^a/, "A"));
    expect(e.prompt).toContain("The camera pushes in.");
    expect(e.negative).toContain("色调艳丽");
    expect(e.keyframes).toEqual({ first: "refs/shots/sh010/first.png", last: "refs/shots/sh010/last.png" });
    expect(r.warnings.some((w) => w.includes("needs a first frame for every shot"))).toBe(true);
    expect(r.reports.wan22_i2v.blocked_shots["refs/shots/sh010/first.png"]).toEqual(["sh010"]);
  });

  it("an end turned off by `none` is left out, except a required one", () => {
    const text = `= e01  T\n# sq01 kitchen\nlast: none\n## sh010\ntarget: wan22_i2v\nfirst: none\ndur: 3\nAda waits.\n## sh020\ntarget: ltx2\nfirst: none\ndur: 3\nAda waits.\n`;
    const r = build(text);
    expect(entry(r, "sh010").keyframes).toEqual({ first: "refs/shots/sh010/first.png" });
    expect(entry(r, "sh020").keyframes).toEqual({});
  });
});

describe("the animatic target", () => {
  const text = `= e01  T\n# sq01 kitchen\n## sh010\nwho: ada\ndur: 1\nADA: Hi.\n## sh020\ncontinuous: latent\ndur: 3.04\nAda waits.\n`;

  it("times every frame exactly at the series fps and size", () => {
    const r = build(text, { target: "animatic", patch: (raw) => (raw.series.fps = 25) });
    expect(r.seriesTarget).toBe("animatic");
    const doc = r.docs.animatic;
    expect(doc.target).toBe("animatic");
    expect(doc.defaults).toMatchObject({ width: 1344, height: 768, fps: 25, steps: 1, model: null });
    expect(entry(r, "sh010").length).toBe(25);
    expect(entry(r, "sh020").length).toBe(76);
    expect(entry(r, "sh020")).not.toHaveProperty("hold");
    expect(entry(r, "sh010")).not.toHaveProperty("negative");
    const proxy = build(text, { target: "animatic", pass: "proxy" });
    expect(proxy.docs.animatic.defaults).toMatchObject({ width: 448, height: 256 });
  });

  it("falls back to generate for a recording policy, with a note", () => {
    const r = build(text, { target: "animatic", patch: (raw) => delete raw.audio });
    expect(entry(r, "sh010")).toMatchObject({ audio_policy: "generate", audio_intent: "dub_keep_foley" });
    expect(entry(r, "sh010").audio_note).toContain("Animatic");
  });

  it("snaps an odd series size to even sides", () => {
    const r = build(text, {
      target: "animatic",
      patch: (raw) => {
        raw.series.width = 1001;
        raw.series.height = 563;
      },
    });
    expect(r.docs.animatic.defaults).toMatchObject({ width: 1000, height: 562 });
  });
});

describe("compileOneShot", () => {
  const text = `= e01  T
# sq01 kitchen
continuous: latent
## sh010
who: ada
dur: 3.04
Ada waits.
## sh020
who: ada
size: mcu
dur: 5.17
ADA: It rained all night and nobody saw it but me.
`;

  it("gives the entry the full build gives, with the shot's warnings only", () => {
    const { series, story } = prepare(text);
    const full = buildEpisode({ story, series, pass: "proxy", defaultTarget: "minimax_h3_ref2va", targets });
    const one = compileOneShot(story, series, "sh020", "proxy", {
      defaultTarget: "minimax_h3_ref2va",
      targets,
    });
    expect(one.target).toBe("minimax_h3_ref2va");
    expect(one.entry).toEqual(entry(full, "sh020"));
    expect(one.entry.hold).toBe(39);
    expect([one.width, one.height, one.fps]).toEqual([512, 288, 24]);
    expect(one.warnings.every((w) => /\bsh020\b/.test(w))).toBe(true);
  });

  it("previews another target on its own grid and size", () => {
    const { series, story } = prepare(text);
    const opts = { defaultTarget: "minimax_h3_ref2va", targets };
    const h3 = compileOneShot(story, series, "sh010", "proxy", opts);
    const wan = compileOneShot(story, series, "sh010", "proxy", { ...opts, target: "wan22_ti2v" });
    expect([h3.width, h3.height, h3.entry.length]).toEqual([512, 288, 73]);
    expect([wan.target, wan.width, wan.height, wan.entry.length]).toEqual(["wan22_ti2v", 640, 352, 73]);
    expect(wan.entry.seed).toBe(h3.entry.seed);
    const err = buildError(() =>
      compileOneShot(story, series, "sh010", "proxy", { ...opts, target: "ltx_2_3" }),
    );
    expect(err.message).toContain("not a video target");
    expect(() => compileOneShot(story, series, "sh999", "final", opts)).toThrow(BuildError);
  });
});

describe("shotlistFileName", () => {
  it("names the series target's and the others' files per pass", () => {
    expect(shotlistFileName("ltx2", "ltx2", "final")).toBe("shotlist.json");
    expect(shotlistFileName("ltx2", "ltx2", "proxy")).toBe("shotlist_proxy.json");
    expect(shotlistFileName("wan22_ti2v", "ltx2", "final")).toBe("shotlist.wan22_ti2v.json");
    expect(shotlistFileName("wan22_ti2v", "ltx2", "proxy")).toBe("shotlist.wan22_ti2v_proxy.json");
  });
});

describe("shot-list JSON (pyJson)", () => {
  const none: ReadonlySet<string> = new Set();
  const toJson = (v: unknown, indent: number | undefined = 2, o: { floatKeys?: ReadonlySet<string> } = {}) =>
    pyJson(v, { indent: indent || undefined, floatKeys: o.floatKeys ?? none });
  it("writes bigint as an exact integer literal and keeps non-ASCII", () => {
    const seed = 6290346879385008131n;
    expect(toJson({ seed, name: "色调 Élodie" })).toBe(
      '{\n  "seed": 6290346879385008131,\n  "name": "色调 Élodie"\n}',
    );
    const plain = { a: [1, { b: null, c: [] }], d: {}, e: 'x\n"y"', f: undefined, g: 0.5 };
    expect(toJson(plain)).toBe(JSON.stringify(plain, null, 2));
    expect(toJson(plain, 0)).toBe(JSON.stringify(plain));
    expect(
      toJson({ duration: 3, strength: [1, 0.6], steps: 8 }, 2, {
        floatKeys: new Set(["duration", "strength"]),
      }),
    ).toBe('{\n  "duration": 3.0,\n  "strength": [\n    1.0,\n    0.6\n  ],\n  "steps": 8\n}');
  });
});

describe("writeBuildOutputs", () => {
  let ep: string;
  beforeAll(async () => {
    ep = await mkdtemp(path.join(os.tmpdir(), "build-out-"));
  });
  afterAll(async () => {
    await rm(ep, { recursive: true, force: true });
  });

  it("writes every file of the pass, removes stale target lists and is stable across rebuilds", async () => {
    const text = S628.replace("## sh030\n", "## sh030\nwho: ada\n");
    const { series, story } = prepare(text, { patch: quality });
    const input = { story, series, defaultTarget: "minimax_h3_ref2va", targets };
    await mkdir(path.join(ep, "shotlist"), { recursive: true });
    await mkdir(path.join(ep, "refs", "_bg"), { recursive: true });
    await writeFile(path.join(ep, "refs", "_bg", "street.png"), "png");
    await writeFile(path.join(ep, "shotlist", "shotlist.wan22_i2v.json"), "{}");
    await writeFile(path.join(ep, "shotlist", "shotlist.wan22_i2v_proxy.json"), "{}");

    const first = buildEpisode({ ...input, pass: "final" });
    const out = await writeBuildOutputs(ep, "final", first, storyToJson(story));
    expect(out.deleted).toEqual(["shotlist/shotlist.wan22_i2v.json"]);
    expect((await readdir(path.join(ep, "shotlist"))).sort()).toEqual([
      "shotlist.json",
      "shotlist.ltx2.json",
      "shotlist.wan22_i2v_proxy.json",
      "shotlist.wan22_ti2v.json",
      "shots.json",
    ]);
    const top = (await readdir(ep)).sort();
    expect(top).toEqual(expect.arrayContaining(["refs_todo.json", "refs_todo.md"]));
    expect(top).not.toContain("refs_todo_proxy.json");

    const todo = JSON.parse(await readFile(path.join(ep, "refs_todo.json"), "utf8"));
    const byPath = Object.fromEntries(todo.map((t: Raw) => [t.path, t]));
    expect(byPath["refs/_bg/street.png"]).toMatchObject({
      kind: "background plate",
      exists: true,
      blocks_shots: ["sh030"],
    });
    expect(byPath["refs/ada/ada_sheet_4panel.png"]).toMatchObject({ kind: "character sheet", exists: false });
    expect(Object.keys(todo[0])).toEqual(["path", "kind", "prompt", "size_hint", "exists", "blocks_shots"]);
    const md = await readFile(path.join(ep, "refs_todo.md"), "utf8");
    expect(md).toContain("refs/ada/ada_sheet_4panel.png");
    expect(md).not.toContain("## refs/_bg/street.png");

    // Seeds are exact 63-bit integer literals in the file.
    const text1 = await readFile(path.join(ep, "shotlist", "shotlist.json"), "utf8");
    const seed = shotSeed("e01", "sq02", "sh030");
    expect(seed > 2n ** 53n).toBe(true);
    expect(text1).toContain(`"seed": ${seed},`);
    expect(text1).toContain('"duration": 3.04');
    expect(await readFile(path.join(ep, "shotlist", "shots.json"), "utf8")).toBe(storyToJson(story));

    // A rebuild of the unchanged script gives every shot the same story hash and seed, and the same bytes.
    const again = parseScript(text, series).story;
    const second = buildEpisode({ ...input, story: again, pass: "final" });
    for (const id of ["sh010", "sh020", "sh030"]) {
      expect(storyHash(entry(second, id))).toBe(storyHash(entry(first, id)));
      expect(entry(second, id).seed).toBe(entry(first, id).seed);
    }
    await writeBuildOutputs(ep, "final", second, storyToJson(again));
    expect(await readFile(path.join(ep, "shotlist", "shotlist.json"), "utf8")).toBe(text1);

    // The proxy pass writes its own twins and only ever removes proxy lists.
    const proxy = buildEpisode({ ...input, pass: "proxy" });
    const pout = await writeBuildOutputs(ep, "proxy", proxy, storyToJson(story));
    expect(pout.deleted).toEqual(["shotlist/shotlist.wan22_i2v_proxy.json"]);
    const names = await readdir(path.join(ep, "shotlist"));
    expect(names).toEqual(
      expect.arrayContaining(["shotlist.json", "shotlist_proxy.json", "shotlist.ltx2_proxy.json"]),
    );
    expect(await readdir(ep)).toEqual(expect.arrayContaining(["refs_todo_proxy.json", "refs_todo_proxy.md"]));
  });
});

describe("a long episode", () => {
  it("builds a 300-shot script on three targets, both passes (timing: npm run bench)", () => {
    const lines = ["= e01  Long"];
    for (let q = 0; q < 30; q++) {
      lines.push(`# sq${q} ${q % 2 ? "kitchen" : "street"}`);
      for (let s = 0; s < 10; s++) {
        const t = s % 3 === 0 ? "" : s % 3 === 1 ? "target: ltx2\n" : "target: wan22_vace\n";
        lines.push(
          `## sh${q}_${s}\n${t}who: ${s % 2 ? "ada" : "bo"}\nsize: ${s % 2 ? "cu" : "ws"}\ndur: ${2 + (s % 4)}\n` +
            `${s % 2 ? "ADA" : "BO"}: Line number ${s} of sequence ${q}, spoken clearly.\nThey move across the room.`,
        );
      }
    }
    const { series, story } = prepare(lines.join("\n"));
    const input = { story, series, defaultTarget: "minimax_h3_ref2va", targets };
    const a = buildEpisode({ ...input, pass: "final" });
    const b = buildEpisode({ ...input, pass: "proxy" });
    expect(Object.values(a.docs).reduce((n, d) => n + d.shots.length, 0)).toBe(300);
    expect(Object.values(b.docs).reduce((n, d) => n + d.shots.length, 0)).toBe(300);
    expect(Object.keys(a.docs).sort()).toEqual(["ltx2", "minimax_h3_ref2va", "wan22_vace"]);
  });
});
