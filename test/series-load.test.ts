// series.json loading (script format 3.1–3.11; test cases 6.39–6.41).
import { describe, expect, it } from "vitest";
import { JsonSyntaxError, SeriesError } from "../lib/series/errors.ts";
import { loadSeries, parseLoras, seriesInfo, validateProfiles } from "../lib/series/load.ts";
import { SERIES_S, seriesS } from "./support/series-s.ts";

function loadError(input: unknown): SeriesError {
  try {
    loadSeries(input);
  } catch (e) {
    if (e instanceof SeriesError) return e;
    throw e;
  }
  throw new Error("expected the config to fail");
}

type Json = ReturnType<typeof seriesS>;

/** S with one change applied. */
function variantOf(change: (s: Json) => void) {
  const s = seriesS();
  change(s);
  return s;
}

function expectLoadError(input: unknown, key: string | null, ...fragments: string[]): void {
  const e = loadError(input);
  for (const f of fragments) expect(e.message).toContain(f);
  expect(e.key).toBe(key);
}

describe("loading S", () => {
  const S = loadSeries(JSON.stringify(SERIES_S));

  it("keeps the raw object and exposes the blocks", () => {
    expect(S.raw).toStrictEqual(SERIES_S);
    expect(S.series).toStrictEqual(SERIES_S.series);
    expect(S.proxy).toBeUndefined();
    expect(S.look).toBe("a flat 2D cartoon");
    expect(Object.keys(S.subjects)).toEqual(["ada", "bo", "cy", "mom", "gina", "gina_towel", "kettle"]);
    expect([...S.characters].sort()).toEqual(["ada", "bo", "cy", "gina", "gina_towel", "mom"]);
    expect(S.variants).toStrictEqual({ gina_towel: "gina" });
    expect(S.subjects.ada.kind).toBe("character");
    expect(S.subjects.kettle.kind).toBe("prop");
    expect(Object.keys(S.locations)).toEqual(["kitchen", "kitchen_rev", "street"]);
  });

  it("does not change its input", () => {
    const input = seriesS();
    loadSeries(input);
    expect(input).toStrictEqual(SERIES_S);
  });

  it("strips a leading BOM", () => {
    expect(loadSeries(`\ufeff${JSON.stringify(SERIES_S)}`).look).toBe("a flat 2D cartoon");
  });
});

describe("JSON and shape errors", () => {
  it("reports invalid JSON with a 1-based line and column", () => {
    const text = '{\n  "series": {"id": "t"},\n  "style": {"look": }\n}';
    try {
      loadSeries(text);
      throw new Error("expected a JsonSyntaxError");
    } catch (e) {
      expect(e).toBeInstanceOf(JsonSyntaxError);
      const err = e as JsonSyntaxError;
      expect([err.line, err.col]).toEqual([3, 21]);
      expect(err.message).toContain("expecting a value at line 3 column 21");
    }
  });

  it.each([
    ['{"a": 1,}', 1, 9, "property name"],
    ['{"a" 1}', 1, 6, "':'"],
    ['{"a": [1, 2\n', 2, 1, "','"],
    ['{"a": "x\ty"}', 1, 9, "control character"],
    ['{"a": tru}', 1, 7, "expecting a value"],
    ["{} {}", 1, 4, "extra data"],
    ["", 1, 1, "expecting a value"],
    ['{"a": "\\q"}', 1, 8, "invalid escape"],
    ['\n\n  {"a": "open', 3, 9, "unterminated string"],
  ])("%j fails at %i:%i", (text, line, col, reason) => {
    try {
      loadSeries(text);
      throw new Error("expected a JsonSyntaxError");
    } catch (e) {
      expect(e).toBeInstanceOf(JsonSyntaxError);
      expect([(e as JsonSyntaxError).line, (e as JsonSyntaxError).col]).toEqual([line, col]);
      expect((e as Error).message).toContain(reason);
    }
  });

  it.each([["[]"], ["3"], ["null"], ['"x"']])("%s is not an object", (text) => {
    expectLoadError(text, null, "series.json must be a JSON object");
  });
});

describe("6.39 variants", () => {
  it("materialises gina_towel from gina", () => {
    const { subjects } = loadSeries(seriesS());
    expect(subjects.gina_towel).toStrictEqual({
      of: "gina",
      kind: "character",
      name: "Gina",
      voice: "low",
      design: "a woman wrapped in a white towel",
      sheet: "refs/gina/gina_towel_sheet_4panel.png",
    });
    expect(subjects.gina.sheet).toBe("refs/gina/gina_sheet_4panel.png");
  });

  it("derives the sheet from the first base id in the file name only, either separator", () => {
    const load = (sheet: string, own?: string) =>
      loadSeries(
        variantOf((s) => {
          s.subjects.gina.sheet = sheet;
          if (own) s.subjects.gina_towel.sheet = own;
        }),
      ).subjects.gina_towel.sheet;
    expect(load("refs\\gina\\gina_gina.png")).toBe("refs\\gina\\gina_towel_gina.png");
    expect(load("gina/x_gina.png")).toBe("gina/x_gina_towel.png");
    expect(load("refs/gina/sheet.png", "refs/own.png")).toBe("refs/own.png");
  });

  it.each([
    ["of itself", (s: Json) => (s.subjects.gina_towel.of = "gina_towel"), "names itself"],
    ["of nobody", (s: Json) => (s.subjects.gina_towel.of = "nobody"), "`of: nobody` is not a subject"],
    [
      "a variant of a variant",
      (s: Json) => (s.subjects.gina_wet = { of: "gina_towel", design: "wet" }),
      "variants of variants",
    ],
    ["without design", (s: Json) => delete s.subjects.gina_towel.design, "needs its own `design`"],
    [
      "of another kind",
      (s: Json) => (s.subjects.gina_towel.kind = "prop"),
      "kind prop differs from its base gina",
    ],
    [
      "base sheet without the id",
      (s: Json) => (s.subjects.gina.sheet = "refs/gina/sheet.png"),
      "explicit `sheet`",
    ],
    ["base without a sheet", (s: Json) => delete s.subjects.gina.sheet, "gina has no sheet"],
  ])("%s is an error", (_name, change, fragment) => {
    const s = variantOf(change);
    const key = s.subjects.gina_wet ? "subjects.gina_wet" : "subjects.gina_towel";
    expectLoadError(s, key, fragment);
  });

  it("a prop variant of a prop is a prop", () => {
    const cfg = loadSeries(
      variantOf((s) => (s.subjects.kettle_hot = { of: "kettle", design: "a steaming kettle" })),
    );
    expect(cfg.subjects.kettle_hot).toMatchObject({ kind: "prop", sheet: "refs/props/kettle_hot.png" });
    expect(cfg.characters).not.toContain("kettle_hot");
  });
});

describe("6.40 groups and the continuous block", () => {
  const ladies = { name: "the ladies", members: 4, design: "four women in gowns" };

  it("loads a group with sheet_panels 1", () => {
    const cfg = loadSeries(variantOf((s) => (s.subjects.ladies = ladies)));
    expect(cfg.subjects.ladies).toStrictEqual({ ...ladies, kind: "character", sheet_panels: 1 });
    expect(cfg.characters).toContain("ladies");
    const one = loadSeries(variantOf((s) => (s.subjects.ladies = { ...ladies, sheet_panels: 1 })));
    expect(one.subjects.ladies.sheet_panels).toBe(1);
  });

  it.each([13, 1, true, 4.5, "4", null])("members: %j is an error", (members) => {
    expectLoadError(
      variantOf((s) => (s.subjects.ladies = { ...ladies, members })),
      "subjects.ladies",
      "`members` must be a whole number from 2 to 12",
    );
  });

  it("members on a prop, or with sheet_panels 4, is an error", () => {
    expectLoadError(
      variantOf((s) => (s.subjects.ladies = { ...ladies, kind: "prop" })),
      "subjects.ladies",
      "only a character can be a group",
    );
    expectLoadError(
      variantOf((s) => (s.subjects.ladies = { ...ladies, sheet_panels: 4 })),
      "subjects.ladies",
      "`sheet_panels` must be 1",
    );
  });

  it("accepts a valid continuous block", () => {
    expect(() => loadSeries(variantOf((s) => (s.continuous = { overlap: 39 })))).not.toThrow();
    expect(() => loadSeries(variantOf((s) => (s.continuous = { _note: "x", overlap: 360 })))).not.toThrow();
  });

  it.each([
    [{ overlap: 0 }, "continuous.overlap", "from 1 to 360"],
    [{ overlap: 361 }, "continuous.overlap", "from 1 to 360"],
    [{ overlap: "39" }, "continuous.overlap", "from 1 to 360"],
    [{ overlap: true }, "continuous.overlap", "from 1 to 360"],
    [{ hold: 39 }, "continuous", "unknown key 'hold'"],
    [39, "continuous", "must be an object"],
  ])("continuous: %j is an error", (block, key, fragment) => {
    expectLoadError(
      variantOf((s) => (s.continuous = block)),
      key,
      fragment,
    );
  });
});

describe("6.41 required fields", () => {
  const cases: [string, (s: Json) => unknown, string, ...string[]][] = [
    ["missing series", (s: Json) => delete s.series, "series", "`series`"],
    ["series not an object", (s: Json) => (s.series = "t"), "series", "`series`"],
    ["missing style", (s: Json) => delete s.style, "style.look", "style.look"],
    ["blank look", (s: Json) => (s.style.look = "  "), "style.look", "style.look"],
    ["subject without name", (s: Json) => delete s.subjects.bo.name, "subjects.bo", "subject bo", "`name`"],
    [
      "subject without design or voice",
      (s: Json) => delete s.subjects.mom.voice,
      "subjects.mom",
      "subject mom",
      "`design`",
    ],
    [
      "location without description",
      (s: Json) => (s.locations.street.description = ""),
      "locations.street",
      "location street",
      "`description`",
    ],
    ["empty subjects", (s: Json) => (s.subjects = {}), "subjects", "no `subjects` block"],
    ["no subjects block", (s: Json) => delete s.subjects, "subjects", "no `subjects` block"],
    ["only comments", (s: Json) => (s.subjects = { _c: { name: "x" }, x: "y" }), "subjects", "no `subjects`"],
  ];
  it.each(cases)("%s is an error", (_name, change, key, ...fragments) => {
    expectLoadError(variantOf(change), key, ...fragments);
  });

  it("a voice-only subject is fine; `_` keys and non-object entries are ignored", () => {
    const cfg = loadSeries(
      variantOf((s) => {
        s.subjects._comment = { note: "no name needed" };
        s.subjects.junk = "not an object";
        s.locations._todo = { plate: "x" };
        s.locations.nowhere = null;
      }),
    );
    expect(cfg.subjects.mom).toStrictEqual({
      name: "Mom",
      voice: "warm, from another room",
      kind: "character",
    });
    expect(Object.keys(cfg.subjects)).not.toContain("_comment");
    expect(Object.keys(cfg.subjects)).not.toContain("junk");
    expect(Object.keys(cfg.locations)).toEqual(["kitchen", "kitchen_rev", "street"]);
    expect(cfg.characters).toContain("mom");
  });
});

describe("kinds and location angles", () => {
  it("rejects an unknown subject kind (open point 8)", () => {
    expectLoadError(
      variantOf((s) => (s.subjects.kettle.kind = "object")),
      "subjects.kettle",
      'kind "object" is not one of character, prop, vehicle',
    );
    const cfg = loadSeries(variantOf((s) => (s.subjects.kettle.kind = "vehicle")));
    expect(cfg.subjects.kettle.kind).toBe("vehicle");
  });

  it.each([
    [(s: Json) => (s.locations.kitchen_rev.of = "kitchen_rev"), "names itself"],
    [(s: Json) => (s.locations.kitchen_rev.of = "attic"), "`of: attic` is not a location"],
    [(s: Json) => (s.locations.kitchen_rev.of = ""), "must name a location"],
    [(s: Json) => (s.locations.kitchen_rev.of = 3), "must name a location"],
    [(s: Json) => (s.locations.sink = { of: "kitchen_rev", description: "d" }), "itself an angle"],
  ])("angle rule %#", (change, fragment) => {
    const s = variantOf(change);
    expectLoadError(s, s.locations.sink ? "locations.sink" : "locations.kitchen_rev", fragment);
  });

  it("an angle inherits nothing", () => {
    const cfg = loadSeries(variantOf((s) => delete s.locations.kitchen_rev.plate));
    expect(cfg.locations.kitchen_rev).toStrictEqual({
      of: "kitchen",
      description: "the kitchen from the sink",
    });
  });
});

describe("seriesInfo", () => {
  it("defaults to 24 fps, 1344 × 768", () => {
    expect(seriesInfo({})).toStrictEqual({ fps: 24, width: 1344, height: 768 });
    expect(seriesInfo({ series: { id: "x" } })).toStrictEqual({ fps: 24, width: 1344, height: 768 });
  });

  it("converts numeric strings and passes anything else through", () => {
    expect(seriesInfo({ series: { fps: "30", width: "1280.0", height: 720.0 } })).toStrictEqual({
      fps: 30,
      width: 1280,
      height: 720,
    });
    expect(seriesInfo({ series: { fps: "23.976", width: "wide", height: null } })).toStrictEqual({
      fps: 23.976,
      width: "wide",
      height: null,
    });
  });
});

describe("parseLoras", () => {
  it("reads LoRAs as a name, a name:strength string, or a list of those and {name, strength} objects", () => {
    expect(parseLoras("turbo.safetensors")).toStrictEqual([{ name: "turbo.safetensors", strength: 1 }]);
    expect(
      parseLoras([
        "turbo_8step.safetensors",
        " soft.safetensors:0.6 ",
        { name: "obj.safetensors", strength: 0.25 },
        { name: "plain" },
        "none",
        "OFF",
        "-",
        "C:\\loras\\x.safetensors",
        "weird:name:1e-1",
      ]),
    ).toStrictEqual([
      { name: "turbo_8step.safetensors", strength: 1 },
      { name: "soft.safetensors", strength: 0.6 },
      { name: "obj.safetensors", strength: 0.25 },
      { name: "plain", strength: 1 },
      { name: "C:\\loras\\x.safetensors", strength: 1 },
      { name: "weird:name", strength: 0.1 },
    ]);
    expect(parseLoras("none")).toStrictEqual([]);
    expect(parseLoras([])).toStrictEqual([]);
  });

  it("rejects what it cannot read", () => {
    expect(() => parseLoras(3)).toThrow(/string or a list/);
    expect(() => parseLoras([{ strength: 1 }])).toThrow(/needs a non-empty `name`/);
    expect(() => parseLoras([{ name: "x", strength: "lots" }])).toThrow(/not a number/);
    expect(() => parseLoras([""])).toThrow(/has no name/);
    expect(() => parseLoras([":0.5"])).toThrow(/has no name/);
    expect(() => parseLoras([7])).toThrow(SeriesError);
  });
});

describe("validateProfiles", () => {
  it("normalises the block and skips comments", () => {
    const raw = {
      profiles: {
        _note: "comment",
        dialogue_close: {
          model: " h3_faces.safetensors ",
          loras: ["turbo_8step.safetensors", "soft.safetensors:0.6"],
          steps: 8,
          _why: "faces",
        },
        quality: { target: "ltx2" },
      },
    };
    expect(validateProfiles(raw)).toStrictEqual({
      dialogue_close: {
        model: "h3_faces.safetensors",
        loras: [
          { name: "turbo_8step.safetensors", strength: 1 },
          { name: "soft.safetensors", strength: 0.6 },
        ],
        steps: 8,
      },
      quality: { target: "ltx2" },
    });
    expect(validateProfiles({})).toStrictEqual({});
  });

  it.each([
    [[], "profiles", "`profiles` must be an object"],
    [{ fast: 3 }, "profiles.fast", "profile 'fast' must be an object"],
    [{ fast: { speed: 2 } }, "profiles.fast", "unknown key 'speed' (allowed: target, model, loras, steps)"],
    [{ fast: { target: " " } }, "profiles.fast", "`target` must be a non-empty string"],
    [{ fast: { model: 3 } }, "profiles.fast", "`model` must be a non-empty string"],
    [{ fast: { steps: 0 } }, "profiles.fast", "`steps` must be a whole number"],
    [{ fast: { steps: true } }, "profiles.fast", "`steps`"],
    [{ fast: { steps: 7.5 } }, "profiles.fast", "`steps`"],
    [{ fast: { loras: [{ name: "" }] } }, "profiles.fast", "profile 'fast': a LoRA object needs"],
  ])("%j is an error", (profiles, key, fragment) => {
    try {
      validateProfiles({ profiles });
      throw new Error("expected a SeriesError");
    } catch (e) {
      expect(e).toBeInstanceOf(SeriesError);
      expect((e as SeriesError).message).toContain(fragment);
      expect((e as SeriesError).key).toBe(key);
    }
  });
});
