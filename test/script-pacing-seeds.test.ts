// Pacing, rounding, seeds, sizes and canonical-JSON hashing (script format 2.10, 4.17; test cases 6.16,
// 6.20, 6.23–6.26).
import { describe, expect, it } from "vitest";
import { canonicalJson, presetHash, pyFloatRepr, pyJson, storyHash } from "../lib/script/canonical.ts";
import {
  CEILING,
  dialogueSyllables,
  fitsSeconds,
  forcedRate,
  PACE_RATES,
  type Pace,
  pauses,
  speechSeconds,
  syllables,
  syllablesHeld,
  verdict,
} from "../lib/script/pacing.ts";
import { parsePyFloat, parsePyInt, roundHalfEven, roundHalfEvenTo } from "../lib/script/rounding.ts";
import { MAX_SEED, newSeed53, parseSeed, shotSeed } from "../lib/script/seeds.ts";
import { canonicalSize, SIZES, sizeInfo, sizeStepsApart, unknownSizeMessage } from "../lib/script/sizes.ts";
import { sha1Hex } from "../lib/text/digest.ts";

/** The H3 grid, 17k+5 (for the `fits` column). */
const snapH3 = (f: number) => (f <= 5 ? 5 : 17 * Math.ceil((f - 5) / 17) + 5);
const line = (speaker: string, text: string) => ({ speaker, line: text });

describe("6.23 syllables", () => {
  it.each([
    ["table", 2],
    ["cake", 1],
    ["free", 1],
    ["bye", 1],
    ["nobody", 3],
    ["rained", 2],
    ["There's gold at the end of the path.", 9],
    ["It rained all night and nobody saw it but me.", 13],
    ["Shoes off in the house!", 5],
    ["24", 0],
    ["Okay--", 2],
    ["There's", 2],
    ["", 0],
    ["  rhythm  ", 1],
  ])("%j has %i", (text, count) => {
    expect(syllables(text)).toBe(count);
  });
});

describe("pacing measures", () => {
  const gold = [line("riley", "There's gold at the end of the path.")];
  const three = [...gold, line("huey", "There is not."), line("mom", "Shoes off in the house!")];

  it("pauses: head and tail air, 0.30 per speaker change, 0.15 for the same speaker", () => {
    expect(pauses(gold)).toBeCloseTo(0.65, 12);
    expect(pauses(three)).toBeCloseTo(1.25, 12);
    expect(pauses([line("a", "Hi."), line("a", "Bye.")])).toBeCloseTo(0.8, 12);
    expect(dialogueSyllables(three)).toBe(17);
    expect(PACE_RATES).toEqual({ slow: 3.6, normal: 4.4, fast: 5.4 });
    expect(CEILING).toBe(5.8);
  });

  it("6.20 dur: auto speech time", () => {
    const d = [line("ada", "It rained all night and nobody saw it but me.")];
    expect(speechSeconds(d, "normal")).toBeCloseTo(13 / 4.4 + 0.65, 12);
    expect(roundHalfEvenTo(speechSeconds(d, "normal"), 3)).toBe(3.605);
    expect(roundHalfEven(speechSeconds(d, "normal") * 24)).toBe(87);
    expect(speechSeconds([line("ada", "24")], "normal")).toBe(0);
    expect(speechSeconds([line("ada", "Still raining?")], "normal")).toBeCloseTo(3 / 4.4 + 0.65, 12);
  });

  // Test case 6.24: dialogue, dur (frames held on the H3 grid), pace → forced rate, verdict, fits.
  const seven = [line("riley", "Shoes off in the house, Mama.")];
  it.each([
    ["gold", gold, 73, "normal", 3.76, "ok", 3.04],
    ["gold", gold, 56, "normal", 5.35, "tight", 3.04],
    ["gold", gold, 56, "fast", 5.35, "ok", 2.33],
    ["gold", gold, 39, "normal", 9.23, "CRAMMED", 3.04],
    ["three lines", three, 107, "normal", 5.3, "tight", 5.17],
    ["seven syllables", seven, 56, "normal", 4.16, "ok", 2.33],
  ] as const)("6.24 %s held %i frames at %s", (_name, dialogue, frames, pace, rate, want, fits) => {
    expect(dialogueSyllables(seven)).toBe(7);
    const held = frames / 24;
    expect(Math.round(forcedRate(dialogue, held) * 100) / 100).toBe(rate);
    expect(verdict(dialogue, held, pace as Pace)).toBe(want);
    expect(Math.round(fitsSeconds(dialogue, pace as Pace, 24, snapH3) * 100) / 100).toBe(fits);
  });

  it("6.24 the CRAMMED warning's syllable count", () => {
    expect(syllablesHeld(gold, 39 / 24, "normal")).toBe(4);
    expect(syllablesHeld(gold, 0.2, "normal")).toBe(0);
  });
});

describe("roundHalfEven (Python round)", () => {
  it.each([
    [22.5, 22],
    [23.5, 24],
    [0.5, 0],
    [1.5, 2],
    [2.5, 2],
    [-0.5, 0],
    [-1.5, -2],
    [-2.5, -2],
    [22.49999999999999, 22],
    [22.500000000000004, 23],
    [2.675 * 100, 268],
    [0.9375 * 24, 22],
    [3.6045 * 24, 87],
    [7, 7],
  ])("round(%d) = %i", (x, want) => {
    expect(roundHalfEven(x)).toBe(want);
    expect(Object.is(roundHalfEven(x), -0)).toBe(false);
  });

  it("6.16: 0.9375 s at 24 fps is exactly 22.5 frames and rounds to 22", () => {
    expect(0.9375 * 24).toBe(22.5);
    expect(roundHalfEven(0.9375 * 24)).toBe(22);
  });

  it.each([
    [2.675, 2, 2.67],
    [0.125, 2, 0.12],
    [0.375, 2, 0.38],
    [1.0005, 3, 1],
    [3.6045454545, 3, 3.605],
    [-0.125, 2, -0.12],
    [2.5, 0, 2],
    [1.3318181818, 3, 1.332],
    [20.041666666666668, 2, 20.04],
  ])("round(%d, %i) = %d", (x, digits, want) => {
    expect(roundHalfEvenTo(x, digits)).toBe(want);
  });
});

describe("Python number parsing", () => {
  it("float()", () => {
    expect(parsePyFloat("3")).toBe(3);
    expect(parsePyFloat(" 3.04 ")).toBe(3.04);
    expect(parsePyFloat("1e1")).toBe(10);
    expect(parsePyFloat(".5")).toBe(0.5);
    expect(parsePyFloat("5.")).toBe(5);
    expect(parsePyFloat("1_000")).toBe(1000);
    expect(parsePyFloat("3s")).toBeNull();
    expect(parsePyFloat("")).toBeNull();
    expect(parsePyFloat("0x10")).toBeNull();
    expect(parsePyFloat("1.2.3")).toBeNull();
  });

  it("int()", () => {
    expect(parsePyInt("8")).toBe(8);
    expect(parsePyInt("+8")).toBe(8);
    expect(parsePyInt("-3")).toBe(-3);
    expect(parsePyInt("3.0")).toBeNull();
    expect(parsePyInt("eight")).toBeNull();
  });
});

describe("6.25 seeds", () => {
  it.each([
    ["ep01", "sq01", "sh010", 6290346879385008131n],
    ["ep01", "sq01", "sh020", 4538968757674556470n],
    ["ep01", "sq02", "sh010", 4972699582153836699n],
    ["ep02", "sq01", "sh010", 6456657400693865605n],
    ["cont01", "sq01", "sh010", 3330562156371935263n],
  ])("seed(%s, %s, %s)", (ep, seq, shot, want) => {
    const seed = shotSeed(ep, seq, shot);
    expect(seed).toBe(want);
    expect(seed < 1n << 63n).toBe(true);
    expect(seed > 1n << 53n).toBe(true);
  });

  it("new seeds are 53-bit", () => {
    for (let i = 0; i < 50; i++) {
      const s = newSeed53();
      expect(s >= 0n && s < 1n << 53n).toBe(true);
      expect(BigInt(Number(s))).toBe(s);
    }
  });

  it("parses typed seeds within 0..2^63-1", () => {
    expect(parseSeed("6290346879385008131")).toBe(6290346879385008131n);
    expect(parseSeed(" 0 ")).toBe(0n);
    expect(parseSeed("9223372036854775807")).toBe(MAX_SEED);
    expect(parseSeed("9223372036854775808")).toBeNull();
    expect(parseSeed("-1")).toBeNull();
    expect(parseSeed("1e5")).toBeNull();
    expect(parseSeed("")).toBeNull();
    expect(parseSeed("12.0")).toBeNull();
  });
});

describe("canonical JSON and hashes", () => {
  it("6.26 story hash: duration is a float, model and steps are dropped", () => {
    const entry = {
      id: "sh010",
      sequence: "sq01",
      length: 73,
      steps: 8,
      model: "m.safetensors",
      duration: 3.0,
    };
    const { model: _m, steps: _s, ...story } = entry;
    expect(canonicalJson(story)).toBe('{"duration":3.0,"id":"sh010","length":73,"sequence":"sq01"}');
    expect(storyHash(entry)).toBe("ec6653b13e4495d1ed02e6d05a76ba3b9389c895");
    // Without the float knowledge the reference's takes would all look stale.
    expect(canonicalJson(story, new Set())).toBe('{"duration":3,"id":"sh010","length":73,"sequence":"sq01"}');
    expect(sha1Hex(canonicalJson(story, new Set()))).toBe("6911805b77f851fb3c776a4933cb882622a6179f");
  });

  it("story hash ignores every render setting", () => {
    const entry = { id: "sh010", sequence: "sq01", length: 73, duration: 3 };
    const h = storyHash(entry);
    expect(
      storyHash({ ...entry, lora: "x", loras: [{ name: "y", strength: 1 }], profile: "p", steps: 4 }),
    ).toBe(h);
    expect(storyHash({ ...entry, length: 90 })).not.toBe(h);
  });

  it("writes sorted keys, raw non-ASCII, Python escapes, bigints and floats like Python", () => {
    const entry = {
      id: "sh010",
      sequence: "sq01",
      seed: 6290346879385008131n,
      prompt: ['Ada sagt „Hallo“ – "ok"\n'],
      audio_in: 1,
      audio_out: 2.5,
      length: 39,
      hold: 39,
      duration_predict: { min_seconds: 1, max_seconds: 20 },
      tiny: 1e-5,
      skipped: undefined,
    };
    expect(canonicalJson(entry)).toBe(
      '{"audio_in":1.0,"audio_out":2.5,"duration_predict":{"max_seconds":20.0,"min_seconds":1.0},"hold":39,' +
        '"id":"sh010","length":39,"prompt":["Ada sagt „Hallo“ – \\"ok\\"\\n"],"seed":6290346879385008131,' +
        '"sequence":"sq01","tiny":1e-05}',
    );
    expect(storyHash(entry)).toBe("2873b7ea8dccd0815f0ae00e479aaa8850aa80a4");
  });

  it("preset hash", () => {
    const defaults = { model: "h3.safetensors", lora: "none", steps: 8, width: 1344, height: 768, fps: 24 };
    const shot = {
      id: "sh010",
      model: "h3_faces.safetensors",
      steps: 9,
      loras: [
        { name: "turbo_8step.safetensors", strength: 1 },
        { name: "soft.safetensors", strength: 0.6 },
      ],
      profile: "dialogue_close",
    };
    expect(presetHash(defaults, shot)).toBe("6fc183ba996911355eb16394bbe1e676c782c58a");
    expect(presetHash(defaults, { ...shot, prompt: "other" })).toBe(
      "6fc183ba996911355eb16394bbe1e676c782c58a",
    );
    expect(presetHash({ ...defaults, model_low: "low.safetensors" }, shot)).not.toBe(
      "6fc183ba996911355eb16394bbe1e676c782c58a",
    );
  });

  it.each([
    [3, "3.0"],
    [2.5, "2.5"],
    [0.1, "0.1"],
    [1e-5, "1e-05"],
    [0.0001, "0.0001"],
    [0.00012345, "0.00012345"],
    [1.5e-7, "1.5e-07"],
    [1e15, "1000000000000000.0"],
    [9999999999999998, "9999999999999998.0"],
    [1e16, "1e+16"],
    [1.2345678901234568e17, "1.2345678901234568e+17"],
    [1e100, "1e+100"],
    [5e-324, "5e-324"],
    [-0, "-0.0"],
    [-12345.678, "-12345.678"],
    [Number.NaN, "NaN"],
    [Number.POSITIVE_INFINITY, "Infinity"],
  ])("repr(%d) = %s", (x, want) => {
    expect(pyFloatRepr(x)).toBe(want);
  });

  it("non-float keys print integral numbers as ints and others as Python floats", () => {
    expect(canonicalJson({ b: [1, 2.5, 1e21], a: { strength: [1, 2] }, c: null, d: true })).toBe(
      '{"a":{"strength":[1.0,2.0]},"b":[1,2.5,1000000000000000000000],"c":null,"d":true}',
    );
  });

  it("indented form matches json.dumps(indent=2, ensure_ascii=False)", () => {
    expect(pyJson({ a: [1, { b: [] }], c: {}, é: "x\u2028\u007f\u001f", seconds: 3 }, { indent: 2 })).toBe(
      '{\n  "a": [\n    1,\n    {\n      "b": []\n    }\n  ],\n  "c": {},\n  "é": "x\u2028\u007f\\u001f",\n  "seconds": 3.0\n}',
    );
  });
});

describe("shot sizes: aliases, families and tightness", () => {
  it("canonicalises case, spaces and hyphens", () => {
    expect(canonicalSize("MCU")).toBe("mcu");
    expect(canonicalSize("medium close-up")).toBe("mcu");
    expect(canonicalSize("Medium-Close-Up")).toBe("mcu");
    expect(canonicalSize("American shot")).toBe("cowboy");
    expect(canonicalSize("extreme long shot")).toBe("ews");
    expect(canonicalSize("medium")).toBe("ms");
    expect(canonicalSize("huge")).toBeNull();
    expect(canonicalSize("")).toBeNull();
  });

  it("has the table's order, terms, extents and families", () => {
    expect(SIZES.map((s) => s.canonical)).toEqual([
      "ecu",
      "cu",
      "mcu",
      "ms",
      "cowboy",
      "mws",
      "fs",
      "ws",
      "ews",
    ]);
    expect(SIZES.map((s) => s.family).join(" ")).toBe(
      "close close close medium medium medium wide wide wide",
    );
    expect(sizeInfo("mls")).toMatchObject({
      term: "medium-wide shot",
      extent: "from the knees up",
      order: 5,
    });
    expect(sizeInfo("cu")?.extent).toBeNull();
    expect(sizeInfo("ews")?.extent).toBe("small within the vastness of the setting");
  });

  it("counts steps apart, null for unknown sizes", () => {
    expect(sizeStepsApart("ms", "medium close-up")).toBe(1);
    expect(sizeStepsApart("ms", "cu")).toBe(2);
    expect(sizeStepsApart("ews", "ecu")).toBe(8);
    expect(sizeStepsApart("wide", "huge")).toBeNull();
  });

  it("names the unknown size in its message", () => {
    expect(unknownSizeMessage("huge")).toMatch(
      /^unknown size 'huge': use one of extreme close-up \(ecu\/xcu\), /,
    );
  });
});
