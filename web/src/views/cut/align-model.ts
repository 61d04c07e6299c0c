// The Align panel's logic, free of the DOM: the run's progress from its `studio.align` events (three stages,
// each waiting, running or done, with the aligner's own words), the changes it made set beside the windows the
// shots had before, and what the readiness answer says to do when the aligner cannot run.

export type AlignStage = "transcribe" | "match" | "write";

export const STAGES: readonly { stage: AlignStage; label: string }[] = [
  { stage: "transcribe", label: "Transcribe" },
  { stage: "match", label: "Match lines" },
  { stage: "write", label: "Write windows" },
];

export interface AlignEvent {
  ep: string;
  stage: AlignStage;
  pct: number;
  text: string;
}

export interface StageRow {
  stage: AlignStage;
  label: string;
  state: "waiting" | "running" | "done";
  text: string;
}

/** The event when it is a progress row of episode `ep`, else null. */
export function alignEventOf(data: unknown, ep: string): AlignEvent | null {
  if (!data || typeof data !== "object") return null;
  const e = data as Partial<AlignEvent>;
  if (e.ep !== ep || typeof e.pct !== "number" || !STAGES.some((s) => s.stage === e.stage)) return null;
  return { ep, stage: e.stage as AlignStage, pct: e.pct, text: typeof e.text === "string" ? e.text : "" };
}

/**
 * The three stages after the events seen so far (in arrival order): a stage is done once a later stage has
 * started or it reached 100; the newest stage runs; the ones after it wait. `finished` (the answer arrived) marks
 * every stage the run reached as done.
 */
export function stageRows(events: readonly AlignEvent[], finished: boolean): StageRow[] {
  const last = new Map<AlignStage, AlignEvent>();
  for (const e of events) last.set(e.stage, e);
  const reached = STAGES.reduce((k, s, i) => (last.has(s.stage) ? i : k), -1);
  return STAGES.map((s, i) => {
    const e = last.get(s.stage);
    const state: StageRow["state"] =
      i < reached || (e && (e.pct >= 100 || finished)) ? "done" : i === reached ? "running" : "waiting";
    return { stage: s.stage, label: s.label, state, text: e?.text ?? "" };
  });
}

/** The overall percentage: the newest event's. */
export const alignPct = (events: readonly AlignEvent[]) =>
  events.length ? events[events.length - 1].pct : 0;

export interface AlignChange {
  shot: string;
  audio_in: number | null;
  audio_out: number | null;
  note: string | null;
}

export interface ChangeRow {
  shot: string;
  before: string;
  after: string;
  /** Seconds the window's start moved (null when it had none before or has none now). */
  shift: number | null;
  note: string;
}

const span = (a: number | null | undefined, b: number | null | undefined) =>
  typeof a === "number" && typeof b === "number" ? `${a.toFixed(2)}–${b.toFixed(2)}` : "–";

/** The answer's changes as rows, each beside the window its shot had when the run started. */
export function changeRows(
  changes: readonly AlignChange[],
  before: ReadonlyMap<string, { audio_in: number | null; audio_out: number | null }>,
): ChangeRow[] {
  return changes.map((c) => {
    const b = before.get(c.shot);
    const shift =
      typeof b?.audio_in === "number" && typeof c.audio_in === "number"
        ? Math.round((c.audio_in - b.audio_in) * 100) / 100
        : null;
    return {
      shot: c.shot,
      before: span(b?.audio_in, b?.audio_out),
      after: span(c.audio_in, c.audio_out),
      shift,
      note: c.note ?? "",
    };
  });
}

export interface AlignReady {
  ready: boolean;
  ffmpeg: string | null;
  missing: string[];
  python: string | null;
  install: string;
  models: { default: string; choices: string[] };
  packages?: Record<string, string | null>;
  ffmpeg_hint?: string | null;
  engine?: "faster-whisper" | "pocketsphinx" | null;
  program?: string | null;
  apt?: string | null;
}

/** What the panel says about the aligner: which engine runs (and the program), or what is missing and how to add it. */
export function readyText(r: AlignReady): {
  engine: string | null;
  missing: string | null;
  commands: string[];
} {
  const engine = r.ready
    ? `${r.engine ?? "aligner"}${r.program ? ` (${r.program})` : r.python ? ` (${r.python})` : ""}`
    : null;
  const commands = [r.install, r.apt ?? "", r.ffmpeg ? "" : (r.ffmpeg_hint ?? "")].filter(
    (c): c is string => typeof c === "string" && c.trim() !== "",
  );
  return {
    engine,
    missing: r.ready ? null : r.missing.length ? r.missing.join(", ") : "an aligner",
    commands: r.ready ? [] : commands,
  };
}

/** Whether the model choice means anything: only a whisper engine takes a model. */
export const takesModel = (r: AlignReady | null) =>
  !!r && r.engine !== "pocketsphinx" && r.models.choices.length > 0;
