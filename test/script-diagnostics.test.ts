// Script diagnostics: every error of a script in one pass, each on the line that is wrong, and a warning for each
// line that looks like dialogue or a key line but reads as action; through the check, the build and the save.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkSources } from "../lib/episode/check.ts";
import { diagnoseScript, parseScript } from "../lib/script/parse.ts";
import { loadSeries } from "../lib/series/load.ts";
import { shippedRegistry } from "../lib/targets/registry.ts";
import { seriesS } from "./support/series-s.ts";
import { makeStudio, SCRIPT, type Studio } from "./support/studio-episode.ts";

const S = loadSeries(seriesS());
const SERIES_TEXT = JSON.stringify(seriesS(), null, 2);
const env = { defaultTarget: "animatic", targets: shippedRegistry() };

const check = (lines: string[]) =>
  checkSources({ file: "script", scriptText: lines.join("\n"), seriesText: SERIES_TEXT }, env);
const warningsOf = (lines: string[]) => diagnoseScript(lines.join("\n"), S).warnings;
/** `line: message` of each diagnostic, for compact expectations. */
const brief = (list: { severity: string; line: number | null; message: string }[]) =>
  list.map((d) => `${d.severity} ${d.line}: ${d.message}`);

// Lines 1–6 are the same in every script below: header, sequence, sh010 with a line of dialogue.
const HEAD = ["= e01  T", "# sq01 kitchen", "## sh010", "who: ada", "dur: 3", "ADA: Hi."];

describe("one pass collects every error", () => {
  const three = [
    ...HEAD,
    "## sh020",
    "who: dan", // 8: unknown subject
    "dur: 2",
    "Dan waits.",
    "## sh030",
    "size: huge", // 12: unknown size
    "dur: 3s", // 13: a unit on the seconds
    "Ada runs.",
  ];

  it("reports three mistakes as three errors, each on its own line, with the column of the wrong token", () => {
    const result = diagnoseScript(three.join("\n"), S);
    expect(result.story).toBeNull();
    expect(result.errors.map((e) => [e.line, e.col])).toEqual([
      [8, 6],
      [12, 7],
      [13, 6],
    ]);
    expect(result.errors[0].message).toContain("unknown subject 'dan'");
    expect(result.errors[1].message).toContain("unknown size 'huge'");
    expect(result.errors[2].message).toBe(
      "`dur: 3s` is not a number, auto or model (seconds are written without a unit: `dur: 3`)",
    );
  });

  it("keeps the first error for parseScript and the check's errors field, all of them in diagnostics", () => {
    expect(() => parseScript(three.join("\n"), S)).toThrow("unknown subject 'dan'");
    const result = check(three);
    expect(result.ok).toBe(false);
    expect(result.errors).toEqual([
      { file: "script", line: 8, message: expect.stringContaining("unknown subject 'dan'") },
    ]);
    expect(result.diagnostics.map((d) => [d.severity, d.file, d.line, d.col])).toEqual([
      ["error", "script", 8, 6],
      ["error", "script", 12, 7],
      ["error", "script", 13, 6],
    ]);
  });

  it("goes on past a bad header, a repeated shot id and an empty shot", () => {
    const result = diagnoseScript(
      [
        "= e01  T",
        "Before anything.", // 2: content before the first sequence
        "Still before.", // 3: not reported again
        "# sq01", // 4: no location
        "## sh010",
        "Ada waits.",
        "## sh010", // 7: used twice
        "Ada waits again.",
        "## sh020", // 9: no action and no dialogue
        "## sh030",
        "who: ada, dan", // 11: unknown subject at column 11
        "Ada waits.",
      ].join("\n"),
      S,
    );
    expect(result.errors.map((e) => [e.line, e.col])).toEqual([
      [2, undefined],
      [4, undefined],
      [7, undefined],
      [9, undefined],
      [11, 11],
    ]);
    expect(result.errors[2].message).toBe("shot id sh010 is used twice: it was first used on line 5");
  });

  it("finds the build's errors past the first, each at its shot's key line", () => {
    const result = check([
      ...HEAD,
      "## sh020",
      "target: nope", // 8
      "dur: 2",
      "Ada waits.",
      "## sh030",
      "dur: 2",
      "profile: fast", // 13
      "Ada waits.",
    ]);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0].line).toBe(8);
    expect(brief(result.diagnostics)).toEqual([
      expect.stringMatching(/^error 8: shot sh020: target 'nope' is not a video target/),
      expect.stringMatching(/^error 13: shot sh030: .*profile 'fast'/),
    ]);
  });

  it("answers no diagnostics for a script that builds without warnings, the build's warnings at their lines", () => {
    expect(check(HEAD).diagnostics).toEqual([]);
    expect(brief(check(SCRIPT.split("\n")).diagnostics)).toEqual([
      "warning 2: sequence sq01: Ada and Bo each appear alone on the same plate (kitchen): give each speaker their own angle",
    ]);
  });
});

describe("lines that look like dialogue or a key line but read as action", () => {
  const cases: [string, string][] = [
    [
      "Ada: I see it.",
      "`Ada: I see it.` looks like dialogue but a speaker is written as the character's id in capitals (`ADA: …`): read as action",
    ],
    [
      "ada (softly): I see it.",
      "`ada (softly): I see it.` looks like dialogue but a speaker is written as the character's id in capitals (`ADA (softly): …`): read as action",
    ],
    [
      "ADA (softly) I see it.",
      "`ADA (softly) I see it.` looks like dialogue but has no colon after the parenthetical (`ADA (softly): …`): read as action",
    ],
    [
      "ADA (softly: I see it.",
      "`ADA (softly: I see it.` looks like dialogue but its parenthetical has no closing `)` (`ADA (…): …`): read as action",
    ],
    [
      "ADA:",
      "`ADA:` looks like dialogue but nothing is said after the colon: the words go on the same line, read as action",
    ],
    [
      "ADA (V.O.)",
      "`ADA (V.O.)` looks like a speaker's name on its own line: the words go on the same line (`ADA (V.O.): …`), read as action",
    ],
    [
      "(quietly)",
      "`(quietly)` looks like a parenthetical on its own line: it goes between the speaker and the colon (`NAME (quietly): …`), read as action",
    ],
    ["dur 3s", "`dur 3s` looks like a `dur:` line without its colon (`dur: 3`): read as action"],
    [
      "who ada, bo",
      "`who ada, bo` looks like a `who:` line without its colon (`who: ada, bo`): read as action",
    ],
    [
      "plate kitchen_rev",
      "`plate kitchen_rev` looks like a `plate:` line without its colon (`plate: kitchen_rev`): read as action",
    ],
    [
      "durr: 3",
      "`durr:` looks like a key line but is not a known key (did you mean `dur:`?): read as action",
    ],
  ];

  it.each(cases)("%s", (line, message) => {
    expect(warningsOf([...HEAD, line])).toEqual([{ line: 7, message }]);
  });

  it("knows a character by its display name too", () => {
    const json = seriesS();
    json.subjects.dr_walter = { name: "Dr. Walter", voice: "gravel" };
    const { warnings } = diagnoseScript([...HEAD, "Dr. Walter: Stay."].join("\n"), loadSeries(json));
    expect(warnings).toEqual([
      {
        line: 7,
        message:
          "`Dr. Walter: Stay.` looks like dialogue but a speaker is written as the character's id in capitals (`DR_WALTER: …`): read as action",
      },
    ]);
  });

  it("stays quiet on action that only resembles them", () => {
    const prose = [
      "Later: the kitchen is dark.", // a capitalised word and a colon, not a character
      "Note: lower-case words after it.",
      "FADE IN:", // no character, nothing after the colon
      "ADA (30) bursts in.", // a character introduced with her age
      "camera pans left across the table.", // a free-text key word starting prose
      "with a sigh, Bo sits.", // `with` followed by words that are not subjects
      "size matters here.", // `size` followed by something that is no size
      "target practice on the lawn.", // `target` and `profile` are never guessed at
      "plate smashes on the floor.", // `plate` followed by something that is no location
      "Ada waits (patiently).",
      "BO glances at ADA.",
    ];
    expect(warningsOf([...HEAD, ...prose])).toEqual([]);
  });

  it("warns nothing on the starter episode", async () => {
    const starter = fileURLToPath(new URL("../lib/episode/starter/", import.meta.url));
    const series = await readFile(`${starter}series.json`, "utf8");
    const script = await readFile(`${starter}starter.md`, "utf8");
    expect(diagnoseScript(script, loadSeries(series)).warnings).toEqual([]);
    const result = checkSources({ file: "script", scriptText: script, seriesText: series }, env);
    expect(result).toMatchObject({ ok: true, diagnostics: [] });
  });
});

describe("each error points at the line that is wrong", () => {
  it("a parenthetical missing its colon is blamed for the shot left without dialogue, not the `dur:` below it", () => {
    const script = [...HEAD, "## sh020", "who: ada", "ADA (softly) I see it.", "dur: auto"];
    const result = check(script);
    // The contract's fields stay as they were: the build's own words at the `dur:` line.
    expect(result.errors).toEqual([
      {
        file: "script",
        line: 10,
        message: "shot sh020: `dur: auto` times the dialogue, but the shot has none: write `dur: <seconds>`",
      },
    ]);
    expect(brief(result.diagnostics)).toEqual([
      "error 9: shot sh020: `dur: auto` times the dialogue, but the shot has none: write `dur: <seconds>` (this line looks like dialogue but reads as action)",
      "warning 9: `ADA (softly) I see it.` looks like dialogue but has no colon after the parenthetical (`ADA (softly): …`): read as action",
    ]);
  });

  it("a mixed-case speaker line is blamed the same way", () => {
    const result = check([...HEAD, "## sh020", "dur: auto", "Ada: I see it."]);
    expect(result.diagnostics.map((d) => [d.severity, d.line])).toEqual([
      ["error", 9],
      ["warning", 9],
    ]);
  });

  it("a shot without dialogue and no such line keeps the `dur:` line", () => {
    const result = check([...HEAD, "## sh020", "dur: auto", "Ada waits."]);
    expect(result.diagnostics.map((d) => [d.severity, d.line])).toEqual([["error", 8]]);
  });
});

describe("through the routes", () => {
  let s: Studio;
  beforeAll(async () => {
    s = await makeStudio();
  });
  afterAll(async () => {
    await s.cleanup();
  });

  it("POST /studio/episode/new answers its check's diagnostics: none for the starter", async () => {
    const made = await s.call("POST", "/episode/new", { parent: await s.show(), name: "ep01" });
    expect(made.status).toBe(200);
    expect(made.body.check).toMatchObject({ ok: true, diagnostics: [] });
  });

  it("POST /studio/source/check, PUT /studio/source and POST /studio/build answer diagnostics", async () => {
    const ep = await s.episode(SCRIPT);
    const broken = SCRIPT.replace("who: bo", "who: dan").replace("dur: 2\nCy runs.", "dur: 2s\nCy runs.");
    const checked = await s.call("POST", "/source/check", { ep, file: "script", text: broken });
    expect(checked.status).toBe(200);
    expect(checked.body.errors).toHaveLength(1);
    expect(checked.body.diagnostics.map((d: { line: number }) => d.line)).toEqual([8, 12]);

    const read = await s.call("GET", "/source", { ep, file: "script" });
    const saved = await s.call("PUT", "/source", {
      ep,
      file: "script",
      text: broken,
      base_hash: read.body.hash,
    });
    expect(saved.status).toBe(200);
    expect(saved.body.check.diagnostics.map((d: { line: number }) => d.line)).toEqual([8, 12]);
    expect(saved.body.build.ok).toBe(false);
    expect(saved.body.build.error).toBe(
      "script line 8: unknown subject 'dan' (subjects: ada, bo, cy, gina, gina_towel, kettle, mom)",
    );
    expect(
      saved.body.build.diagnostics.map((d: { line: number; severity: string }) => [d.severity, d.line]),
    ).toEqual([
      ["error", 8],
      ["error", 12],
    ]);

    const built = await s.call("POST", "/build", { ep });
    expect(built.body.ok).toBe(false);
    expect(built.body.diagnostics).toEqual(saved.body.build.diagnostics);

    const again = await s.call("PUT", "/source", {
      ep,
      file: "script",
      text: SCRIPT,
      base_hash: saved.body.hash,
    });
    expect(again.body.build.ok).toBe(true);
    // Both passes warn the same: said once.
    expect(brief(again.body.build.diagnostics)).toEqual([
      "warning 2: sequence sq01: Ada and Bo each appear alone on the same plate (kitchen): give each speaker their own angle",
    ]);
  });
});
