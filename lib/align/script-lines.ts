// The script's dialogue lines in script order, each with its shot and 1-based line number: what alignment matches.
// Node-free: the parser decides what is dialogue; this module only finds the line each dialogue entry came from.
import { DIALOGUE } from "../script/lines.ts";
import { parseScript } from "../script/parse.ts";
import type { SeriesConfig } from "../series/types.ts";

export interface ScriptLine {
  /** The shot id the line is spoken in. */
  shot: string;
  /** 1-based line number in the script text. */
  line: number;
  /** The speaking character id (after variant binding). */
  speaker: string;
  /** The words spoken, as written (parenthetical and name removed). */
  text: string;
}

const NEWLINES = /\r\n?/g;

/** The script's physical lines as the parser numbers them (BOM stripped, CR/CRLF read as LF). */
export function scriptLinesOf(text: string): string[] {
  return (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(NEWLINES, "\n").split("\n");
}

/**
 * Every dialogue line of a script, in script order. Parses with the series config (throws the parser's first
 * ScriptError when the script does not parse), then pairs each shot's dialogue entries, in order, with the lines
 * of the shot's span that the parser read as dialogue (the same pattern, on the same trimmed lines).
 */
export function dialogueLines(scriptText: string, series: SeriesConfig): ScriptLine[] {
  const { story } = parseScript(scriptText, series);
  const raw = scriptLinesOf(scriptText);
  const out: ScriptLine[] = [];
  for (const seq of story.sequences) {
    for (const shot of seq.shots) {
      const numbers: number[] = [];
      for (let n = shot.source.line + 1; n <= shot.source.end_line; n++) {
        const line = raw[n - 1]?.trimEnd() ?? "";
        const trimmed = line.trim();
        if (trimmed === "" || trimmed.startsWith("//")) continue;
        if (DIALOGUE.test(line)) numbers.push(n);
      }
      if (numbers.length !== shot.dialogue.length) {
        throw new Error(
          `shot ${shot.id}: ${shot.dialogue.length} dialogue lines parsed but ${numbers.length} found in its span`,
        );
      }
      shot.dialogue.forEach((d, i) => {
        out.push({ shot: shot.id, line: numbers[i], speaker: d.speaker, text: d.line });
      });
    }
  }
  return out;
}
