// Parser tests: the script format's test cases 6.1–6.14, the added warnings, derived rules and the shots.json
// round trip.
import { describe, expect, it } from "vitest";
import { ScriptError } from "../lib/script/errors.ts";
import { parseScript, splitParenthetical } from "../lib/script/parse.ts";
import { SIZE_VOCABULARY } from "../lib/script/sizes.ts";
import {
  allShots,
  continues,
  keyframeMethod,
  shotSpans,
  storyFromJson,
  storyToJson,
} from "../lib/script/story.ts";
import type { Shot, Story } from "../lib/script/types.ts";
import { loadSeries } from "../lib/series/load.ts";
import type { SeriesConfig } from "../lib/series/types.ts";
import { seriesS } from "./support/series-s.ts";

const S = loadSeries(seriesS());
const NULL_OVERRIDES = { model: null, lora: null, steps: null };

function parse(lines: string[] | string, series: SeriesConfig = S) {
  return parseScript(Array.isArray(lines) ? lines.join("\n") : lines, series);
}

function parseError(lines: string[] | string, series: SeriesConfig = S): ScriptError {
  try {
    parse(lines, series);
  } catch (e) {
    if (e instanceof ScriptError) return e;
    throw e;
  }
  throw new Error("expected the script to fail");
}

function expectError(lines: string[], line: number, ...fragments: string[]): ScriptError {
  const e = parseError(lines);
  expect(e.line).toBe(line);
  for (const f of fragments) expect(e.message).toContain(f);
  expect(e.message).not.toMatch(/^line \d+:/);
  return e;
}

function shotOf(story: Story, id: string): Shot {
  const ref = allShots(story).find((r) => r.shot.id === id);
  if (!ref) throw new Error(`no shot ${id}`);
  return ref.shot;
}

/** A one-shot script with the given lines inside the shot, starting at line 4. */
const inShot = (...body: string[]) => ["= e01  T", "# sq01 kitchen", "## sh010", ...body];

describe("6.1 headers, cast order, parentheticals, prose fall-through", () => {
  const script = [
    "= ep07   The Long Night",
    "// a comment",
    "# sq01  kitchen  extra words",
    "Ada is alone tonight.",
    "## sh010 opening shot",
    "ADA: Hi.",
    "who: bo",
    "size: Medium Close-Up",
    "Bo turns.",
    "MOM (V.O., from downstairs): Shoes off!",
    "ADA (off-screen, V.O.): Wait.",
    "  CY: indented",
    "FADE IN:",
    "mood: tense",
    "Camera: pushes in",
  ];

  it("builds the expected IR, keys in the order shots.json writes them", () => {
    const { story } = parse(script);
    expect(story).toStrictEqual({
      episode: "ep07",
      title: "The Long Night",
      series: { fps: 24, width: 1344, height: 768 },
      sequences: [
        {
          id: "sq01",
          location: "kitchen",
          continuous: false,
          overrides: NULL_OVERRIDES,
          source: { line: 3 },
          shots: [
            {
              id: "sh010",
              cast: ["bo", "ada"],
              props: [],
              plate: "kitchen",
              size: "medium close-up",
              camera: null,
              action: "Bo turns. CY: indented FADE IN: mood: tense Camera: pushes in",
              dialogue: [
                { speaker: "ada", mode: "on", delivery: "", line: "Hi." },
                { speaker: "mom", mode: "vo", delivery: "from downstairs", line: "Shoes off!" },
                { speaker: "ada", mode: "vo", delivery: "", line: "Wait." },
              ],
              // The action written between the lines keeps its place (the animatic's captions follow it).
              beats: [
                { line: 0 },
                { action: "Bo turns." },
                { line: 1 },
                { line: 2 },
                { action: "CY: indented FADE IN: mood: tense Camera: pushes in" },
              ],
              sound: null,
              music: null,
              extras: null,
              text: null,
              timing: null,
              pace: null,
              audio: null,
              preserve: null,
              seed_key: "ep07/sq01/sh010",
              overrides: NULL_OVERRIDES,
              source: { line: 5, end_line: 15 },
            },
          ],
        },
      ],
    });
    const shot = story.sequences[0].shots[0];
    expect(Object.keys(shot)).toEqual([
      "id",
      "cast",
      "props",
      "plate",
      "size",
      "camera",
      "action",
      "dialogue",
      "beats",
      "sound",
      "music",
      "extras",
      "text",
      "timing",
      "pace",
      "audio",
      "preserve",
      "seed_key",
      "overrides",
      "source",
    ]);
    expect(Object.keys(story.sequences[0])).toEqual([
      "id",
      "location",
      "continuous",
      "overrides",
      "source",
      "shots",
    ]);
  });

  it("warns about the lines that silently became prose (open point 5)", () => {
    const { warnings } = parse(script);
    expect(warnings.map((w) => w.line)).toEqual([12, 14, 15]);
    expect(warnings[0].message).toContain("indented line looks like a dialogue line");
    expect(warnings[1].message).toContain("`mood:` looks like a key line but is not a known key");
    expect(warnings[2].message).toContain("keys are lower-case (`camera:`)");
  });
});

describe("parsing errors: the first one stops the parse, attributed to its line", () => {
  it("6.2 duplicate shot id across sequences", () => {
    const e = expectError(
      ["= e01  T", "# sq01 kitchen", "## sh010", "Ada waits.", "# sq02 street", "## sh010", "Bo waits."],
      6,
      "sh010",
      "first used on line 3",
    );
    expect(e.quoted).toBe("## sh010");
    expect(e.format()).toBe(`line 6: ${e.message}\n    | ## sh010`);
  });

  it("6.3 unknown subject in who:", () => {
    expectError(
      inShot("who: ada, dan", "Ada waits."),
      4,
      "'dan'",
      "ada, bo, cy, gina, gina_towel, kettle, mom",
    );
  });

  it("6.3 unknown subject in with: and its alias props:", () => {
    expectError(inShot("with: teapot", "Ada waits."), 4, "'teapot'");
    expectError(inShot("props: kettle, Ada", "Ada waits."), 4, "'Ada'");
  });

  it("6.4 a prop cannot speak", () => {
    expectError(inShot("KETTLE: Whistle!"), 4, "kettle", "not a character", "only characters can speak");
  });

  it("6.5 an all-caps name that is no character is an error, not prose", () => {
    const e = expectError(
      inShot("Ada waits.", "CUT TO: black"),
      5,
      "CUT TO",
      "ada, bo, cy, gina, gina_towel, mom",
    );
    expect(e.message).not.toContain("kettle");
    expect(e.quoted).toBe("CUT TO: black");
  });

  it("6.6 content before the first sequence", () => {
    expectError(["= e01  T", "who: ada", "# sq01 kitchen"], 2, "content before the first sequence");
    expectError(["= e01  T", "#sq01 kitchen"], 2, "content before the first sequence");
    expectError(["=", "= e01  T", "# sq01 kitchen"], 1, "content before the first sequence");
  });

  it("6.7 a shot with only key lines", () => {
    const e = expectError(
      ["= e01  T", "# sq01 kitchen", "## sh010", "who: ada", "dur: 3", "", "## sh020", "Ada waits."],
      3,
      "sh010",
      "no action and no dialogue",
    );
    expect(e.quoted).toBe("## sh010");
  });

  it("6.7 the last shot is checked at the end of the text", () => {
    expectError(["= e01  T", "# sq01 kitchen", "## sh010", "Ada waits.", "## sh020", "who: ada"], 5, "sh020");
  });

  it.each(
    ["size: close", "who: ada", "cast: ada", "with: kettle", "props: kettle", "audio: 1-2", "dur: 3"].concat([
      "duration: 3",
      "pace: fast",
    ]),
  )("6.8 `%s` under a sequence header is an error", (line) => {
    const key = line.split(":")[0];
    expectError(
      ["= e01  T", "# sq01 kitchen", line, "## sh010", "Ada waits."],
      3,
      `\`${key}:\` outside a \`## shot\``,
    );
  });

  it("6.11 the legacy yes is only valid on a header", () => {
    for (const v of ["yes", "true", "1", "on"]) {
      expectError(inShot("Ada waits.", `continuous: ${v}`), 5, "first, latent, none");
    }
    expectError(["= e01  T", "# sq01 kitchen", "continuous: maybe"], 3, "first, latent, none");
  });

  it("dialogue outside a shot", () => {
    expectError(
      ["= e01  T", "# sq01 kitchen", "ADA: Hello?", "## sh010", "Ada waits."],
      3,
      "outside a `## shot`",
    );
  });

  it("episode header and sequences are required (errors at line 1, nothing quoted)", () => {
    const e = expectError(["# sq01 kitchen", "## sh010", "Ada waits."], 1, "episode header");
    expect(e.quoted).toBe("");
    expect(e.format()).toBe(`line 1: ${e.message}\n    | `);
    expectError(["// nothing", "= e01  T"], 1, "no sequences");
    expectError([""], 1, "episode header");
  });

  it("sequence header needs an id and a location; a shot needs a sequence", () => {
    expectError(["= e01  T", "# sq01"], 2, "sequence needs an id and a location");
    expectError(["= e01  T", "## sh010", "Ada waits."], 2, "shot appears before any sequence");
  });
});

describe("6.9 variant binding", () => {
  it("drops the base a line put in the cast and re-attributes its lines", () => {
    const { story } = parse(
      inShot("GINA (low): Don't come in.", "who: gina_towel", "Gina leans out of the door."),
    );
    const shot = story.sequences[0].shots[0];
    expect(shot.cast).toEqual(["gina_towel"]);
    expect(shot.dialogue).toEqual([
      { speaker: "gina_towel", mode: "on", delivery: "low", line: "Don't come in." },
    ]);
  });

  it("V.O. lines of the base are re-attributed too", () => {
    const { story } = parse(inShot("who: gina_towel", "GINA (V.O.): Out in a minute.", "Steam."));
    const shot = story.sequences[0].shots[0];
    expect(shot.cast).toEqual(["gina_towel"]);
    expect(shot.dialogue[0]).toEqual({
      speaker: "gina_towel",
      mode: "vo",
      delivery: "",
      line: "Out in a minute.",
    });
  });

  it("naming both the base and its variant is an error at the ## line", () => {
    const e = expectError(
      inShot("who: gina_towel", "with: gina", "Gina leans out of the door."),
      3,
      "names both",
    );
    expect(e.message).toContain("gina and its variant gina_towel");
    expectError(inShot("who: gina", "who: gina_towel", "Gina waits."), 3, "names both gina");
    // A line put the base in, but who: named it afterwards.
    expectError(inShot("GINA: Hi.", "who: gina, gina_towel"), 3, "names both gina");
  });

  it("two variants of one base in a shot are an error", () => {
    const json = seriesS();
    json.subjects.gina_wet = { of: "gina", design: "a soaked woman" };
    const e = parseError(inShot("who: gina_towel, gina_wet", "Drip."), loadSeries(json));
    expect(e.line).toBe(3);
    expect(e.message).toContain("two variants of gina: gina_towel and gina_wet");
  });

  it("a series without variants leaves the base alone", () => {
    const { story } = parse(inShot("GINA: Hi.", "who: ada"));
    expect(story.sequences[0].shots[0].cast).toEqual(["ada", "gina"]);
  });
});

describe("6.10 continuation lines and legacy forms", () => {
  const script = [
    "= e01  T",
    "# sq01 kitchen",
    "continuous: first",
    "## sh010",
    "Ada waits.",
    "## sh020",
    "continuous: none",
    "Ada waits.",
    "## sh030",
    "first: continuity",
    "continuous: latent",
    "Ada waits.",
    "# sq02 street",
    "continuous: yes",
    "## sh040",
    "first: continuity",
    "Ada waits.",
  ];

  it("stores the modes and the legacy notes", () => {
    const { story, warnings } = parse(script);
    const [sq01, sq02] = story.sequences;
    expect(sq01.continuous).toBe("first");
    expect(sq01.legacy).toBeUndefined();
    expect("continuous" in shotOf(story, "sh010")).toBe(false);
    expect(shotOf(story, "sh020").continuous).toBe("none");
    const sh030 = shotOf(story, "sh030");
    expect(sh030.continuous).toBe("latent");
    expect(sh030.first).toBeUndefined();
    expect(sh030.legacy).toEqual([
      "line 10: `first: continuity` on shot sh030 is the old form: write `continuous: first`",
    ]);
    expect(sq02.continuous).toBe("latent");
    expect(sq02.legacy).toEqual([
      "line 14: `continuous: yes` on # sq02 is the old form: write `continuous: latent` (or `first`)",
    ]);
    const sh040 = shotOf(story, "sh040");
    expect(sh040.continuous).toBe("first");
    expect(sh040.legacy?.[0]).toContain("line 16: `first: continuity` on shot sh040");
    expect(warnings).toEqual([]);
  });

  it("derives continues() and the first keyframe method", () => {
    const { story } = parse(script);
    const got = allShots(story).map((r) => [r.shot.id, continues(r.shot, r.sequence, r.index)]);
    expect(got).toEqual([
      ["sh010", null],
      ["sh020", null],
      ["sh030", "latent"],
      ["sh040", "first"],
    ]);
    const refs = allShots(story);
    expect(refs.map((r) => keyframeMethod(r.shot, "first", r.sequence, r.index))).toEqual([
      null,
      null,
      null,
      "continuity",
    ]);
  });

  it("a header default covers every shot after the first; sequence first/last are defaults", () => {
    const { story } = parse([
      "= e01  T",
      "# sq01 kitchen",
      "continuous: first",
      "first: import",
      "last: none",
      "## sh010",
      "Ada waits.",
      "## sh020",
      "Ada waits.",
      "## sh030",
      "first: refs/a.png",
      "Ada waits.",
    ]);
    const refs = allShots(story);
    expect(refs.map((r) => continues(r.shot, r.sequence, r.index))).toEqual([null, "first", "first"]);
    expect(refs.map((r) => keyframeMethod(r.shot, "first", r.sequence, r.index))).toEqual([
      "import",
      "continuity",
      "refs/a.png",
    ]);
    expect(refs.map((r) => keyframeMethod(r.shot, "last", r.sequence, r.index))).toEqual([
      "none",
      "none",
      "none",
    ]);
  });

  it("an explicit continuous: on a header beats its legacy first: continuity, in either order", () => {
    const { story } = parse([
      "= e01  T",
      "# sq01 kitchen",
      "continuous: none",
      "first: continuity",
      "## sh010",
      "A.",
    ]);
    expect(story.sequences[0].continuous).toBe(false);
    expect(story.sequences[0].legacy?.[0]).toContain("line 4: `first: continuity` on # sq01");
    const other = parse(["= e01  T", "# sq01 kitchen", "first: continuity", "## sh010", "A."]).story;
    expect(other.sequences[0].continuous).toBe("first");
  });

  it("last: continuity is stored as written", () => {
    const { story } = parse(inShot("last: Continuity", "A."));
    expect(story.sequences[0].shots[0].last).toBe("continuity");
  });

  it("warns when the episode's first shot continues nothing (open point 11)", () => {
    const { warnings } = parse(inShot("Ada waits.", "continuous: latent"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0].line).toBe(5);
    expect(warnings[0].message).toContain("shot sh010 is the first shot of the episode");
    const legacy = parse(inShot("first: continuity", "A.")).warnings;
    expect(legacy.map((w) => w.line)).toEqual([4]);
    expect(parse(inShot("continuous: none", "A.")).warnings).toEqual([]);
  });
});

describe("6.12 timing precedence and accumulating who:", () => {
  const lines = ["who: ada", "who: cy", "dur: 3.04", "audio: 1-2.5", "dur: model 3-8", "Ada waits."];

  it("a window beats dur: model, which beats dur: auto and dur: <n>", () => {
    const shot = parse(inShot(...lines)).story.sequences[0].shots[0];
    expect(shot.cast).toEqual(["cy", "ada"]);
    expect(shot.timing).toStrictEqual({ audio_in: 1, audio_out: 2.5 });
    const noWindow = parse(inShot(...lines.filter((l) => !l.startsWith("audio")))).story.sequences[0]
      .shots[0];
    expect(noWindow.timing).toStrictEqual({ model: true, min: 3, max: 8 });
    const plain = parse(inShot("dur: 3.04", "dur: auto", "ADA: Hi.")).story.sequences[0].shots[0];
    expect(plain.timing).toStrictEqual({ auto: true });
    const seconds = parse(inShot("dur: 3", "dur: 3.04", "A.")).story.sequences[0].shots[0];
    expect(seconds.timing).toStrictEqual({ seconds: 3.04 });
    const model = parse(inShot("duration: MODEL", "A.")).story.sequences[0].shots[0];
    expect(model.timing).toStrictEqual({ model: true });
    expect(parse(inShot("dur: 1e1", "A.")).story.sequences[0].shots[0].timing).toStrictEqual({ seconds: 10 });
  });

  it("writes the window as floats in shots.json", () => {
    const text = storyToJson(parse(inShot(...lines)).story);
    expect(text).toContain(
      '"timing": {\n            "audio_in": 1.0,\n            "audio_out": 2.5\n          }',
    );
  });

  it("who:/with: merge: the line's names first, then the bucket, first occurrence kept", () => {
    const a = parse(inShot("ADA: Hi.", "who: bo")).story.sequences[0].shots[0];
    expect(a.cast).toEqual(["bo", "ada"]);
    const b = parse(inShot("who: ada", "BO: Hi.")).story.sequences[0].shots[0];
    expect(b.cast).toEqual(["ada", "bo"]);
    const c = parse(inShot("who: ada ,bo", "who: bo, cy", "with: kettle", "props: ada", "A.")).story
      .sequences[0].shots[0];
    expect(c.cast).toEqual(["bo", "cy", "ada"]);
    expect(c.props).toEqual(["ada", "kettle"]);
  });
});

describe("6.13 bad values", () => {
  it("audio window out before in", () => {
    expectError(inShot("audio: 7.40-3.10", "A."), 4, "(3.1)", "(7.4)");
    expectError(inShot("audio: 3-3", "A."), 4, "(3.0)");
    expectError(inShot("audio: 1-x", "A."), 4, "`audio: <in>-<out>`");
    expectError(inShot("audio: 1.2.3-4", "A."), 4, "is not a window");
  });

  it("dur values", () => {
    expectError(inShot("dur: 3s", "A."), 4, "not a number, auto or model");
    expectError(inShot("dur: model 8-3", "A."), 4, "0 < min < max");
    expectError(inShot("dur: model 0-3", "A."), 4, "0 < min < max");
    expectError(inShot("dur: model fast", "A."), 4, "model <min>-<max>");
  });

  it("size: huge lists the vocabulary", () => {
    const vocabulary =
      "extreme close-up (ecu/xcu), close-up (cu/close), medium close-up (mcu), medium shot (ms/medium/mid), " +
      "cowboy shot (cowboy), medium-wide shot (mws/mls), full shot (fs/full), wide shot (ws/wide/ls/long), " +
      "extreme wide shot (ews/xws/els/xls)";
    expect(SIZE_VOCABULARY).toBe(vocabulary);
    expectError(inShot("size: huge", "A."), 4, "'huge'", vocabulary);
  });

  it("overlap out of range or not whole", () => {
    for (const v of ["lots", "400", "0", "3.5"]) expectError(inShot(`overlap: ${v}`, "A."), 4, "1 to 360");
    expect(parse(inShot("overlap: 360", "A.")).story.sequences[0].shots[0].overlap).toBe(360);
  });

  it("pace lists the three", () => {
    expectError(inShot("pace: brisk", "A."), 4, "'brisk'", "fast, normal, slow");
    expect(parse(inShot("pace: FAST", "A.")).story.sequences[0].shots[0].pace).toBe("fast");
  });
});

describe("6.14 keyframe lines", () => {
  it("stores paths as written and methods lower-cased", () => {
    const shot = parse(inShot("first: refs/stills/Open.PNG", "last: NONE", "A.")).story.sequences[0].shots[0];
    expect(shot.first).toBe("refs/stills/Open.PNG");
    expect(shot.last).toBe("none");
    expect(parse(inShot("first: GENERATE", "A.")).story.sequences[0].shots[0].first).toBe("generate");
    expect(parse(inShot("first: a.JPEG", "last: b.webp", "A.")).story.sequences[0].shots[0].last).toBe(
      "b.webp",
    );
  });

  it("rejects anything else", () => {
    expectError(inShot("A.", "last: refs/x.gif"), 5, "`last: refs/x.gif`", "keyframe method", ".png");
    expectError(inShot("first: later", "A."), 4, "`first: later`");
  });
});

describe("other key lines", () => {
  it("stores every shot value in the order shots.json writes them", () => {
    const { story } = parse(
      inShot(
        "camera: pushes in slowly",
        "sound: rain on the window",
        "music: low strings",
        "extras: two cooks",
        "text: OPEN",
        "plate: kitchen_rev",
        "policy: clone",
        "retention: partially_copy",
        "model: m.safetensors",
        "lora: x.safetensors:0.6",
        "steps: 12",
        "target: ltx2",
        "profile: quality",
        "first: import",
        "last: generate",
        "overlap: 30",
        "continuous: none",
        "pace: slow",
        "size: ECU",
        "A.",
      ),
    );
    const shot = story.sequences[0].shots[0];
    expect(shot).toMatchObject({
      plate: "kitchen_rev",
      size: "ecu",
      camera: "pushes in slowly",
      sound: "rain on the window",
      music: "low strings",
      extras: "two cooks",
      text: "OPEN",
      pace: "slow",
      audio: "clone",
      preserve: "loose",
      overrides: { model: "m.safetensors", lora: "x.safetensors:0.6", steps: 12 },
      target: "ltx2",
      profile: "quality",
      first: "import",
      last: "generate",
      overlap: 30,
      continuous: "none",
    });
    expect(Object.keys(shot).slice(-7)).toEqual([
      "source",
      "target",
      "profile",
      "first",
      "last",
      "overlap",
      "continuous",
    ]);
  });

  it("keeps values it cannot interpret as unparsed, keyed by IR field", () => {
    const shot = parse(inShot("steps: eight", "retention: copy_all", "A.")).story.sequences[0].shots[0];
    expect(shot.overrides.steps).toBeNull();
    expect(shot.preserve).toBeNull();
    expect(shot.unparsed).toEqual({ steps: "eight", preserve: "copy_all" });
    expect(Object.keys(shot).at(-1)).toBe("unparsed");
    const fixed = parse(inShot("steps: eight", "steps: 8", "A.")).story.sequences[0].shots[0];
    expect(fixed.overrides.steps).toBe(8);
    expect(fixed.unparsed).toBeUndefined();
  });

  it("empty values unset, the last line wins", () => {
    const shot = parse(
      inShot("camera: pans", "camera:", "model: a", "model:", "plate: street", "plate:", "A."),
    ).story.sequences[0].shots[0];
    expect(shot.camera).toBeNull();
    expect(shot.overrides.model).toBeNull();
    expect(shot.plate).toBe("kitchen");
  });

  it("a line's value may contain colons and spaces around the colon are allowed", () => {
    const shot = parse(inShot("camera :  follows her: slowly", "ADA : Note: it's late.")).story.sequences[0]
      .shots[0];
    expect(shot.camera).toBe("follows her: slowly");
    expect(shot.dialogue[0].line).toBe("Note: it's late.");
  });

  it("stores a sequence's inheritable lines and warns about the ignored ones (open point 6)", () => {
    const { story, warnings } = parse([
      "= e01  T",
      "# sq01 kitchen",
      "model: m.safetensors",
      "lora: none",
      "steps: eight",
      "target: ltx2",
      "profile: quality",
      "first: import",
      "last: none",
      "overlap: 24",
      "continuous: latent",
      "camera: handheld",
      "plate: kitchen_rev",
      "A note on the scene.",
      "## sh010",
      "A.",
    ]);
    const seq = story.sequences[0];
    expect(seq).toStrictEqual({
      id: "sq01",
      location: "kitchen",
      continuous: "latent",
      overrides: { model: "m.safetensors", lora: "none", steps: null },
      source: { line: 2 },
      target: "ltx2",
      profile: "quality",
      first: "import",
      last: "none",
      overlap: 24,
      unparsed: { steps: "eight" },
      shots: seq.shots,
    });
    expect(Object.keys(seq)).toEqual([
      "id",
      "location",
      "continuous",
      "overrides",
      "source",
      "target",
      "profile",
      "first",
      "last",
      "overlap",
      "unparsed",
      "shots",
    ]);
    // Nothing but the sequence-level values (plate, model, lora, steps, ...) inherits.
    expect(seq.shots[0].plate).toBe("kitchen");
    expect(seq.shots[0].camera).toBeNull();
    expect(warnings.map((w) => w.line)).toEqual([12, 13]);
    expect(warnings[0].message).toContain("`camera:` under the sequence header of sq01 is ignored");
  });
});

describe("dialogue", () => {
  it.each([
    ["(V.O.)", "vo", ""],
    ["(O.S.)", "os", ""],
    ["(V.O., into phone)", "vo", "into phone"],
    ["(off-screen)", "os", ""],
    ["(breathless and certain)", "on", "breathless and certain"],
    ["(O.S., voice-over)", "vo", ""],
    ["( quietly ,, , to herself )", "on", "quietly, to herself"],
    ["()", "on", ""],
  ])("parenthetical %s", (paren, mode, delivery) => {
    expect(splitParenthetical(paren.slice(1, -1))).toEqual({ mode, delivery });
    const shot = parse(inShot(`ADA ${paren}: Hi.`)).story.sequences[0].shots[0];
    expect(shot.dialogue[0]).toEqual({ speaker: "ada", mode, delivery, line: "Hi." });
    expect(shot.cast).toEqual(mode === "on" ? ["ada"] : []);
  });

  it("is matched on the upper-cased character id", () => {
    const json = seriesS();
    json.subjects.dr_walter = { name: "Dr Walter", voice: "gravel" };
    const shot = parse(inShot("DR_WALTER (V.O.): Stay.", "GINA_TOWEL: Fine."), loadSeries(json)).story
      .sequences[0].shots[0];
    expect(shot.dialogue.map((d) => d.speaker)).toEqual(["dr_walter", "gina_towel"]);
    expect(shot.cast).toEqual(["gina_towel"]);
  });

  it("speakers the strict pattern refuses become prose, with a warning", () => {
    const { story, warnings } = parse(
      inShot(
        "DR. WALTER: Stay.",
        "ÉLODIE: Bonjour.",
        "ADA (softly (very)): Hi.",
        "Note: lower-case is prose",
        "A.",
      ),
    );
    expect(story.sequences[0].shots[0].dialogue).toEqual([]);
    expect(story.sequences[0].shots[0].action).toBe(
      "DR. WALTER: Stay. ÉLODIE: Bonjour. ADA (softly (very)): Hi. Note: lower-case is prose A.",
    );
    expect(warnings.map((w) => w.line)).toEqual([4, 5, 6]);
    expect(warnings[0].message).toContain("`DR. WALTER:` looks like a dialogue line");
    expect(warnings[1].message).toContain("`ÉLODIE:`");
    expect(warnings[2].message).toContain("a parenthetical cannot hold parentheses");
  });

  it("indented key lines warn as key lines", () => {
    const { story, warnings } = parse(inShot("A.", "\twho: ada"));
    expect(story.sequences[0].shots[0].cast).toEqual([]);
    expect(warnings).toEqual([
      { line: 5, message: "indented line looks like a key line but only column 0 counts: read as action" },
    ]);
  });
});

describe("text handling, headers and spans", () => {
  it("strips a BOM and reads CRLF and CR line endings with the same line numbers", () => {
    const lf = ["= e01  T", "# sq01 kitchen", "## sh010", "Ada waits.   ", "", "// trailing", ""].join("\n");
    const expected = parse(lf).story;
    expect(parse(`\ufeff${lf.replaceAll("\n", "\r\n")}`).story).toStrictEqual(expected);
    expect(parse(lf.replaceAll("\n", "\r")).story).toStrictEqual(expected);
    expect(expected.sequences[0].shots[0].source).toEqual({ line: 3, end_line: 4 });
    expect(expected.sequences[0].shots[0].action).toBe("Ada waits.");
  });

  it("spans end at the last line that belonged to the shot", () => {
    const { story } = parse([
      "= e01  T",
      "# sq01 kitchen",
      "## sh010",
      "Ada waits.",
      "who: ada",
      "",
      "// comment",
      "= e01  Moved title",
      "## sh020",
      "BO: Hi.",
      "",
      "# sq02 street",
      "Scene note, not a shot line.",
      "## sh030",
      "##",
      "### not a header",
    ]);
    expect(allShots(story).map((r) => [r.shot.id, r.shot.source.line, r.shot.source.end_line])).toEqual([
      ["sh010", 3, 5],
      ["sh020", 9, 10],
      ["sh030", 14, 16],
    ]);
    expect(shotOf(story, "sh030").action).toBe("## ### not a header");
    expect(shotSpans(story)).toEqual([
      { id: "sh010", line: 3, end_line: 5 },
      { id: "sh020", line: 9, end_line: 10 },
      { id: "sh030", line: 14, end_line: 16 },
    ]);
  });

  it("the last episode header wins, with a warning (open point 14); seed keys use it", () => {
    const { story, warnings } = parse(["= e01  First", "# sq01 kitchen", "## sh010", "A.", "= e02"]);
    expect(story.episode).toBe("e02");
    expect(story.title).toBe("");
    expect(story.sequences[0].shots[0].seed_key).toBe("e02/sq01/sh010");
    expect(warnings).toEqual([
      { line: 5, message: "a second episode header (the first is on line 1): the last one wins" },
    ]);
  });

  it("shot ids take the first word; a sequence with no shots is legal", () => {
    const { story } = parse([
      "= e01 T",
      "# sq01 kitchen",
      "# sq02   street  at night",
      "## sh010   wide",
      "A.",
    ]);
    expect(story.title).toBe("T");
    expect(story.sequences.map((s) => [s.id, s.location, s.shots.length])).toEqual([
      ["sq01", "kitchen", 0],
      ["sq02", "street", 1],
    ]);
    expect(story.sequences[1].shots[0].id).toBe("sh010");
  });

  it("series_info comes from the series block with numeric strings converted", () => {
    const json = seriesS();
    json.series.fps = "25";
    json.series.width = 1280.0;
    delete json.series.height;
    const { story } = parse(inShot("A."), loadSeries(json));
    expect(story.series).toStrictEqual({ fps: 25, width: 1280, height: 768 });
  });

  it("parses a 300-shot script (timing: npm run bench)", () => {
    const lines = ["= ep01  Long"];
    for (let q = 0; q < 30; q++) {
      lines.push(`# sq${q} kitchen`, "continuous: latent");
      for (let s = 0; s < 10; s++) {
        lines.push(
          `## sh${q}_${s}`,
          "who: ada, bo",
          "size: mcu",
          "dur: 3.04",
          "ADA (quietly): It rained all night and nobody saw it but me.",
          "BO: There's gold at the end of the path.",
          "Ada turns to the window.",
          "",
        );
      }
    }
    const text = lines.join("\n");
    const { story } = parseScript(text, S);
    expect(allShots(story)).toHaveLength(300);
    expect(allShots(story)[299].shot.source.end_line).toBe(text.split("\n").length - 1);
  });
});

describe("shots.json", () => {
  const script = [
    "= ep07   Die lange Nacht – „Küche“",
    "# sq01 kitchen",
    "model: m.safetensors",
    "continuous: first",
    "## sh010",
    "who: ada",
    "dur: 3",
    "ADA (V.O., müde): Schon wieder Regen.",
    "## sh020",
    "first: continuity",
    "dur: model 3-8",
    "audio: 0-2",
    "steps: eight",
    'Ada "waits".',
    "## sh030",
    "dur: auto",
    "BO: Hi.",
  ];

  it("round-trips: written, read and written again gives the same text", () => {
    const { story } = parse(script);
    const text = storyToJson(story);
    expect(text.endsWith("}\n")).toBe(true);
    expect(text).toContain("„Küche“");
    expect(text).toContain('"seconds": 3.0');
    const again = storyFromJson(text);
    expect(again).toStrictEqual(story);
    expect(storyToJson(again)).toBe(text);
    expect(text.split("\n")[1]).toBe('  "episode": "ep07",');
  });

  it("reads a legacy `continuous: true` header as latent and keeps unknown keys", () => {
    const text = storyToJson(parse(script).story).replace('"continuous": "first"', '"continuous": true');
    const story = storyFromJson(text);
    expect(story.sequences[0].continuous).toBe("latent");
    const extra = JSON.parse(storyToJson(story));
    extra.sequences[0].shots[0].note = "kept";
    const written = storyToJson(storyFromJson(JSON.stringify(extra)));
    expect(JSON.parse(written).sequences[0].shots[0].note).toBe("kept");
    expect(() => storyFromJson("[]")).toThrow(/not an object/);
    expect(() => storyFromJson('{"sequences": 3}')).toThrow(/not a list/);
  });
});
