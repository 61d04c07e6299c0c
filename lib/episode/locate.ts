// Maps build errors and warnings to the line they are about (script format 5.2 step 6, open point 21).
import { BuildError } from "../compile/types.ts";
import type { Story } from "../script/types.ts";
import { jsonKeyLines, lineOfKey } from "./json-lines.ts";

export interface Located {
  file: "script" | "series";
  line: number | null;
}

const KEY_ALIASES: Record<string, string[]> = {
  dur: ["dur", "duration"],
  who: ["who", "cast"],
  with: ["with", "props"],
  lora: ["lora"],
  loras: ["lora"],
};

/** What a message is about, read from its words (the reference's own rule); null when nothing matches. */
function keyFromWords(message: string): string | null {
  const over = /overrides (model|lora|loras|steps)\b/.exec(message);
  if (over) return over[1] === "loras" ? "lora" : over[1];
  if (message.includes("target '")) return "target";
  if (message.includes("profile '")) return "profile";
  if (message.includes("`dur: ")) return "dur";
  if (message.includes("retention")) return "retention";
  if (message.includes("policy")) return "policy";
  if (message.includes("location '")) return "plate";
  if (message.includes("subjects")) return "with";
  return null;
}

/** Where a series.json message points: `profile 'x'`, `refs.x`, `series.x`, `proxy.x`, or a quoted block name. */
function seriesKeyFromWords(message: string): string | null {
  const profile = /profile '([^']+)'/.exec(message);
  if (profile) return `profiles.${profile[1]}`;
  const dotted =
    /\b((?:refs|series|proxy|speech|audio|continuous|upscale|post|profiles)\.[A-Za-z0-9_.]+)/.exec(message);
  if (dotted) return dotted[1].replace(/\.$/, "");
  const block = /`([a-z_]+)`/.exec(message);
  return block ? block[1] : null;
}

export class ScriptIndex {
  private readonly lines: string[];
  private readonly shots = new Map<string, { line: number; end: number }>();
  private readonly sequences = new Map<string, { line: number; end: number }>();

  constructor(story: Story, scriptText: string) {
    this.lines = scriptText.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
    for (const seq of story.sequences) {
      const firstShot = seq.shots[0]?.source.line ?? seq.source.line + 1;
      this.sequences.set(seq.id, { line: seq.source.line, end: firstShot - 1 });
      for (const shot of seq.shots)
        this.shots.set(shot.id, { line: shot.source.line, end: shot.source.end_line });
    }
  }

  hasShot(id: string): boolean {
    return this.shots.has(id);
  }

  /** The last `key:` line of the shot's span (the one the parser keeps), else its `##` line. */
  shotLine(id: string, key: string | null): number | null {
    const span = this.shots.get(id);
    if (!span) return null;
    return (key ? this.keyLine(span.line, span.end, key) : null) ?? span.line;
  }

  sequenceLine(id: string, key: string | null): number | null {
    const span = this.sequences.get(id);
    if (!span) return null;
    return (key ? this.keyLine(span.line, span.end, key) : null) ?? span.line;
  }

  private keyLine(from: number, to: number, key: string): number | null {
    const names = KEY_ALIASES[key] ?? [key];
    let found: number | null = null;
    for (let n = from; n <= to && n <= this.lines.length; n++) {
      const m = /^([a-z_]+)\s*:/.exec(this.lines[n - 1]);
      if (m && names.includes(m[1])) found = n;
    }
    return found;
  }
}

export function locateBuildError(
  err: BuildError,
  index: ScriptIndex | null,
  seriesText: string | null,
): Located {
  if (err.file === "series") {
    const key = err.key ?? seriesKeyFromWords(err.message);
    return { file: "series", line: key && seriesText ? lineOfKey(jsonKeyLines(seriesText), key) : null };
  }
  if (err.shot && index)
    return { file: "script", line: index.shotLine(err.shot, err.key ?? keyFromWords(err.message)) };
  if (err.sequence && index) return { file: "script", line: index.sequenceLine(err.sequence, err.key) };
  return { file: "script", line: null };
}

/** A warning (plain text) to its line: a shot's key line named by its words, a sequence's `#`, a config key. */
export function locateMessage(
  message: string,
  index: ScriptIndex | null,
  seriesText: string | null,
): Located {
  const lineRef = /^line (\d+):/.exec(message);
  if (lineRef) return { file: "script", line: Number(lineRef[1]) };
  const shot = /^(?:shot\s+)?([A-Za-z0-9_.-]+):/.exec(message);
  if (shot && index?.hasShot(shot[1]))
    return { file: "script", line: index.shotLine(shot[1], keyFromWords(message)) };
  const seq = /^sequence\s+([A-Za-z0-9_.-]+)/.exec(message);
  if (seq && index) return { file: "script", line: index.sequenceLine(seq[1], null) };
  if (message.includes("series.json") || message.startsWith("series")) {
    const key = seriesKeyFromWords(message);
    return { file: "series", line: key && seriesText ? lineOfKey(jsonKeyLines(seriesText), key) : null };
  }
  return { file: "script", line: null };
}

export { BuildError };
