// The script parser: episode text → story IR (script format 2). It collects every error it meets, skipping
// the wrong line (or shot) and carrying on, so one pass reports them all; it also warns about the reference's
// silent surprises and the lines that look like keys or dialogue but read as prose (open points 5, 6, 11, 14).
import { seriesInfo } from "../series/load.ts";
import type { SeriesConfig } from "../series/types.ts";
import { pyFloatRepr } from "./canonical.ts";
import { ScriptError } from "./errors.ts";
import { DIALOGUE, KEY_LINE, KNOWN_KEYS } from "./lines.ts";
import { type NearMissLookup, nameKey, nearMiss } from "./near-miss.ts";
import { isPace } from "./pacing.ts";
import { parsePyFloat, parsePyInt } from "./rounding.ts";
import { canonicalSize, unknownSizeMessage } from "./sizes.ts";
import type {
  Beat,
  Continuous,
  Diagnostic,
  DialogueLine,
  DialogueMode,
  Sequence,
  Shot,
  Story,
  Timing,
} from "./types.ts";

const WORDS = /\s+/;
const NOT_LETTERS = /[^a-z]/g;
const AUDIO_WINDOW = /^([\d.]+)\s*-\s*([\d.]+)$/;
const CLAMP = /^(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)$/;
const KEYFRAME_IMAGE = /\.(?:png|jpe?g|webp)$/i;
const NEWLINES = /\r\n?/g;
const WORD_CHAR = /[A-Za-z0-9_]/;
const KEY_VALUE_START = /^([a-z_]+)\s*:\s*(?=\S)/;
const SECONDS_WITH_UNIT = /^(\d+(?:\.\d+)?)\s*(?:s|sec|secs|seconds?)$/i;

/** Keys that mean nothing outside a shot: an error under a `#` header. */
const SHOT_ONLY = new Set(["who", "cast", "with", "props", "size", "audio", "dur", "duration", "pace"]);
/** Keys the reference accepts under a header but never reads (open point 6): warned about, not stored. */
const SEQUENCE_IGNORED = new Set([
  "camera",
  "sound",
  "music",
  "extras",
  "text",
  "plate",
  "policy",
  "retention",
]);
const KEYFRAME_METHODS = new Set(["generate", "import", "none", "continuity"]);
const LEGACY_ON = new Set(["yes", "true", "1", "on"]);
const RETENTION: Record<string, "strict" | "loose" | "style"> = {
  fully_copy: "strict",
  partially_copy: "loose",
  reference: "style",
};

/** The values a shot and a sequence both carry: a shot inherits its sequence's (script format 2.9). */
interface Block {
  model: string | null;
  lora: string | null;
  steps: number | null;
  target?: string;
  profile?: string;
  first?: string;
  last?: string;
  overlap?: number;
  continuous: Continuous | "none" | null;
  continuousLine: number | null;
  /** Line of a legacy `first: continuity`, which means `continuous: first` unless a `continuous:` line says otherwise. */
  legacyFirstLine: number | null;
  legacy: string[];
  unparsed: Record<string, string>;
}

interface ShotDraft {
  id: string;
  line: number;
  header: string;
  endLine: number;
  cast: string[];
  props: string[];
  /** On-screen speakers the cast got from their lines, not from `who:`/`with:` (variant binding drops them). */
  byLine: Set<string>;
  plate: string | null;
  size: string;
  camera: string | null;
  sound: string | null;
  music: string | null;
  extras: string | null;
  text: string | null;
  pace: string | null;
  policy: string | null;
  preserve: Shot["preserve"];
  window: { audio_in: number; audio_out: number } | null;
  model: { min?: number; max?: number } | null;
  auto: boolean;
  seconds: number | null;
  actions: string[];
  /** For each action line, how many dialogue lines came before it (the order the beats are written in). */
  actionAt: number[];
  dialogue: DialogueLine[];
  block: Block;
}

interface SequenceDraft {
  id: string;
  location: string;
  line: number;
  block: Block;
  shots: Shot[];
}

export interface ParseResult {
  story: Story;
  warnings: Diagnostic[];
}

/** `{beats}` when some action line follows a dialogue line, else nothing (action first is the default order). */
function beatsOf(d: ShotDraft): { beats?: Beat[] } {
  if (!d.actionAt.some((n) => n > 0)) return {};
  const beats: Beat[] = [];
  let said = 0;
  d.actions.forEach((text, i) => {
    while (said < d.actionAt[i]) beats.push({ line: said++ });
    if (!text) return;
    const last = beats[beats.length - 1];
    if (last && "action" in last) last.action = `${last.action} ${text}`;
    else beats.push({ action: text });
  });
  while (said < d.dialogue.length) beats.push({ line: said++ });
  return { beats };
}

/** Every error and warning of one pass over the script; `story` only when there is no error. */
export interface ScriptDiagnostics {
  story: Story | null;
  /** In the order met: the first is the one parseScript throws. */
  errors: ScriptError[];
  warnings: Diagnostic[];
  /** Lines read as action that look like dialogue: a shot left without dialogue is about them. */
  dialogueLike: number[];
}

const newBlock = (): Block => ({
  model: null,
  lora: null,
  steps: null,
  continuous: null,
  continuousLine: null,
  legacyFirstLine: null,
  legacy: [],
  unparsed: {},
});

const sortedList = (ids: Iterable<string>): string => [...ids].sort().join(", ") || "(none)";

/** `(V.O., into phone)` → mode vo, delivery "into phone"; vo wins over os in any order (script format 2.5). */
export function splitParenthetical(text: string): { mode: DialogueMode; delivery: string } {
  let mode: DialogueMode = "on";
  const rest: string[] = [];
  for (const raw of text.split(",")) {
    const part = raw.trim();
    if (part === "") continue;
    const word = part.toLowerCase().replace(NOT_LETTERS, "");
    if (word === "vo" || word === "voiceover" || word === "voover") mode = "vo";
    else if (word === "os" || word === "offscreen") {
      if (mode !== "vo") mode = "os";
    } else rest.push(part);
  }
  return { mode, delivery: rest.join(", ") };
}

class Parser {
  readonly series: SeriesConfig;
  readonly speakers = new Map<string, string>();
  readonly variantBase: Map<string, string>;
  readonly warnings: Diagnostic[] = [];
  readonly errors: ScriptError[] = [];
  readonly dialogueLike: number[] = [];
  readonly lookup: NearMissLookup;
  /** Set once a line before any sequence was reported: the lines after it until a `#` are not reported again. */
  orphanReported = false;
  episode: string | null = null;
  episodeLine = 0;
  title = "";
  sequences: SequenceDraft[] = [];
  seq: SequenceDraft | null = null;
  shot: ShotDraft | null = null;
  shotLines = new Map<string, number>();
  shotCount = 0;
  lineNo = 0;
  raw = "";

  constructor(series: SeriesConfig) {
    this.series = series;
    for (const id of series.characters) this.speakers.set(id.toUpperCase(), id);
    this.variantBase = new Map(Object.entries(series.variants));
    const names = new Map<string, string>();
    for (const id of series.characters) {
      const name = series.subjects[id]?.name;
      if (name) names.set(nameKey(name), id);
    }
    this.lookup = {
      speakers: this.speakers,
      subjects: new Set(Object.keys(series.subjects)),
      locations: new Set(Object.keys(series.locations)),
      characterNames: names,
    };
  }

  /** Stop at this line: the error is recorded by run(), which carries on with the next line. */
  fail(message: string, line = this.lineNo, quoted = this.raw.trim(), col?: number): never {
    throw new ScriptError(message, line, quoted, col ?? (line === this.lineNo ? this.valueCol() : undefined));
  }

  /** On a key line, the 1-based column where its value starts: a key line's error is about its value. */
  valueCol(): number | undefined {
    const m = KEY_VALUE_START.exec(this.raw);
    return m && KNOWN_KEYS.has(m[1]) ? m[0].length + 1 : undefined;
  }

  /** Record an error and carry on where the parser stands. */
  error(message: string, line = this.lineNo, quoted = this.raw.trim()): void {
    this.errors.push(new ScriptError(message, line, quoted));
  }

  /** The 1-based column of `token` as a whole word on the current line, if it is there. */
  colOf(token: string): number | undefined {
    for (let at = this.raw.indexOf(token); token !== "" && at !== -1; at = this.raw.indexOf(token, at + 1)) {
      const before = this.raw[at - 1] ?? " ";
      const after = this.raw[at + token.length] ?? " ";
      if (!WORD_CHAR.test(before) && !WORD_CHAR.test(after)) return at + 1;
    }
    return undefined;
  }

  warn(message: string, line = this.lineNo): void {
    this.warnings.push({ line, message });
  }

  run(text: string): ScriptDiagnostics {
    const body = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(NEWLINES, "\n");
    const lines = body.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].trimEnd();
      const trimmed = line.trim();
      if (trimmed === "" || trimmed.startsWith("//")) continue;
      this.lineNo = i + 1;
      this.raw = line;
      try {
        this.classify(line);
      } catch (err) {
        if (!(err instanceof ScriptError)) throw err;
        this.errors.push(err);
      }
    }
    this.closeSequence();
    if (this.episode === null) this.error("script needs an episode header (`= <id>  <title>`)", 1, "");
    // A script whose lines were all before any sequence was told so already.
    if (this.sequences.length === 0 && !this.orphanReported) {
      this.error("script has no sequences (`# <id>  <location>`)", 1, "");
    }
    const story = this.errors.length === 0 ? this.story() : null;
    return { story, errors: this.errors, warnings: this.warnings, dialogueLike: this.dialogueLike };
  }

  classify(line: string): void {
    if (line.startsWith("= ")) this.episodeHeader(line);
    else if (line.startsWith("# ")) this.sequenceHeader(line);
    else if (line.startsWith("## ")) this.shotHeader(line);
    else this.bodyLine(line);
  }

  bodyLine(line: string): void {
    if (this.seq === null) {
      if (this.orphanReported) return;
      this.orphanReported = true;
      this.fail("content before the first sequence (`# <id>  <location>`)");
    }
    if (this.shot) this.shot.endLine = this.lineNo;
    const dialogue = DIALOGUE.exec(line);
    const key = dialogue ? null : KEY_LINE.exec(line);
    if (dialogue) this.dialogueLine(dialogue);
    else if (key && KNOWN_KEYS.has(key[1])) this.keyLine(key[1], key[2].trim());
    else this.prose(line);
  }

  // ------------------------------------------------------------------------------------------ headers

  episodeHeader(line: string): void {
    const rest = line.slice(2).trim();
    const cut = rest.search(WORDS);
    if (this.episode !== null) {
      this.warn(`a second episode header (the first is on line ${this.episodeLine}): the last one wins`);
    }
    this.episode = cut === -1 ? rest : rest.slice(0, cut);
    this.title = cut === -1 ? "" : rest.slice(cut).trim();
    this.episodeLine = this.lineNo;
  }

  sequenceHeader(line: string): void {
    const tokens = line.slice(2).trim().split(WORDS);
    // Opened all the same, so the shots below it are checked as its own.
    if (tokens.length < 2) this.error("sequence needs an id and a location (`# sq01  kitchen`)");
    this.closeSequence();
    this.orphanReported = false;
    this.seq = { id: tokens[0], location: tokens[1] ?? "", line: this.lineNo, block: newBlock(), shots: [] };
  }

  shotHeader(line: string): void {
    if (this.seq === null) {
      // Its lines are before any sequence too: this error stands for them.
      this.orphanReported = true;
      this.fail("shot appears before any sequence");
    }
    const id = line.slice(3).trim().split(WORDS)[0];
    const first = this.shotLines.get(id);
    // A repeated id still opens its shot, so its own lines are checked as its own.
    if (first !== undefined) this.error(`shot id ${id} is used twice: it was first used on line ${first}`);
    this.closeShot();
    if (first === undefined) this.shotLines.set(id, this.lineNo);
    this.shot = {
      id,
      line: this.lineNo,
      header: line.trim(),
      endLine: this.lineNo,
      cast: [],
      props: [],
      byLine: new Set(),
      plate: null,
      size: "medium",
      camera: null,
      sound: null,
      music: null,
      extras: null,
      text: null,
      pace: null,
      policy: null,
      preserve: null,
      window: null,
      model: null,
      auto: false,
      seconds: null,
      actions: [],
      actionAt: [],
      dialogue: [],
      block: newBlock(),
    };
  }

  // ------------------------------------------------------------------------------------------ body lines

  dialogueLine(m: RegExpExecArray): void {
    const name = m[1].trim();
    const speaker = this.speakers.get(name);
    if (speaker === undefined) {
      const lower = name.toLowerCase();
      if (Object.hasOwn(this.series.subjects, lower)) {
        const kind = this.series.subjects[lower].kind;
        this.fail(`${lower} is a ${kind}, not a character: only characters can speak`);
      }
      this.fail(`${name} is not a character (characters: ${sortedList(this.series.characters)})`);
    }
    const shot = this.shot;
    if (shot === null) this.fail("dialogue outside a `## shot`");
    const { mode, delivery } =
      m[2] === undefined ? { mode: "on" as const, delivery: "" } : splitParenthetical(m[2]);
    shot.dialogue.push({ speaker, mode, delivery, line: m[3].trim() });
    if (mode === "on" && !shot.cast.includes(speaker)) {
      shot.cast.push(speaker);
      shot.byLine.add(speaker);
    }
  }

  keyLine(key: string, value: string): void {
    const shot = this.shot;
    if (shot === null) {
      this.sequenceKey(key, value);
      return;
    }
    switch (key) {
      case "who":
      case "cast":
        shot.cast = this.mergeSubjects(value, shot.cast, shot);
        return;
      case "with":
      case "props":
        shot.props = this.mergeSubjects(value, shot.props, shot);
        return;
      case "size":
        if (canonicalSize(value) === null) this.fail(unknownSizeMessage(value));
        shot.size = value.toLowerCase();
        return;
      case "audio":
        shot.window = this.audioWindow(value);
        return;
      case "dur":
      case "duration":
        this.duration(shot, value);
        return;
      case "pace": {
        const pace = value.toLowerCase();
        if (!isPace(pace)) this.fail(`pace '${value}' is not one of fast, normal, slow`);
        shot.pace = pace;
        return;
      }
      case "camera":
      case "sound":
      case "music":
      case "extras":
      case "text":
        shot[key] = value || null;
        return;
      case "plate":
        shot.plate = value || null;
        return;
      case "policy":
        shot.policy = value || null;
        return;
      case "retention":
        this.retention(shot, value);
        return;
      default:
        this.blockKey(shot.block, key, value, `shot ${shot.id}`, true);
        return;
    }
  }

  sequenceKey(key: string, value: string): void {
    const seq = this.seq!;
    if (SHOT_ONLY.has(key)) this.fail(`\`${key}:\` outside a \`## shot\` (write it below a shot header)`);
    if (SEQUENCE_IGNORED.has(key)) {
      this.warn(`\`${key}:\` under the sequence header of ${seq.id} is ignored: it only works inside a shot`);
      return;
    }
    this.blockKey(seq.block, key, value, `# ${seq.id}`, false);
  }

  /** The keys a shot and a sequence share; a shot's own line beats its sequence's (script format 2.9). */
  blockKey(block: Block, key: string, value: string, owner: string, isShot: boolean): void {
    switch (key) {
      case "model":
      case "lora":
        block[key] = value || null;
        return;
      case "steps": {
        const steps = value === "" ? null : parsePyInt(value);
        block.steps = steps;
        if (steps === null && value !== "") block.unparsed.steps = value;
        else delete block.unparsed.steps;
        return;
      }
      case "target":
      case "profile":
        if (value) block[key] = value;
        else delete block[key];
        return;
      case "first":
      case "last":
        this.keyframe(block, key, value, owner);
        return;
      case "continuous":
        this.continuous(block, value, owner, isShot);
        return;
      case "overlap": {
        const n = parsePyInt(value) ?? 0;
        if (n < 1 || n > 360)
          this.fail(`\`overlap: ${value}\` must be a whole number of frames from 1 to 360`);
        block.overlap = n;
        return;
      }
    }
  }

  /** `who:`/`with:`: the line's names, then the bucket's, first occurrence kept (slot order; script format 2.6). */
  mergeSubjects(value: string, bucket: string[], shot: ShotDraft): string[] {
    const names = value
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    for (const id of names) {
      if (!Object.hasOwn(this.series.subjects, id)) {
        this.fail(
          `unknown subject '${id}' (subjects: ${sortedList(Object.keys(this.series.subjects))})`,
          this.lineNo,
          this.raw.trim(),
          this.colOf(id),
        );
      }
      shot.byLine.delete(id);
    }
    return [...new Set([...names, ...bucket])];
  }

  audioWindow(value: string): { audio_in: number; audio_out: number } {
    const m = AUDIO_WINDOW.exec(value);
    const a = m ? parsePyFloat(m[1]) : null;
    const b = m ? parsePyFloat(m[2]) : null;
    if (a === null || b === null) {
      this.fail(
        `\`audio: ${value}\` is not a window: write \`audio: <in>-<out>\` in seconds, e.g. \`audio: 12.5-15.0\``,
      );
    }
    if (b <= a) {
      this.fail(
        `\`audio:\` window ends (${pyFloatRepr(b)}) before it starts (${pyFloatRepr(a)}): out must be after in`,
      );
    }
    return { audio_in: a, audio_out: b };
  }

  duration(shot: ShotDraft, value: string): void {
    const v = value.toLowerCase();
    if (v === "auto") {
      shot.auto = true;
      return;
    }
    if (v === "model") {
      shot.model = {};
      return;
    }
    if (v.startsWith("model ")) {
      const m = CLAMP.exec(value.slice(6).trim());
      const min = m ? Number(m[1]) : 0;
      const max = m ? Number(m[2]) : 0;
      if (!m || !(min > 0 && min < max)) {
        this.fail(`\`dur: ${value}\`: the clamp must be \`model <min>-<max>\` seconds with 0 < min < max`);
      }
      shot.model = { min, max };
      return;
    }
    const seconds = parsePyFloat(value);
    if (seconds === null) {
      const unit = SECONDS_WITH_UNIT.exec(value);
      const hint = unit ? ` (seconds are written without a unit: \`dur: ${unit[1]}\`)` : "";
      this.fail(`\`dur: ${value}\` is not a number, auto or model${hint}`);
    }
    shot.seconds = seconds;
  }

  retention(shot: ShotDraft, value: string): void {
    const preserve = Object.hasOwn(RETENTION, value.toLowerCase()) ? RETENTION[value.toLowerCase()] : null;
    shot.preserve = preserve;
    if (preserve === null && value !== "") shot.block.unparsed.preserve = value;
    else delete shot.block.unparsed.preserve;
  }

  keyframe(block: Block, end: "first" | "last", value: string, owner: string): void {
    const method = value.toLowerCase();
    if (end === "first" && method === "continuity") {
      block.legacyFirstLine ??= this.lineNo;
      block.legacy.push(
        `line ${this.lineNo}: \`first: continuity\` on ${owner} is the old form: write \`continuous: first\``,
      );
      return;
    }
    if (KEYFRAME_METHODS.has(method)) block[end] = method;
    else if (KEYFRAME_IMAGE.test(value)) block[end] = value;
    else {
      this.fail(
        `\`${end}: ${value}\` is neither a keyframe method (generate, import, none, continuity) ` +
          "nor an image (.png, .jpg, .jpeg, .webp)",
      );
    }
  }

  continuous(block: Block, value: string, owner: string, isShot: boolean): void {
    const mode = value.toLowerCase();
    if (mode === "first" || mode === "latent" || mode === "none") {
      block.continuous = mode;
    } else if (!isShot && LEGACY_ON.has(mode)) {
      block.continuous = "latent";
      block.legacy.push(
        `line ${this.lineNo}: \`continuous: ${value}\` on ${owner} is the old form: write \`continuous: latent\` (or \`first\`)`,
      );
    } else {
      const legacy =
        isShot && LEGACY_ON.has(mode) ? " (the yes/true/1/on form exists only on a `#` header)" : "";
      this.fail(`\`continuous: ${value}\` is not one of first, latent, none${legacy}`);
    }
    block.continuousLine = this.lineNo;
  }

  // ------------------------------------------------------------------------------------------ prose

  prose(line: string): void {
    const miss = nearMiss(line, this.lookup);
    if (miss) {
      this.warn(miss.message);
      if (miss.looksLike === "dialogue") this.dialogueLike.push(this.lineNo);
    }
    if (this.shot) {
      this.shot.actions.push(line.trim());
      this.shot.actionAt.push(this.shot.dialogue.length);
    }
  }

  // ------------------------------------------------------------------------------------------ closing

  closeShot(): void {
    const d = this.shot;
    if (d === null) return;
    this.shot = null;
    const seq = this.seq!;
    const action = d.actions.join(" ").trim();
    if (action === "" && d.dialogue.length === 0) {
      this.error(`shot ${d.id} has no action and no dialogue`, d.line, d.header);
      return;
    }
    if (this.variantBase.size > 0) {
      try {
        this.bindVariants(d);
      } catch (err) {
        if (!(err instanceof ScriptError)) throw err;
        this.errors.push(err);
        return;
      }
    }
    if (this.shotCount === 0) this.warnFirstContinuation(d);
    this.shotCount++;
    seq.shots.push(this.buildShot(d, action, seq));
  }

  /** A variant in the shot takes over its base: its cast entry and its lines (script format 2.8 step 3). */
  bindVariants(d: ShotDraft): void {
    const found = new Map<string, string[]>();
    for (const id of [...d.cast, ...d.props]) {
      const base = this.variantBase.get(id);
      if (base === undefined) continue;
      const list = found.get(base) ?? [];
      if (!list.includes(id)) list.push(id);
      found.set(base, list);
    }
    for (const [base, variants] of found) {
      if (variants.length > 1) {
        this.fail(`shot ${d.id} names two variants of ${base}: ${variants.join(" and ")}`, d.line, d.header);
      }
      const variant = variants[0];
      if (d.cast.includes(base) || d.props.includes(base)) {
        if (!d.byLine.has(base) || d.props.includes(base)) {
          this.fail(`shot ${d.id} names both ${base} and its variant ${variant}`, d.line, d.header);
        }
        d.cast = d.cast.filter((id) => id !== base);
      }
      for (const line of d.dialogue) if (line.speaker === base) line.speaker = variant;
    }
  }

  /** Open point 11: a continuation needs a shot before it, and the first shot of the episode has none. */
  warnFirstContinuation(d: ShotDraft): void {
    const mode = ownContinuous(d.block);
    if (mode === "first" || mode === "latent") {
      this.warn(
        `shot ${d.id} is the first shot of the episode but says \`continuous: ${mode}\`: ` +
          "there is no shot before it to continue (the render will fail unless the cut puts one there)",
        d.block.continuousLine ?? d.block.legacyFirstLine ?? d.line,
      );
    }
  }

  buildShot(d: ShotDraft, action: string, seq: SequenceDraft): Shot {
    const b = d.block;
    const mode = ownContinuous(b);
    return {
      id: d.id,
      cast: d.cast,
      props: d.props,
      plate: d.plate ?? seq.location,
      size: d.size,
      camera: d.camera,
      action,
      dialogue: d.dialogue,
      ...beatsOf(d),
      sound: d.sound,
      music: d.music,
      extras: d.extras,
      text: d.text,
      timing: timingOf(d),
      pace: d.pace,
      audio: d.policy,
      preserve: d.preserve,
      // Filled in at the end: the episode header may come after the shot (script format 2.3).
      seed_key: "",
      overrides: { model: b.model, lora: b.lora, steps: b.steps },
      source: { line: d.line, end_line: d.endLine },
      ...settings(b),
      ...(b.legacy.length > 0 ? { legacy: b.legacy } : {}),
      ...(mode !== null ? { continuous: mode } : {}),
      ...(Object.keys(b.unparsed).length > 0 ? { unparsed: b.unparsed } : {}),
    };
  }

  closeSequence(): void {
    this.closeShot();
    if (this.seq) this.sequences.push(this.seq);
    this.seq = null;
  }

  story(): Story {
    const episode = this.episode!;
    const sequences = this.sequences.map((s) => buildSequence(s));
    for (const seq of sequences)
      for (const shot of seq.shots) shot.seed_key = `${episode}/${seq.id}/${shot.id}`;
    return { episode, title: this.title, series: seriesInfo(this.series.raw), sequences };
  }
}

function ownContinuous(b: Block): Continuous | "none" | null {
  return b.continuous ?? (b.legacyFirstLine !== null ? "first" : null);
}

function timingOf(d: ShotDraft): Timing {
  if (d.window) return d.window;
  if (d.model) return { model: true, ...d.model };
  if (d.auto) return { auto: true };
  if (d.seconds !== null) return { seconds: d.seconds };
  return null;
}

/** The optional inheritable keys, in IR order, only those that are set. */
function settings(b: Block): Pick<Shot, "target" | "profile" | "first" | "last" | "overlap"> {
  const out: Pick<Shot, "target" | "profile" | "first" | "last" | "overlap"> = {};
  if (b.target !== undefined) out.target = b.target;
  if (b.profile !== undefined) out.profile = b.profile;
  if (b.first !== undefined) out.first = b.first;
  if (b.last !== undefined) out.last = b.last;
  if (b.overlap !== undefined) out.overlap = b.overlap;
  return out;
}

function buildSequence(s: SequenceDraft): Sequence {
  const b = s.block;
  const mode = ownContinuous(b);
  return {
    id: s.id,
    location: s.location,
    continuous: mode === "first" || mode === "latent" ? mode : false,
    overrides: { model: b.model, lora: b.lora, steps: b.steps },
    source: { line: s.line },
    ...settings(b),
    ...(b.legacy.length > 0 ? { legacy: b.legacy } : {}),
    ...(Object.keys(b.unparsed).length > 0 ? { unparsed: b.unparsed } : {}),
    shots: s.shots,
  };
}

/**
 * Parse an episode script against a loaded series config. Throws the first ScriptError (the one the reference
 * stops at). Warnings cover what the reference accepts silently; legacy-form notes are in the IR's `legacy` arrays.
 */
export function parseScript(text: string, series: SeriesConfig): ParseResult {
  const { story, errors, warnings } = diagnoseScript(text, series);
  if (story === null) throw errors[0];
  return { story, warnings };
}

/** One pass over the script collecting every error and warning, each on the line that is wrong. */
export function diagnoseScript(text: string, series: SeriesConfig): ScriptDiagnostics {
  return new Parser(series).run(text);
}
