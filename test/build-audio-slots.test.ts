// Audio policy, retention and reference slots (script format 4.9, 4.10; test cases 6.12, 6.32–6.36).
import { beforeAll, describe, expect, it } from "vitest";
import type { BuildResult } from "../lib/compile/build.ts";
import { shippedRegistry, type TargetRegistryView } from "../lib/targets/registry.ts";
import { buildError, type CompileOptions, compileText, entryOf, type Raw } from "./support/compile.ts";

let targets: TargetRegistryView;
beforeAll(async () => {
  targets = shippedRegistry();
});

/** `body` (shots) under a one-sequence header, built on H3 Ref2VA. */
const build = (body: string, opts: Omit<CompileOptions, "target"> = {}): BuildResult =>
  compileText(targets, `= e01  T\n# sq01 kitchen\n${body}`, opts);
const entry = (r: BuildResult, id = "sh010") => entryOf(r, id);

const noAudio = (raw: Raw) => {
  delete raw.audio;
};
const withTrack = (raw: Raw) => {
  raw.audio.track = "audio/e01_dialogue.wav";
};

describe("6.12 an audio window times the shot from the recording", () => {
  const body = "## sh010\nwho: ada\nwho: cy\ndur: 3.04\naudio: 1-2.5\ndur: model 3-8\nAda waits.\n";

  it("is 1.5 s → 36 → 39 frames on H3, with the window in the entry", () => {
    const r = build(body, { patch: withTrack });
    const e = entry(r);
    expect(e).toMatchObject({ subjects: ["cy", "ada"], length: 39, audio_in: 1, audio_out: 2.5 });
    expect(e).not.toHaveProperty("duration");
    expect(r.docs.minimax_h3_ref2va.defaults.master_track).toBe("audio/e01_dialogue.wav");
  });

  it("needs audio.track on H3", () => {
    const err = buildError(() => build(body));
    expect(err.message).toMatch(/^shot sh010: /);
    expect(err.message).toContain("audio.track");
    expect(err.key).toBe("audio");
  });
});

describe("6.32 the default audio mode is source_track", () => {
  const body = "## sh010\nwho: ada\ndur: 3.04\nADA: Hi.\n";

  it("asks H3 for a dub, which needs a window", () => {
    const err = buildError(() => build(body, { patch: noAudio }));
    expect(err.message).toMatch(/^shot sh010: policy dub_keep_foley needs an `audio:` window/);
    expect(err.message).toContain('"audio": {"mode": "generate"}');
    expect(err.key).toBe("policy");
  });

  it("falls back to generate on LTX-2, with a note and one summary warning", () => {
    const r = build(
      body.replace("who: ada", "who: ada\ntarget: ltx2") +
        body.replace("sh010", "sh020").replace("who: ada", "who: ada\ntarget: ltx2"),
      {
        patch: noAudio,
      },
    );
    const e = entry(r);
    expect(e).toMatchObject({ audio_policy: "generate", audio_intent: "dub_keep_foley" });
    expect(e.audio_note).toContain("dub_keep_foley");
    expect(e.audio_note).toContain("generate");
    const summary = r.reports.ltx2.warnings.filter((w) => w.includes("asked for dub_keep_foley"));
    expect(summary).toHaveLength(1);
    expect(summary[0]).toContain("sh010, sh020");
    expect(r.docs.ltx2.defaults.audio_policy).toBe("generate");
  });

  it("renders silent on Wan with the acted-silently warning", () => {
    const r = build(body.replace("who: ada", "who: ada\ntarget: wan22_ti2v"), { patch: noAudio });
    const e = entry(r);
    expect(e.audio_policy).toBe("silent");
    expect(e).not.toHaveProperty("audio_intent");
    expect(r.warnings.some((w) => w.includes("acted silently") && w.includes("sh010"))).toBe(true);
    // The silent writer turns the line into acting: no quoted speech, no sound or music sentence.
    expect(e.prompt).toContain("Ada talks with the mouth moving.");
    expect(e.prompt).not.toContain('"Hi."');
    expect(e.prompt).not.toContain("music");
  });

  it("the proxy pass may generate instead (proxy.audio_mode)", () => {
    const r = build(body, {
      pass: "proxy",
      patch: (raw) => {
        noAudio(raw);
        raw.proxy = { audio_mode: "generate" };
      },
    });
    expect(entry(r).audio_policy).toBe("generate");
  });

  it("an unknown policy is an error on every target (open point 7)", () => {
    const err = buildError(() => build("## sh010\ntarget: ltx2\npolicy: silent\ndur: 3\nAda waits.\n"));
    expect(err.message).toContain("policy 'silent' is not one of generate, dub, dub_keep_foley, clone");
    expect(err.key).toBe("policy");
  });

  it("a shot without dialogue generates", () => {
    const r = build("## sh010\ndur: 3\nAda waits.\n", { patch: noAudio });
    expect(entry(r)).toMatchObject({
      audio_policy: "generate",
      audio_retention: "",
      voices: [],
      voice_subject: "",
    });
  });
});

describe("6.33 three subjects on H3", () => {
  it("refuses a fourth subject, naming the shot, the count and the ids", () => {
    const err = buildError(() => build("## sh010\nwho: ada, bo, cy\nwith: kettle\ndur: 3\nThey wait.\n"));
    expect(err.message).toMatch(/^shot sh010: /);
    expect(err.message).toContain("4 subjects");
    expect(err.message).toContain("ada, bo, cy, kettle");
    expect(err.key).toBe("with");
  });

  it("a voice-over speaker costs no picture slot", () => {
    const r = build("## sh010\nwho: ada, bo, cy\ndur: 3\nMOM (V.O.): Dinner!\nThey wait.\n");
    const e = entry(r);
    expect(e).toMatchObject({
      subjects: ["ada", "bo", "cy"],
      background: "refs/_bg/kitchen.png",
      voices: ["mom"],
      voice_subject: "mom",
    });
    expect(e.prompt[0]).toContain("<Picture 3>");
    expect(e.prompt[0]).toContain("<Subject 4> is the location, defined by <Picture 4>");
    expect(Object.keys(r.reports.minimax_h3_ref2va.needed)).toEqual([
      "refs/ada/ada_sheet_4panel.png",
      "refs/bo/bo_sheet_4panel.png",
      "refs/cy/cy_sheet_4panel.png",
      "refs/_bg/kitchen.png",
    ]);
  });

  it("a subject with only a voice cannot be on screen", () => {
    const err = buildError(() => build("## sh010\nwho: mom\ndur: 3\nMom waits.\n"));
    expect(err.message).toMatch(/^shot sh010: mom is on screen but has no design/);
  });

  it("every location a shot uses needs a plate on H3, the sequence's own included", () => {
    const err = buildError(() =>
      build("## sh010\nplate: street\ndur: 3\nAda waits.\n", {
        patch: (raw) => delete raw.locations.kitchen.plate,
      }),
    );
    expect(err.message).toContain("location 'kitchen' has no plate");
    expect(err).toMatchObject({ file: "series", key: "locations.kitchen" });
    const other = build("## sh010\nplate: street\ntarget: ltx2\ndur: 3\nAda waits.\n", {
      patch: (raw) => delete raw.locations.kitchen.plate,
    });
    expect(entry(other).background).toBe("refs/_bg/street.png");
    const unknown = buildError(() => build("## sh010\nplate: attic\ndur: 3\nAda waits.\n"));
    expect(unknown.message).toMatch(/^shot sh010: location 'attic'/);
    expect(unknown.key).toBe("plate");
  });
});

describe("6.34 clone limit", () => {
  const clone = (raw: Raw) => {
    raw.audio.mode = "clone";
  };

  it("refuses a fourth speaker", () => {
    const err = buildError(() =>
      build("## sh010\nwho: ada, bo\ndur: 3\nADA: One.\nBO: Two.\nCY (V.O.): Three.\nMOM (V.O.): Four.\n", {
        patch: clone,
      }),
    );
    expect(err.message).toMatch(/^shot sh010: /);
    expect(err.message).toContain("4 speakers");
    expect(err.message).toContain("3 voice slots");
  });

  it("with four on-screen speakers the subject limit fires first", () => {
    const err = buildError(() =>
      build("## sh010\ndur: 3\nADA: One.\nBO: Two.\nCY: Three.\nGINA: Four.\n", { patch: clone }),
    );
    expect(err.message).toContain("4 subjects");
  });

  it("three speakers get one voice sample each, in order of their first line", () => {
    const withSamples = (raw: Raw) => {
      clone(raw);
      raw.subjects.mom.voice_sample = "refs/voices/mom.wav";
      raw.subjects.ada.voice_sample = "refs/voices/ada.wav";
    };
    const r = build("## sh010\nwho: ada\ndur: 3\nMOM (V.O.): Hi.\nADA: Hello.\n", { patch: withSamples });
    const e = entry(r);
    expect(e).toMatchObject({ audio_policy: "clone", audio_retention: "reference", voices: ["mom", "ada"] });
    expect(e.voice_refs).toEqual([
      { subject: "mom", sample: "refs/voices/mom.wav" },
      { subject: "ada", sample: "refs/voices/ada.wav" },
    ]);
    expect(r.reports.minimax_h3_ref2va.needed["refs/voices/mom.wav"]).toMatchObject({ kind: "voice sample" });
    expect(r.reports.minimax_h3_ref2va.needed["refs/voices/mom.wav"].prompt).toContain('"Hi."');
  });

  it("a speaker without a voice_sample gets an empty sample, no needed file and a warning", () => {
    const r = build("## sh010\nwho: ada\ndur: 3\nMOM (V.O.): Hi.\nADA: Hello.\n", { patch: clone });
    expect(entry(r).voice_refs).toEqual([
      { subject: "mom", sample: "" },
      { subject: "ada", sample: "" },
    ]);
    expect(Object.keys(r.reports.minimax_h3_ref2va.needed).filter((p) => p.includes("voices"))).toEqual([]);
    expect(r.warnings).toContain(
      "sh010: clone: mom has no voice_sample in series.json: its voice slot stays empty until one is picked",
    );
  });
});

describe("6.35 retention rules", () => {
  it("fully_copy on a generate shot is an error", () => {
    const err = buildError(() => build("## sh010\nretention: fully_copy\ndur: 3\nAda waits.\n"));
    expect(err.message).toMatch(/^shot sh010: retention fully_copy/);
    expect(err.key).toBe("retention");
  });

  it("dub takes fully_copy by default, the shot's retention when given", () => {
    const dub = "## sh010\nwho: ada\npolicy: dub\naudio: 0.00-3.10\nADA: Hi.\n";
    expect(entry(build(dub, { patch: withTrack })).audio_retention).toBe("fully_copy");
    const partial = build(dub.replace("policy: dub", "policy: dub\nretention: partially_copy"), {
      patch: withTrack,
    });
    expect(entry(partial).audio_retention).toBe("partially_copy");
    expect(entry(partial).prompt[5]).toBe("non_diegetic_music:\nN/A");
    const fromSeries = build(dub, {
      patch: (raw) => {
        withTrack(raw);
        raw.audio.retention = "reference";
      },
    });
    expect(entry(fromSeries).audio_retention).toBe("reference");
    const badSeries = buildError(() =>
      build(dub, {
        patch: (raw) => {
          withTrack(raw);
          raw.audio.retention = "most";
        },
      }),
    );
    expect(badSeries).toMatchObject({ file: "series", key: "audio.retention" });
  });

  it("dub without a window is an error; fully_copy with foley warns", () => {
    const err = buildError(() =>
      build("## sh010\nwho: ada\npolicy: dub\ndur: 3\nADA: Hi.\n", { patch: withTrack }),
    );
    expect(err.message).toContain("policy dub needs an `audio:` window");
    const foley = build(
      "## sh010\nwho: ada\npolicy: dub_keep_foley\nretention: fully_copy\nsound: rain on the window\naudio: 0-3\nADA: Hi.\n",
      { patch: withTrack },
    );
    expect(foley.warnings.some((w) => w.startsWith("sh010:") && w.includes("fully_copy"))).toBe(true);
  });

  it("an unknown retention word is an error naming the shot", () => {
    const err = buildError(() => build("## sh010\ntarget: ltx2\nretention: most\ndur: 3\nAda waits.\n"));
    expect(err.message).toMatch(/^shot sh010: retention 'most'/);
  });
});

describe("6.36 face or body panel", () => {
  const shot = (who: string, size: string, target = "") =>
    build(`## sh010\n${target ? `target: ${target}\n` : ""}who: ${who}\nsize: ${size}\ndur: 3\nThey wait.\n`);

  it("H3: the face panel only for a single character at cu/mcu/ecu", () => {
    expect(entry(shot("ada", "mcu")).panel_view).toBe("face");
    expect(entry(shot("ada", "ms")).panel_view).toBe("body");
    expect(entry(shot("ada, bo", "close")).panel_view).toBe("body");
    expect(entry(shot("ada", "Extreme Close-Up")).panel_view).toBe("face");
  });

  it("VACE: face only at close/cu", () => {
    const mcu = entry(shot("ada", "mcu", "wan22_vace"));
    expect(mcu.panels).toEqual([
      { subject: "ada", kind: "character", path: "refs/ada/ada_sheet_4panel.png", view: "body" },
    ]);
    expect(entry(shot("ada", "close-up", "wan22_vace")).panels[0].view).toBe("face");
  });

  it("ingredients put the plate last; VACE leaves it off", () => {
    const ing = entry(shot("ada", "ms", "ltx2_ingredients"));
    expect(ing.panels.map((p: Raw) => p.kind)).toEqual(["character", "plate"]);
    expect(ing.prompt).toMatch(/^Reference sheet: /);
    expect(ing.prompt).toContain("\n\nGenerated video: ");
    const vace = entry(shot("ada, kettle", "ms", "wan22_vace"));
    expect(vace.panels.map((p: Raw) => p.subject)).toEqual(["ada", "kettle"]);
    expect(vace.panels[1]).not.toHaveProperty("view");
  });
});
