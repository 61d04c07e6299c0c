// Shot lengths through the whole build (script format 4.6, 4.12, 4.13; test cases 6.15–6.22, 6.24).
import { beforeAll, describe, expect, it } from "vitest";
import { BuildError, paceReport } from "../lib/compile/build.ts";
import { parseScript } from "../lib/script/index.ts";
import { loadSeries } from "../lib/series/index.ts";
import { shippedRegistry, type TargetRegistryView } from "../lib/targets/registry.ts";
import { buildError, type CompileOptions, compileText, entryOf } from "./support/compile.ts";
import { seriesS } from "./support/series-s.ts";

let targets: TargetRegistryView;
beforeAll(async () => {
  targets = shippedRegistry();
});

const build = (text: string, opts: CompileOptions = {}) => compileText(targets, text, opts);
const entry = entryOf;

/** One shot per duration, all on one target. */
function durScript(target: string, durs: readonly number[]): string {
  const shots = durs.map((d, i) => `## s${i}\ntarget: ${target}\ndur: ${d}\nAda waits.`).join("\n");
  return `= e01  T\n# sq01 kitchen\n${shots}\n`;
}

describe("6.15 grid snapping at 24 fps", () => {
  const durs = [0.2, 1.0, 1.62, 2.04, 2.33, 2.5, 3.04, 4.04, 4.46, 5.17, 8.0];
  const table: Record<string, (number | "error")[]> = {
    minimax_h3_ref2va: [5, 39, 39, 56, 56, 73, 73, 107, 107, 124, 192],
    ltx2: [9, 25, 41, 49, 57, 65, 73, 97, 113, 129, 193],
    ltx2_ingredients: [49, 49, 49, 49, 57, 65, 73, 97, 113, 129, 193],
    wan22_i2v: [5, 25, 41, 49, 57, 61, 73, 97, 109, 125, "error"],
  };
  for (const [target, lengths] of Object.entries(table)) {
    it(`${target}`, () => {
      const ok = durs.filter((_, i) => lengths[i] !== "error");
      const r = build(durScript(target, ok));
      const got = ok.map((_, i) => entry(r, `s${i}`).length);
      expect(got).toEqual(lengths.filter((l) => l !== "error"));
      expect(r.docs[target].shots).toHaveLength(ok.length);
    });
  }

  it("Wan I2V refuses 8 s (max 161 frames)", () => {
    const err = buildError(() => build(durScript("wan22_i2v", [8.0])));
    expect(err.message).toMatch(/^shot s0: /);
    expect(err.message).toContain("161 frames");
    expect(err.shot).toBe("s0");
    expect(err.key).toBe("dur");
  });
});

describe("frames from seconds", () => {
  it("6.16 rounds half to even: dur 0.9375 is 22.5 → 22 frames on H3", () => {
    const r = build(durScript("minimax_h3_ref2va", [0.9375]));
    expect(entry(r, "s0").length).toBe(22);
  });

  it("dur: 3 on ltx2 at 24 fps is 73 frames; dur: 0.9375 on minimax_h3_ref2va is 22", () => {
    expect(entry(build(durScript("ltx2", [3])), "s0").length).toBe(73);
    expect(entry(build(durScript("minimax_h3_ref2va", [0.9375])), "s0").length).toBe(22);
  });

  it("6.17 uses the episode fps on H3", () => {
    const at30 = build(durScript("minimax_h3_ref2va", [3.0]), { patch: (raw) => (raw.series.fps = 30) });
    expect(entry(at30, "s0").length).toBe(90);
    const at25 = build(durScript("minimax_h3_ref2va", [3.04]), { patch: (raw) => (raw.series.fps = 25) });
    expect(entry(at25, "s0").length).toBe(90);
    // FL2VA and Wan keep their own 24 fps whatever the series says.
    const wan = build(durScript("wan22_ti2v", [3.04]), { patch: (raw) => (raw.series.fps = 30) });
    expect(entry(wan, "s0").length).toBe(73);
    expect(wan.docs.wan22_ti2v.defaults.fps).toBe(24);
  });

  it("6.18 maxima", () => {
    expect(entry(build(durScript("ltx2", [20])), "s0").length).toBe(481);
    const ltx = buildError(() => build(durScript("ltx2", [20.1])));
    expect(ltx.message).toContain("481 frames");
    expect(ltx.message).toContain("482 frames");
    const wan = build(durScript("wan22_i2v", [6.7]));
    expect(entry(wan, "s0").length).toBe(161);
    expect(wan.warnings.some((w) => w.startsWith("s0:") && w.includes("trained length of 81 frames"))).toBe(
      true,
    );
    expect(() => build(durScript("wan22_i2v", [6.8]))).toThrow(BuildError);
    const h3 = buildError(() => build(durScript("minimax_h3_ref2va", [149.8])));
    expect(h3.message).toContain("3592");
  });
});

describe("6.19 wasted padding on H3", () => {
  it("warns for an explicit dur whose grid pad is over 15 %, suggesting the snapped length", () => {
    const r = build(durScript("minimax_h3_ref2va", [2.5, 3.0]));
    expect(entry(r, "s0").length).toBe(73);
    const pad = r.warnings.filter((w) => w.includes("wasted"));
    expect(pad).toHaveLength(1);
    expect(pad[0]).toMatch(/^s0: /);
    expect(pad[0]).toContain("13 wasted");
    expect(pad[0]).toContain("dur: 3.04");
    expect(r.reports.minimax_h3_ref2va.pad_frames).toBe(13 + 1);
  });

  it("never warns for windows or dur: auto, nor on other targets", () => {
    const text = `= e01  T
# sq01 kitchen
## sh010
audio: 0-2.5
Ada waits.
## sh020
who: ada
dur: auto
ADA: Go.
## sh030
target: ltx2
dur: 2.5
Ada waits.
`;
    const r = build(text, { patch: (raw) => (raw.audio.track = "audio/e01.wav") });
    expect(entry(r, "sh010")).toMatchObject({ length: 73, audio_in: 0, audio_out: 2.5 });
    expect(entry(r, "sh010")).not.toHaveProperty("duration");
    expect(r.warnings.filter((w) => w.includes("wasted"))).toEqual([]);
  });
});

describe("6.20 dur: auto", () => {
  const line = "ADA: It rained all night and nobody saw it but me.";
  it("times the dialogue at the shot's pace", () => {
    const text = `= e01  T
# sq01 kitchen
## sh010
who: ada
dur: auto
${line}
## sh020
target: ltx2
who: ada
dur: auto
${line}
`;
    const r = build(text);
    expect(entry(r, "sh010")).toMatchObject({ length: 90, duration: 3.605 });
    expect(entry(r, "sh020")).toMatchObject({ length: 89, duration: 3.605 });
  });

  it("is an error on a shot without dialogue", () => {
    const err = buildError(() => build(`= e01  T\n# sq01 kitchen\n## sh010\ndur: auto\nAda waits.\n`));
    expect(err.message).toMatch(/^shot sh010: /);
    expect(err.message).toContain("dur: auto");
  });

  it("a shot without any timing is an error", () => {
    const err = buildError(() => build(`= e01  T\n# sq01 kitchen\n## sh010\nAda waits.\n`));
    expect(err.message).toMatch(/^shot sh010: needs an `audio:` window/);
  });
});

describe("6.21 dur: model estimates", () => {
  it("H3 renders the estimate (with a warning), clamped by the script", () => {
    const text = `= e01  T
# sq01 kitchen
## sh010
dur: model
Ada waits.
## sh020
dur: model 3-4
Ada waits.
`;
    const r = build(text);
    expect(entry(r, "sh010")).toMatchObject({ length: 124, duration: 5, length_estimated: true });
    expect(entry(r, "sh010")).not.toHaveProperty("duration_predict");
    expect(entry(r, "sh020")).toMatchObject({ length: 107, duration: 4 });
    expect(r.warnings.some((w) => w.startsWith("sh010:") && w.includes("cannot predict"))).toBe(true);
  });

  it("LTX-2 gets the predictor's range", () => {
    const text = `= e01  T
# sq01 kitchen
## sh010
target: ltx2
dur: model
Ada waits.
## sh020
target: ltx2
who: ada
dur: model
ADA: Still raining?
`;
    const r = build(text);
    expect(entry(r, "sh010")).toMatchObject({
      length: 121,
      length_estimated: true,
      duration_predict: { min_seconds: 1, max_seconds: 20 },
    });
    expect(entry(r, "sh020")).toMatchObject({ length: 33, duration: 1.332 });
    expect(r.warnings.some((w) => w.includes("cannot predict"))).toBe(false);
    // The dur: model keys never reach the shot list defaults.
    expect(r.docs.ltx2.defaults).not.toHaveProperty("default_seconds");
  });
});

describe("6.22 latent hold on H3", () => {
  it("adds the hold to the render and keeps the end", () => {
    const text = `= e01  T
# sq01 kitchen
continuous: latent
## sh010
dur: 3.04
Ada waits.
## sh020
dur: 4.04
Ada waits.
## sh030
overlap: 30
dur: 3.04
Ada waits.
`;
    const r = build(text);
    expect(entry(r, "sh010")).not.toHaveProperty("hold");
    expect(entry(r, "sh020")).toMatchObject({ length: 102, hold: 39 });
    expect(entry(r, "sh030")).toMatchObject({ length: 85, hold: 39 });
    expect(r.warnings.filter((w) => w.includes("holds"))).toEqual([
      expect.stringContaining("overlap 30 holds 39"),
    ]);
    // The entry keys keep the documented order: length, hold, seed.
    const keys = Object.keys(entry(r, "sh020"));
    expect(keys.slice(keys.indexOf("length"), keys.indexOf("length") + 3)).toEqual([
      "length",
      "hold",
      "seed",
    ]);
  });

  it("takes the series continuous.overlap and warns on short holds", () => {
    const text = `= e01  T
# sq01 kitchen
continuous: latent
## sh010
dur: 3.04
Ada waits.
## sh020
dur: 3.04
Ada waits.
`;
    const r = build(text, { patch: (raw) => (raw.continuous = { overlap: 3 }) });
    expect(entry(r, "sh020").hold).toBe(5);
    expect(r.warnings.some((w) => w.includes("a hold of 5 frames is short"))).toBe(true);
  });
});

describe("6.24 verdicts", () => {
  const RILEY = "ADA: There's gold at the end of the path.";
  const rows: [string, number, string | null, number, number, string, number][] = [
    // dialogue, dur, pace, held frames, forced rate, verdict, fits
    [RILEY, 3.04, null, 73, 3.76, "ok", 3.042],
    [RILEY, 2.33, null, 56, 5.35, "tight", 3.042],
    [RILEY, 2.33, "fast", 56, 5.35, "ok", 2.333],
    [RILEY, 1.62, null, 39, 9.23, "CRAMMED", 3.042],
    [
      `${RILEY}\nBO: There is not.\nMOM (V.O.): Shoes off in the house!`,
      4.46,
      null,
      107,
      5.3,
      "tight",
      5.167,
    ],
    ["ADA: The cat sat on the big mat.", 2.33, null, 56, 4.16, "ok", 2.333],
  ];
  const script = () =>
    `= e01  T\n# sq01 kitchen\n${rows
      .map(([d, dur, pace], i) => `## s${i}\nwho: ada\ndur: ${dur}\n${pace ? `pace: ${pace}\n` : ""}${d}`)
      .join("\n")}\n`;

  it("pace report rows", () => {
    const raw = seriesS();
    const series = loadSeries(raw);
    const { story } = parseScript(script(), series);
    const rep = paceReport({ story, series, pass: "final", defaultTarget: "minimax_h3_ref2va", targets });
    expect(rep.rows.map((r) => [r.frames, r.forced_rate, r.verdict, r.fits])).toEqual(
      rows.map(([, , , frames, rate, verdict, fits]) => [frames, rate, verdict, fits]),
    );
    expect(rep.counts).toEqual({ ok: 3, tight: 2, CRAMMED: 1 });
    expect(rep.rows[4].syllables).toBe(17);
    expect(rep.ceiling).toBe(5.8);
  });

  it("H3 warns CRAMMED with the syllables the window holds, and tight with a suggestion", () => {
    const r = build(script());
    const crammed = r.warnings.filter((w) => w.includes("CRAMMED"));
    expect(crammed).toHaveLength(1);
    expect(crammed[0]).toMatch(/^s3: /);
    expect(crammed[0]).toContain("about 4 syllables");
    expect(crammed[0]).toContain("3.04");
    const tight = r.warnings.filter((w) => w.includes("tight"));
    expect(tight.map((w) => w.slice(0, 3))).toEqual(["s1:", "s4:"]);
    expect(tight[0]).toContain("dur: 3.04");
    expect(tight[0]).toContain("pace: fast");
  });

  it("other targets warn only CRAMMED", () => {
    const text = script().replaceAll("who: ada", "who: ada\ntarget: ltx2");
    const r = build(text);
    expect(r.warnings.filter((w) => w.includes("tight"))).toEqual([]);
    expect(r.warnings.filter((w) => w.includes("CRAMMED"))).toHaveLength(1);
  });
});
