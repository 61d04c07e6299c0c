// The story IR: what the parser makes of a script, model-free and pass-free (script format 4.2).
// Key order of these objects is the order written to shotlist/shots.json; keep it when building them.

export type Continuous = "first" | "latent";
export type DialogueMode = "on" | "vo" | "os";

export interface DialogueLine {
  speaker: string;
  mode: DialogueMode;
  delivery: string;
  line: string;
}

/**
 * A shot's action and lines in the order the script writes them: `{action}` joins adjacent action lines, `{line}`
 * is an index into `dialogue`. Only written when some action follows a line (otherwise the action comes first).
 */
export type Beat = { action: string } | { line: number };

/** One of the four timing shapes, chosen by priority window > model > auto > seconds. */
export type Timing =
  | { audio_in: number; audio_out: number }
  | { model: true; min?: number; max?: number }
  | { auto: true }
  | { seconds: number }
  | null;

export interface LineOverrides {
  model: string | null;
  lora: string | null;
  steps: number | null;
}

export interface Shot {
  id: string;
  cast: string[];
  props: string[];
  plate: string;
  size: string;
  camera: string | null;
  action: string;
  dialogue: DialogueLine[];
  beats?: Beat[];
  sound: string | null;
  music: string | null;
  extras: string | null;
  text: string | null;
  timing: Timing;
  pace: string | null;
  audio: string | null;
  preserve: "strict" | "loose" | "style" | null;
  seed_key: string;
  overrides: LineOverrides;
  source: { line: number; end_line: number };
  target?: string;
  profile?: string;
  first?: string;
  last?: string;
  overlap?: number;
  legacy?: string[];
  continuous?: Continuous | "none";
  unparsed?: Record<string, string>;
}

export interface Sequence {
  id: string;
  location: string;
  continuous: Continuous | false;
  overrides: LineOverrides;
  source: { line: number };
  target?: string;
  profile?: string;
  first?: string;
  last?: string;
  overlap?: number;
  legacy?: string[];
  unparsed?: Record<string, string>;
  shots: Shot[];
}

export interface SeriesInfo {
  fps: number;
  width: number;
  height: number;
}

export interface Story {
  episode: string;
  title: string;
  series: SeriesInfo;
  sequences: Sequence[];
}

/** A diagnostic tied to a script line (1-based); `line` null when it belongs to no line. */
export interface Diagnostic {
  line: number | null;
  message: string;
}
