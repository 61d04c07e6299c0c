// The check's answer mapped to editor diagnostics: `diagnostics` when present, else `errors` and `warnings`; lines
// and columns turned into document offsets, clamped to the document, a null line on the first line.
import { Text } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import type { CheckAnswer } from "../web/src/types.ts";
import { countText, type Problem, place, placeAll, problemsOf } from "../web/src/views/script/diagnostics.ts";

const doc = Text.of(["= e01  T", "# sq01 kitchen", "## sh010", "  dur: 3s", "", "Ada waits."]);
const problem = (p: Partial<Problem>): Problem => ({
  file: "script",
  severity: "error",
  line: 1,
  col: null,
  message: "m",
  ...p,
});
const text = (from: number, to: number) => doc.sliceString(from, to);

describe("problemsOf", () => {
  it("reads the older answer: errors then warnings, each in the file it names or the file checked", () => {
    const answer: CheckAnswer = {
      ok: false,
      errors: [{ file: "script", line: 4, message: "bad dur" }],
      warnings: [
        { file: "series", line: null, message: "unused" },
        { line: 2, col: 3, message: "no file named" },
      ],
    };
    expect(problemsOf(answer, "script")).toEqual([
      { file: "script", severity: "error", line: 4, col: null, message: "bad dur" },
      { file: "series", severity: "warning", line: null, col: null, message: "unused" },
      { file: "script", severity: "warning", line: 2, col: 3, message: "no file named" },
    ]);
  });

  it("prefers diagnostics when the answer carries them, with their severities, and ignores the older lists", () => {
    const answer: CheckAnswer = {
      ok: false,
      errors: [{ file: "script", line: 4, message: "first only" }],
      warnings: [],
      diagnostics: [
        { severity: "error", line: 4, message: "bad dur" },
        { severity: "warning", line: 6, col: 1, message: "looks like dialogue" },
        { severity: "info", line: 2, message: "note" },
        { severity: "fatal", line: 1, message: "unknown severity counts as an error" },
      ],
    };
    expect(problemsOf(answer, "series").map((p) => [p.file, p.severity, p.line, p.col, p.message])).toEqual([
      ["series", "error", 4, null, "bad dur"],
      ["series", "warning", 6, 1, "looks like dialogue"],
      ["series", "info", 2, null, "note"],
      ["series", "error", 1, null, "unknown severity counts as an error"],
    ]);
    expect(problemsOf({ ok: true, diagnostics: [] }, "script")).toEqual([]);
    expect(problemsOf({ ok: true }, "script")).toEqual([]);
  });
});

describe("place", () => {
  it("covers a line's text without its leading space when there is no column", () => {
    const p = place(problem({ line: 4 }), doc);
    expect(p.line).toBe(4);
    expect(text(p.from, p.to)).toBe("dur: 3s");
  });

  it("starts at a 1-based column and covers the word there", () => {
    const p = place(problem({ line: 2, col: 8, severity: "warning" }), doc);
    expect(text(p.from, p.to)).toBe("kitchen");
    expect(p.severity).toBe("warning");
    const end = place(problem({ line: 2, col: 99 }), doc);
    expect(end.from).toBe(doc.line(2).to);
    expect(end.to).toBe(end.from);
  });

  it("puts a null line on the first line, and clamps lines outside the document", () => {
    expect(place(problem({ line: null, col: 5 }), doc)).toMatchObject({
      line: 1,
      from: 0,
      to: doc.line(1).to,
    });
    expect(place(problem({ line: 0 }), doc).line).toBe(1);
    expect(place(problem({ line: -3 }), doc).line).toBe(1);
    const past = place(problem({ line: 40 }), doc);
    expect(past.line).toBe(6);
    expect(text(past.from, past.to)).toBe("Ada waits.");
  });

  it("places on an empty line and on an empty document without leaving it", () => {
    const blank = place(problem({ line: 5 }), doc);
    expect([blank.from, blank.to]).toEqual([doc.line(5).from, doc.line(5).from]);
    const empty = place(problem({ line: 3, col: 4 }), Text.of([""]));
    expect(empty).toMatchObject({ line: 1, from: 0, to: 0 });
  });

  it("places only the problems of the file in the editor", () => {
    const problems = [problem({ line: 3 }), problem({ file: "series", line: 2 })];
    expect(placeAll(problems, "script", doc).map((p) => text(p.from, p.to))).toEqual(["## sh010"]);
  });
});

describe("countText", () => {
  it("counts by severity", () => {
    expect(countText([])).toBe("no problems");
    expect(
      countText([problem({}), problem({}), problem({ severity: "warning" }), problem({ severity: "info" })]),
    ).toBe("2 errors, 1 warning, 1 note");
  });
});
