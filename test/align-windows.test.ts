// Writing shots' `audio:` windows into a script's text: replace, insert, repeated lines, untouched neighbours.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { audioWindowOf, formatWindow, parseWindow, setAudioWindows } from "../lib/align/script-windows.ts";
import { parseScript } from "../lib/script/parse.ts";
import { loadSeries } from "../lib/series/load.ts";
import { seriesS } from "./support/series-s.ts";

const S = loadSeries(seriesS());

const SCRIPT = [
  "= ep01  Pilot",
  "",
  "# sq01  kitchen",
  "model: flux.safetensors",
  "",
  "## sh010 the kettle",
  "who: ada",
  "size: close",
  "ADA: Is it on?",
  "Steam rises.",
  "",
  "## sh020",
  "audio: 4.5-6.25",
  "BO (V.O.): It is.",
  "",
  "## sh030",
  "// a note",
  "audio: 1-2",
  "dur: 3",
  "CY: Both?",
  "audio: 7.00-8.00",
  "",
].join("\n");

describe("setAudioWindows", () => {
  it("inserts after the header and its key lines when the shot has no audio line", () => {
    const { text, changed, missing } = setAudioWindows(SCRIPT, [
      { shot: "sh010", audio_in: 1, audio_out: 3.1 },
    ]);
    expect(changed).toEqual(["sh010"]);
    expect(missing).toEqual([]);
    const lines = text.split("\n");
    expect(lines.slice(5, 10)).toEqual([
      "## sh010 the kettle",
      "who: ada",
      "size: close",
      "audio: 1.00-3.10",
      "ADA: Is it on?",
    ]);
    expect(text.split("\n").length).toBe(SCRIPT.split("\n").length + 1);
    // The parser reads the new window.
    const shot = parseScript(text, S).story.sequences[0].shots[0];
    expect(shot.timing).toEqual({ audio_in: 1, audio_out: 3.1 });
  });

  it("inserts right after the header when a line comes first", () => {
    const script = "= e  t\n# sq01  kitchen\n## sh010\nADA: Hi.\nwho: bo\n";
    const { text } = setAudioWindows(script, [{ shot: "sh010", audio_in: 0.004, audio_out: 0.5 }]);
    expect(text).toBe("= e  t\n# sq01  kitchen\n## sh010\naudio: 0.00-0.50\nADA: Hi.\nwho: bo\n");
  });

  it("replaces an existing audio line and leaves every other line as it was", () => {
    const { text, changed } = setAudioWindows(SCRIPT, [{ shot: "sh020", audio_in: 4.123, audio_out: 6.789 }]);
    expect(changed).toEqual(["sh020"]);
    const before = SCRIPT.split("\n");
    const after = text.split("\n");
    expect(after.length).toBe(before.length);
    const diff = after.flatMap((l, i) => (l === before[i] ? [] : [[before[i], l]]));
    expect(diff).toEqual([["audio: 4.5-6.25", "audio: 4.12-6.79"]]);
  });

  it("replaces the last audio line of a shot that has two, which is the one the parser keeps", () => {
    const { text } = setAudioWindows(SCRIPT, [{ shot: "sh030", audio_in: 9, audio_out: 10 }]);
    expect(text).toContain("audio: 1-2\ndur: 3\nCY: Both?\naudio: 9.00-10.00\n");
    const shot = parseScript(text, S).story.sequences[0].shots[2];
    expect(shot.timing).toEqual({ audio_in: 9, audio_out: 10 });
  });

  it("leaves a window equal to two decimals untouched and does not list it", () => {
    const { text, changed } = setAudioWindows(SCRIPT, [{ shot: "sh020", audio_in: 4.501, audio_out: 6.25 }]);
    expect(changed).toEqual([]);
    expect(text).toBe(SCRIPT);
  });

  it("writes several shots at once, inserts and replacements together, and names unknown shots", () => {
    const { text, changed, missing } = setAudioWindows(SCRIPT, [
      { shot: "sh030", audio_in: 8, audio_out: 9 },
      { shot: "sh999", audio_in: 1, audio_out: 2 },
      { shot: "sh010", audio_in: 0, audio_out: 2 },
      { shot: "sh020", audio_in: 2, audio_out: 3 },
      { shot: "sh010", audio_in: 0.5, audio_out: 2 },
    ]);
    expect(changed).toEqual(["sh030", "sh010", "sh020"]);
    expect(missing).toEqual(["sh999"]);
    const shots = parseScript(text, S).story.sequences[0].shots;
    expect(shots.map((s) => s.timing)).toEqual([
      { audio_in: 0.5, audio_out: 2 },
      { audio_in: 2, audio_out: 3 },
      { audio_in: 8, audio_out: 9 },
    ]);
  });

  it("keeps CRLF endings and the BOM where they are (the save path owns them; LF in is LF out)", () => {
    const crlf = `\ufeff${SCRIPT.replace(/\n/g, "\r\n")}`;
    const { text } = setAudioWindows(crlf, [
      { shot: "sh010", audio_in: 1, audio_out: 2 },
      { shot: "sh020", audio_in: 3, audio_out: 4 },
    ]);
    expect(text.startsWith("\ufeff= ep01")).toBe(true);
    expect(text).toContain("size: close\r\naudio: 1.00-2.00\r\nADA:");
    expect(text).toContain("## sh020\r\naudio: 3.00-4.00\r\nBO");
    expect(text.replace(/\r\n/g, "")).not.toContain("\n");
    const lf = setAudioWindows(SCRIPT, [{ shot: "sh010", audio_in: 1, audio_out: 2 }]).text;
    expect(lf).not.toContain("\r");
  });

  it("adds a line to a script that ends on the header with no newline", () => {
    const { text } = setAudioWindows("= e  t\n# sq01  kitchen\n## sh010", [
      { shot: "sh010", audio_in: 1, audio_out: 2 },
    ]);
    expect(text).toBe("= e  t\n# sq01  kitchen\n## sh010\naudio: 1.00-2.00");
  });

  it("does not take an indented or capitalised line for a key line, nor a sequence's lines for a shot's", () => {
    const script = "= e  t\n# sq01  kitchen\naudio: 1-2\n## sh010\n  audio: 5-6\nAudio: 7-8\nADA: Hi.\n";
    expect(audioWindowOf(script, "sh010")).toBeNull();
    const { text } = setAudioWindows(script, [{ shot: "sh010", audio_in: 1, audio_out: 2 }]);
    expect(text).toBe(
      "= e  t\n# sq01  kitchen\naudio: 1-2\n## sh010\naudio: 1.00-2.00\n  audio: 5-6\nAudio: 7-8\nADA: Hi.\n",
    );
  });

  it("refuses a window that is not one, writing nothing", () => {
    expect(() => setAudioWindows(SCRIPT, [{ shot: "sh010", audio_in: 2, audio_out: 2.001 }])).toThrow(
      RangeError,
    );
    expect(() => setAudioWindows(SCRIPT, [{ shot: "sh010", audio_in: -1, audio_out: 2 }])).toThrow(
      /not a window/,
    );
    expect(() => setAudioWindows(SCRIPT, [{ shot: "sh010", audio_in: Number.NaN, audio_out: 2 }])).toThrow(
      RangeError,
    );
  });
});

describe("audioWindowOf and the value format", () => {
  it("reads the shot's last audio line", () => {
    expect(audioWindowOf(SCRIPT, "sh020")).toEqual({ audio_in: 4.5, audio_out: 6.25 });
    expect(audioWindowOf(SCRIPT, "sh030")).toEqual({ audio_in: 7, audio_out: 8 });
    expect(audioWindowOf(SCRIPT, "sh010")).toBeNull();
    expect(audioWindowOf(SCRIPT, "nope")).toBeNull();
    expect(audioWindowOf("= e  t\n# s  k\n## a\naudio: 3-1\nADA: x\n", "a")).toBeNull();
  });

  it("formats with two decimals and parses the parser's shape", () => {
    expect(formatWindow({ audio_in: 1, audio_out: 3.1 })).toBe("1.00-3.10");
    expect(parseWindow(" 1.5 - 2 ")).toEqual({ audio_in: 1.5, audio_out: 2 });
    expect(parseWindow("1.5s-2")).toBeNull();
    expect(parseWindow("1..5-2")).toBeNull();
  });
});

describe("the matching modules stay Node-free", () => {
  it("import no node: module, directly or through what they import", async () => {
    const roots = ["script-lines", "normalize", "match", "snap", "script-windows", "grammar", "report"].map(
      (m) => path.resolve(import.meta.dirname, `../lib/align/${m}.ts`),
    );
    const seen = new Set<string>();
    const found: string[] = [];
    const visit = async (file: string): Promise<void> => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = await readFile(file, "utf8");
      for (const m of text.matchAll(/^\s*(?:import|export)\b[^;]*?from\s+"([^"]+)"/gm)) {
        const spec = m[1];
        if (spec.startsWith(".")) await visit(path.resolve(path.dirname(file), spec));
        else found.push(`${path.relative(process.cwd(), file)} imports ${spec}`);
      }
    };
    for (const r of roots) await visit(r);
    expect(seen.size).toBeGreaterThan(roots.length);
    expect(found).toEqual([]);
  });
});
