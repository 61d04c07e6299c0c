// The script view's colouring: each line split into spans as the parser classifies it (headers at column 0,
// comments, dialogue with its parenthetical, the known keys), JSON lines for the series config, and the stream
// step that walks a line's spans.
import { describe, expect, it } from "vitest";
import { jsonLine, type Span, scriptLine, stepAt } from "../web/src/views/script/tokens.ts";

/** The spans as `token:text` pairs, easier to read than offsets. */
const shown = <T extends string>(line: string, spans: Span<T>[]) =>
  spans.map((s) => `${s.token}:${line.slice(s.from, s.to)}`);
const script = (line: string) => shown(line, scriptLine(line));
const json = (line: string) => shown(line, jsonLine(line));

describe("script lines", () => {
  it("colours the three headers: marker, ids, the episode's title, the sequence's location, ignored words", () => {
    expect(script("= ep07   The Long Night")).toEqual(["marker:=", "episode:ep07", "title:The Long Night"]);
    expect(script("= ep07")).toEqual(["marker:=", "episode:ep07"]);
    expect(script("# sq01  kitchen  extra words")).toEqual([
      "marker:#",
      "sequence:sq01",
      "location:kitchen",
      "ignored:extra words",
    ]);
    expect(script("## sh010 opening shot")).toEqual(["marker:##", "shot:sh010", "ignored:opening shot"]);
  });

  it("leaves what the parser does not take as a header as prose", () => {
    for (const line of ["##sh010", "#sq01 x", "### x", " # sq01 x", "=", "= ", "##", "## "]) {
      expect(script(line), line).toEqual([]);
    }
  });

  it("colours a whole comment line, and no end-of-line comment", () => {
    expect(script("// a note")).toEqual(["comment:// a note"]);
    expect(script("dur: 3 // not a comment")).toEqual(["key:dur", "colon::", "value:3 // not a comment"]);
  });

  it("colours dialogue: speaker, parenthetical, colon and speech", () => {
    expect(script("ADA: Hi.")).toEqual(["speaker:ADA", "colon::", "speech:Hi."]);
    expect(script("MOM (V.O., from downstairs): Shoes off!")).toEqual([
      "speaker:MOM",
      "paren:(V.O., from downstairs)",
      "colon::",
      "speech:Shoes off!",
    ]);
    expect(script("DR_WALTER : Quite.")).toEqual(["speaker:DR_WALTER", "colon::", "speech:Quite."]);
  });

  it("leaves lines the parser reads as prose uncoloured: indented, empty speech, mixed case, dotted names", () => {
    for (const line of ["  CY: indented", "FADE IN:", "Mara: I see it.", "DR. WALTER: Hm.", "Bo turns."]) {
      expect(script(line), line).toEqual([]);
    }
  });

  it("colours the known keys only, numbers apart from text values", () => {
    expect(script("who: ada, bo")).toEqual(["key:who", "colon::", "value:ada, bo"]);
    expect(script("dur: 3.04")).toEqual(["key:dur", "colon::", "number:3.04"]);
    expect(script("audio: 1.5-4")).toEqual(["key:audio", "colon::", "number:1.5-4"]);
    expect(script("target:ltx2")).toEqual(["key:target", "colon::", "value:ltx2"]);
    expect(script("model:")).toEqual(["key:model", "colon::"]);
    for (const line of ["mood: tense", "Camera: pushes in", " dur: 3"])
      expect(script(line), line).toEqual([]);
  });

  it("ignores trailing space when classifying", () => {
    expect(script("## sh010   ")).toEqual(["marker:##", "shot:sh010"]);
    expect(script("=   ")).toEqual([]);
  });
});

describe("JSON lines", () => {
  it("tells keys from string values, and colours numbers, literals and punctuation", () => {
    expect(json('  "fps": 24,')).toEqual(['property:"fps"', "punctuation::", "number:24", "punctuation:,"]);
    expect(json('"look": "a \\"flat\\" cartoon"')).toEqual([
      'property:"look"',
      "punctuation::",
      'string:"a \\"flat\\" cartoon"',
    ]);
    expect(json("[true, null, -1.5e3]")).toEqual([
      "punctuation:[",
      "atom:true",
      "punctuation:,",
      "atom:null",
      "punctuation:,",
      "number:-1.5e3",
      "punctuation:]",
    ]);
  });

  it("marks what is not JSON, and an unclosed string runs to the end of the line", () => {
    expect(json("{ oops: 1 }")).toEqual([
      "punctuation:{",
      "invalid:oops",
      "punctuation::",
      "number:1",
      "punctuation:}",
    ]);
    expect(json('"open')).toEqual(['string:"open']);
  });
});

describe("stream steps", () => {
  it("walks a line span by span, plain text between, always forward", () => {
    const line = "ADA (softly): Hi.";
    const spans = scriptLine(line);
    const steps: string[] = [];
    for (let pos = 0; pos < line.length; ) {
      const step = stepAt(spans, pos, line.length);
      expect(step.to).toBeGreaterThan(pos);
      steps.push(`${step.token ?? "-"}:${line.slice(pos, step.to)}`);
      pos = step.to;
    }
    expect(steps).toEqual(["speaker:ADA", "-: ", "paren:(softly)", "colon::", "-: ", "speech:Hi."]);
    expect(stepAt([], 3, 3)).toEqual({ to: 4, token: null });
  });
});
