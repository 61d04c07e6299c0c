// The text of align_report.md: what was heard, where each dialogue line was found, each shot's window before and
// after. Written for a person reading it after a run (or a dry run). Node-free.
import type { Change, LineMatch } from "./match.ts";
import type { AudioWindow } from "./script-windows.ts";

export interface AlignReportInput {
  /** The recording, episode-relative. */
  recording: string;
  /** Its length in seconds (null when unknown). */
  duration: number | null;
  engine: string;
  model: string | null;
  /** How many words the recogniser gave. */
  words: number;
  matches: readonly LineMatch[];
  changes: readonly Change[];
  notes: readonly string[];
  dryRun: boolean;
  /** Each shot's window in the script before the run: null when it had none; a shot left out is not shown. */
  before?: Readonly<Record<string, AudioWindow | null>>;
}

const seconds = (t: number): string => t.toFixed(2);
const span = (a: number, b: number): string => `${seconds(a)}–${seconds(b)}`;

/** Table-cell text: one line, pipes escaped, long lines cut. */
function cell(text: string, max = 60): string {
  const one = text.replace(/\s+/g, " ").trim();
  const cut = one.length > max ? `${one.slice(0, max - 1)}…` : one;
  return cut.replace(/\|/g, "\\|");
}

/** The markdown report of one alignment run. */
export function alignReport(input: AlignReportInput): string {
  const found = input.matches.filter((m) => !("missing" in m)).length;
  const changeOf = new Map(input.changes.map((c) => [c.shot, c]));
  const out: string[] = [
    `# Alignment report${input.dryRun ? " (dry run: nothing written)" : ""}`,
    "",
    `- recording: ${input.recording}${input.duration === null ? "" : ` (${seconds(input.duration)} s)`}`,
    `- engine: ${input.engine}${input.model ? ` (model ${input.model})` : ""}`,
    `- words recognised: ${input.words}`,
    `- dialogue lines found: ${found} of ${input.matches.length}`,
    `- shots with a new window: ${input.changes.length}`,
    "",
    "| shot | line | found at | window before → after | note |",
    "| --- | --- | --- | --- | --- |",
  ];
  let lastShot: string | null = null;
  for (const m of input.matches) {
    const firstOfShot = m.shot !== lastShot;
    lastShot = m.shot;
    const foundAt = "missing" in m ? "not found" : `${span(m.start, m.end)} (${m.matched}/${m.of} words)`;
    let window = "";
    let note = "";
    if (firstOfShot) {
      // Absent from `before`: not known; null: the shot had no window.
      const was = input.before?.[m.shot];
      const change = changeOf.get(m.shot);
      const before = was === undefined ? null : was ? span(was.audio_in, was.audio_out) : "none";
      if (change) {
        const after = span(change.audio_in, change.audio_out);
        window = before === null ? after : `${before} → ${after}`;
      } else window = was ? `${before} (kept)` : "kept";
      note = change?.note ?? "";
    }
    out.push(
      `| ${firstOfShot ? m.shot : ""} | ${m.line}: ${cell(m.text)} | ${foundAt} | ${window} | ${cell(note)} |`,
    );
  }
  if (input.matches.length === 0) out.push("| | no dialogue lines in the script | | | |");
  if (input.notes.length > 0) {
    out.push("", "## Notes", "", ...input.notes.map((n) => `- ${n}`));
  }
  out.push("");
  return out.join("\n");
}
