// The animatic's caption plan: a shot's action and lines in the order the script writes them, each given a stretch
// of the shot (a line long enough to be said, the action the rest), and the lines the built-in voice speaks then.
import type { DialogueLine, Shot } from "../../script/types.ts";

export type PlannedBeat =
  | { kind: "action"; text: string }
  | { kind: "line"; speaker: string; name: string; mode: DialogueLine["mode"]; text: string };

export interface Caption {
  text: string;
  start: number;
  end: number;
  kind: "action" | "line";
}

export interface SpokenLine {
  speaker: string;
  text: string;
  start: number;
  end: number;
}

/** Seconds a line takes to say: about 0.36 s a word (espeak-ng's 150-185 words a minute) and a breath. */
export function lineSeconds(text: string): number {
  const words = text.split(/\s+/).filter(Boolean).length;
  return Math.max(0.8, 0.36 * words + 0.3);
}

/** Seconds an action caption needs to be read: about 25 characters a second, at least one second. */
export function readSeconds(text: string): number {
  return Math.min(4, Math.max(1, [...text].length / 25));
}

/**
 * The shot's beats in script order: its `beats` when the parser wrote them (some action follows a line), else
 * the action first and the lines after it. `name` gives a speaker's display name.
 */
export function shotBeats(shot: Pick<Shot, "action" | "dialogue" | "beats">, name: (id: string) => string) {
  const line = (d: DialogueLine): PlannedBeat => ({
    kind: "line",
    speaker: d.speaker,
    name: name(d.speaker),
    mode: d.mode,
    text: d.line.trim(),
  });
  const out: PlannedBeat[] = [];
  if (Array.isArray(shot.beats)) {
    for (const b of shot.beats) {
      if ("action" in b) out.push({ kind: "action", text: b.action.trim() });
      else if (shot.dialogue[b.line]) out.push(line(shot.dialogue[b.line]));
    }
  } else {
    out.push({ kind: "action", text: shot.action.trim() });
    out.push(...shot.dialogue.map(line));
  }
  return out.filter((b) => b.text !== "");
}

/** `MOM (V.O.): Dinner in ten minutes!`: the speaker's name in capitals, the mode of a line not said on screen. */
export function lineCaption(b: Extract<PlannedBeat, { kind: "line" }>): string {
  const mark = b.mode === "vo" ? " (V.O.)" : b.mode === "os" ? " (O.S.)" : "";
  return `${b.name.toUpperCase()}${mark}: ${b.text}`;
}

/**
 * Each beat a stretch of the shot, in order: a line the time it takes to say, an action the time to read it; time
 * left over goes to the action (to the lines when there is none). A shot too short for all of it keeps the lines'
 * time first (the action keeps at least a third of the shot, or what it needs when less), and shrinks what still
 * does not fit alike. A line is spoken over its stretch.
 */
export function captionPlan(
  beats: readonly PlannedBeat[],
  seconds: number,
): { captions: Caption[]; spoken: SpokenLine[] } {
  const captions: Caption[] = [];
  const spoken: SpokenLine[] = [];
  if (!(seconds > 0) || beats.length === 0) return { captions, spoken };
  const need = beats.map((b) => (b.kind === "line" ? lineSeconds(b.text) : readSeconds(b.text)));
  const sum = (kind: PlannedBeat["kind"]) =>
    need.reduce((a, n, i) => a + (beats[i].kind === kind ? n : 0), 0);
  const lines = sum("line");
  const actions = sum("action");
  // The time each kind gets in all, then shared among its beats by what they need.
  let lineTime = lines;
  let actionTime = actions;
  if (lines + actions <= seconds) {
    if (actions > 0) actionTime = seconds - lines;
    else lineTime = seconds;
  } else {
    actionTime = actions > 0 ? Math.max(seconds - lines, Math.min(actions, seconds / 3)) : 0;
    lineTime = seconds - actionTime;
  }
  const span = need.map((n, i) =>
    beats[i].kind === "line" ? (n * lineTime) / (lines || 1) : (n * actionTime) / (actions || 1),
  );
  let t = 0;
  beats.forEach((b, i) => {
    const start = t;
    const end = i === beats.length - 1 ? seconds : Math.min(seconds, t + span[i]);
    t = end;
    if (b.kind === "action") captions.push({ text: b.text, start, end, kind: "action" });
    else {
      captions.push({ text: lineCaption(b), start, end, kind: "line" });
      spoken.push({ speaker: b.speaker, text: b.text, start, end });
    }
  });
  return { captions, spoken };
}

/** The card's title line: `sh010 · street · WS · drifts slowly down the street`. */
export function titleLine(parts: {
  shot: string;
  location?: string | null;
  size?: string | null;
  camera?: string | null;
}) {
  // Short sizes are the trade's abbreviations (WS, MCU), written in capitals.
  const size = parts.size && /^[a-z]{1,4}$/.test(parts.size) ? parts.size.toUpperCase() : parts.size;
  return [parts.shot, parts.location, size, parts.camera]
    .map((p) => (p ?? "").replace(/\s+/g, " ").trim())
    .filter(Boolean)
    .join(" · ");
}
