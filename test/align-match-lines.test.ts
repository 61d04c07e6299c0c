// The text side of alignment: the script's dialogue lines, words as matching sees them, and the recogniser's grammar.
import { describe, expect, it } from "vitest";
import { jsgfGrammar } from "../lib/align/grammar.ts";
import {
  editDistance,
  matchWords,
  recognisedWords,
  similarity,
  spokenWords,
} from "../lib/align/normalize.ts";
import { dialogueLines } from "../lib/align/script-lines.ts";
import { ScriptError } from "../lib/script/errors.ts";
import { loadSeries } from "../lib/series/load.ts";
import { seriesS } from "./support/series-s.ts";

const S = loadSeries(seriesS());

describe("dialogueLines", () => {
  it("lists each line with its shot, line number, speaker and words, in script order", () => {
    const script = [
      "\ufeff= ep01  Pilot",
      "# sq01  kitchen",
      "## sh010",
      "who: ada",
      "ADA: Is it on?",
      "Steam rises.",
      "// BO: not a line",
      "  BO: indented, so prose",
      "BO (V.O., tired): It is.",
      "",
      "# sq02  kitchen",
      "## sh020",
      "GINA_TOWEL: Towel.",
      "GINA: Who's there?",
      "## sh030",
      "The kettle boils.",
    ].join("\r\n");
    expect(dialogueLines(script, S)).toEqual([
      { shot: "sh010", line: 5, speaker: "ada", text: "Is it on?" },
      { shot: "sh010", line: 9, speaker: "bo", text: "It is." },
      { shot: "sh020", line: 13, speaker: "gina_towel", text: "Towel." },
      { shot: "sh020", line: 14, speaker: "gina_towel", text: "Who's there?" },
    ]);
  });

  it("throws the parser's error for a script that does not parse", () => {
    expect(() => dialogueLines("= e  t\n# sq01  kitchen\n## sh010\nZED: hi\n", S)).toThrow(ScriptError);
  });
});

describe("words for matching", () => {
  it("lower-cases, drops punctuation and asides, keeps digits and apostrophes for the grammar", () => {
    expect(spokenWords("Don’t — (beat) STOP, 42 times... [laughs] well-known 'quoted'")).toEqual([
      "don't",
      "stop",
      "42",
      "times",
      "well-known",
      "quoted",
    ]);
    expect(matchWords("Don’t stop: well-known.")).toEqual(["dont", "stop", "well", "known"]);
  });

  it("reads recogniser tokens: alternates, silences, noises and punctuation", () => {
    expect(recognisedWords("close(2)")).toEqual(["close"]);
    expect(recognisedWords(" Hello,")).toEqual(["hello"]);
    expect(recognisedWords("don't(3)")).toEqual(["dont"]);
    for (const t of ["<sil>", "<s>", "</s>", "[noise]", "[NOISE]", "++breath++", "+um+", "", "...", " - "]) {
      expect(recognisedWords(t)).toEqual([]);
    }
  });

  it("scores similarity: exact 1, close spellings high, short words and numbers only when equal", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
    expect(similarity("colour", "colour")).toBe(1);
    expect(similarity("colour", "color")).toBeCloseTo(5 / 6);
    expect(similarity("grey", "gray")).toBe(0.75);
    expect(similarity("a", "i")).toBe(0);
    expect(similarity("on", "in")).toBe(0);
    expect(similarity("42", "43")).toBe(0);
    expect(similarity("kettle", "banana")).toBeLessThan(0.3);
  });
});

describe("jsgfGrammar", () => {
  const dict = new Set([
    "is",
    "it",
    "on",
    "hello",
    "there",
    "don't",
    "stop",
    "well-known",
    "well",
    "made",
    "the",
    "end",
  ]);

  it("makes one rule per distinct phrase, any sequence of them, and names the dropped words", () => {
    const { grammar, phrases, dropped } = jsgfGrammar(
      [
        { text: "Hello there! Is it on?" },
        { text: "Don’t stop (beat) — Xyzzy, hello there." },
        { text: "Well-known. Well-made, the end." },
      ],
      dict,
    );
    expect(phrases).toBe(6);
    expect(dropped).toEqual(["xyzzy"]);
    expect(grammar).toBe(
      [
        "#JSGF V1.0;",
        "grammar script;",
        "public <s> = ( <p1> | <p2> | <p3> | <p4> | <p5> | <p6> )+ ;",
        "<p1> = hello there ;",
        "<p2> = is it on ;",
        "<p3> = don't stop ;",
        "<p4> = well-known ;",
        "<p5> = well made ;",
        "<p6> = the end ;",
        "",
      ].join("\n"),
    );
  });

  it("is empty when no word is known", () => {
    expect(jsgfGrammar([{ text: "Xyzzy! Plugh." }], dict)).toEqual({
      grammar: "",
      phrases: 0,
      dropped: ["xyzzy", "plugh"],
    });
  });
});
