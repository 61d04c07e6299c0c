// Lines read as action prose although the writer probably meant a key line or dialogue: each gets a warning
// saying why it was not recognised and what the format expects (script format 2.5, 2.6, open point 5). The
// format keeps such lines as prose (existing scripts parse the same), so these are warnings, never errors.
import { DIALOGUE, KEY_LINE, KNOWN_KEYS } from "./lines.ts";
import { isPace } from "./pacing.ts";
import { parsePyInt } from "./rounding.ts";
import { canonicalSize } from "./sizes.ts";

export interface NearMissLookup {
  /** Upper-cased character id → id: the names a dialogue line may use. */
  speakers: ReadonlyMap<string, string>;
  /** Every subject id (characters, props, vehicles). */
  subjects: ReadonlySet<string>;
  /** Every location key (a `plate:` names one). */
  locations: ReadonlySet<string>;
  /** A character's display name, lower-cased with runs of spaces, dots and hyphens as `_` → its id. */
  characterNames: ReadonlyMap<string, string>;
}

export interface NearMiss {
  message: string;
  /** What the line looks like: a dialogue line (a shot that then has no dialogue points here) or a key line. */
  looksLike: "dialogue" | "key";
}

/** Dialogue-shaped lines the strict pattern refuses: dotted or non-ASCII names, nested parentheses. */
const LOOSE_DIALOGUE = /^(\p{Lu}[\p{Lu}\p{N}_ '.-]*?)\s*(?:\((.*)\))?\s*:\s*(.+)$/u;
/** Any-case name, optional parenthetical, a colon, maybe words: the shape a mixed-case speaker line has. */
const ANY_CASE_DIALOGUE = /^(\p{L}[\p{L}\p{N}_ '.-]*?)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$/u;
const STRICT_NAME = /^[A-Z][A-Z0-9_ '-]*$/;
const ANY_KEY = /^([A-Za-z_]+)\s*:/;
/** A speaker and a parenthetical, then words with no colon between them. */
const NO_COLON = /^([A-Z][A-Z0-9_ '-]*?)\s*\(([^()]*)\)\s*([^\s:].*)$/;
/** A speaker and a parenthetical that never closes. */
const UNCLOSED = /^([A-Z][A-Z0-9_ '-]*?)\s*\(([^()]*)$/;
/** A speaker (and maybe a parenthetical) with a colon and nothing after it. */
const EMPTY_SPEECH = /^([A-Z][A-Z0-9_ '-]*?)\s*(?:\(([^)]*)\))?\s*:$/;
/** A speaker alone on a line, or with a parenthetical only (the screenplay layout). */
const NAME_ALONE = /^([A-Z][A-Z0-9_ '-]*?)\s*(?:\(([^)]*)\))?$/;
const LONE_PARENTHETICAL = /^\([^()]*\)$/;
const KEY_NO_COLON = /^([a-z_]+)\s+(\S.*)$/;
const LETTER = /[A-Za-z]/;
const NAME_GLUE = /[\s.-]+/g;
const KEYFRAME = /^(?:generate|import|none|continuity|\S+\.(?:png|jpe?g|webp))$/i;
const MODEL_FILE = /^\S+\.(?:safetensors|gguf|ckpt|pt|pth)$/i;
const LORA = /^(?:none|off|-|\S+\.safetensors(?::\d*\.?\d+)?)$/i;
const AUDIO_WINDOW = /^[\d.]+\s*-\s*[\d.]+$/;
const SECONDS_WITH_UNIT = /^(\d+(?:\.\d+)?)\s*(?:s|sec|secs|seconds?)?$/i;

/** Free-text keys: `camera pans left` is ordinary prose as often as a key missing its colon, so never warned. */
const FREE_TEXT = new Set(["camera", "sound", "music", "extras", "text"]);

const quote = (line: string): string => (line.length > 48 ? `${line.slice(0, 45)}…` : line);

/** A name as a lookup key: lower-cased, runs of spaces, dots and hyphens as `_` (`Dr. Walter` → `dr_walter`). */
export const nameKey = (name: string): string => name.trim().toLowerCase().replace(NAME_GLUE, "_");

/** The character a name written any way stands for: its id upper-cased, its id, or its display name. */
function characterFor(name: string, lookup: NearMissLookup): string | null {
  const glued = nameKey(name);
  return lookup.speakers.get(glued.toUpperCase()) ?? lookup.characterNames.get(glued) ?? null;
}

/** The warning for a prose line that looks like something else, or null when it is plain action. */
export function nearMiss(line: string, lookup: NearMissLookup): NearMiss | null {
  const trimmed = line.trim();
  if (trimmed !== line) return indented(trimmed);
  return (
    speakerCase(line, lookup) ??
    keyShape(line) ??
    looseDialogue(line) ??
    speakerLayout(line, lookup) ??
    keyWithoutColon(line, lookup)
  );
}

function indented(trimmed: string): NearMiss | null {
  const key = KEY_LINE.exec(trimmed);
  if (DIALOGUE.test(trimmed)) {
    return {
      message: "indented line looks like a dialogue line but only column 0 counts: read as action",
      looksLike: "dialogue",
    };
  }
  if (key && KNOWN_KEYS.has(key[1])) {
    return {
      message: "indented line looks like a key line but only column 0 counts: read as action",
      looksLike: "key",
    };
  }
  return null;
}

/** `Mara: I see it.` or `riley: hi`: a character's line with its name not written as the upper-cased id. */
function speakerCase(line: string, lookup: NearMissLookup): NearMiss | null {
  const m = ANY_CASE_DIALOGUE.exec(line);
  if (!m) return null;
  const name = m[1].trim();
  const id = characterFor(name, lookup);
  if (id === null || name === id.toUpperCase()) return null;
  const spoken = m[2] === undefined ? "" : ` (${m[2]})`;
  return {
    message:
      `\`${quote(line)}\` looks like dialogue but a speaker is written as the character's id in capitals ` +
      `(\`${id.toUpperCase()}${spoken}: …\`): read as action`,
    looksLike: "dialogue",
  };
}

function keyShape(line: string): NearMiss | null {
  const key = KEY_LINE.exec(line);
  if (key) {
    const near = closestKey(key[1]);
    const hint = near ? ` (did you mean \`${near}:\`?)` : "";
    return {
      message: `\`${key[1]}:\` looks like a key line but is not a known key${hint}: read as action`,
      looksLike: "key",
    };
  }
  const anyKey = ANY_KEY.exec(line);
  if (anyKey && KNOWN_KEYS.has(anyKey[1].toLowerCase())) {
    const lower = anyKey[1].toLowerCase();
    return {
      message: `\`${anyKey[1]}:\` looks like a key line but keys are lower-case (\`${lower}:\`): read as action`,
      looksLike: "key",
    };
  }
  return null;
}

function looseDialogue(line: string): NearMiss | null {
  const loose = LOOSE_DIALOGUE.exec(line);
  if (!loose) return null;
  const name = loose[1].trim();
  const why = STRICT_NAME.test(name)
    ? "a parenthetical cannot hold parentheses"
    : "a speaker name may only hold A-Z, 0-9, _, space, ' and -";
  return {
    message: `\`${name}:\` looks like a dialogue line but ${why}: read as action`,
    looksLike: "dialogue",
  };
}

/** A character's name in capitals laid out the screenplay way, or missing its colon or its closing paren. */
function speakerLayout(line: string, lookup: NearMissLookup): NearMiss | null {
  const named = (m: RegExpExecArray | null) => (m && lookup.speakers.has(m[1].trim()) ? m : null);
  const dialogue = (message: string): NearMiss => ({ message, looksLike: "dialogue" });
  const noColon = named(NO_COLON.exec(line));
  // `RILEY (10) bursts out of the gate`: a character introduced with an age is action, not a missed colon.
  if (noColon && LETTER.test(noColon[2])) {
    const name = noColon[1].trim();
    return dialogue(
      `\`${quote(line)}\` looks like dialogue but has no colon after the parenthetical ` +
        `(\`${name} (${noColon[2]}): …\`): read as action`,
    );
  }
  const unclosed = named(UNCLOSED.exec(line));
  if (unclosed) {
    return dialogue(
      `\`${quote(line)}\` looks like dialogue but its parenthetical has no closing \`)\` ` +
        `(\`${unclosed[1].trim()} (…): …\`): read as action`,
    );
  }
  const empty = named(EMPTY_SPEECH.exec(line));
  if (empty) {
    return dialogue(
      `\`${line}\` looks like dialogue but nothing is said after the colon: the words go on the same line, read as action`,
    );
  }
  const alone = named(NAME_ALONE.exec(line));
  if (alone) {
    return dialogue(
      `\`${line}\` looks like a speaker's name on its own line: the words go on the same line ` +
        `(\`${alone[1].trim()}${alone[2] === undefined ? "" : ` (${alone[2]})`}: …\`), read as action`,
    );
  }
  if (LONE_PARENTHETICAL.test(line)) {
    return dialogue(
      `\`${line}\` looks like a parenthetical on its own line: it goes between the speaker and the colon ` +
        `(\`NAME ${line}: …\`), read as action`,
    );
  }
  return null;
}

/** `dur 3`, `who: ada` without its colon: a known key followed by a value that key would accept. */
function keyWithoutColon(line: string, lookup: NearMissLookup): NearMiss | null {
  const m = KEY_NO_COLON.exec(line);
  if (!m || !KNOWN_KEYS.has(m[1]) || FREE_TEXT.has(m[1])) return null;
  const [, key, value] = m;
  if (!valueFits(key, value.trim(), lookup)) return null;
  const unit = key === "dur" || key === "duration" ? SECONDS_WITH_UNIT.exec(value.trim()) : null;
  const meant = unit ? unit[1] : value.trim();
  return {
    message: `\`${quote(line)}\` looks like a \`${key}:\` line without its colon (\`${key}: ${meant}\`): read as action`,
    looksLike: "key",
  };
}

function valueFits(key: string, value: string, lookup: NearMissLookup): boolean {
  switch (key) {
    case "dur":
    case "duration":
      return /^(?:auto|model\b.*)$/i.test(value) || SECONDS_WITH_UNIT.test(value);
    case "size":
      return canonicalSize(value) !== null;
    case "pace":
      return isPace(value.toLowerCase());
    case "who":
    case "cast":
    case "with":
    case "props":
      return value.split(",").every((id) => lookup.subjects.has(id.trim()));
    case "audio":
      return AUDIO_WINDOW.test(value);
    case "continuous":
      return /^(?:first|latent|none)$/i.test(value);
    case "overlap":
    case "steps":
      return parsePyInt(value) !== null;
    case "first":
    case "last":
      return KEYFRAME.test(value);
    case "plate":
      return lookup.locations.has(value);
    case "policy":
      return /^(?:generate|dub|dub_keep_foley|clone)$/.test(value);
    case "retention":
      return /^(?:fully_copy|partially_copy|reference)$/.test(value);
    case "model":
      return MODEL_FILE.test(value);
    case "lora":
      return LORA.test(value);
    default:
      // target, profile: any word could follow them in prose (`target practice`), so never warned.
      return false;
  }
}

/** The known key one or two edits away from an unknown one (`durr` → `dur`), when there is exactly one. */
function closestKey(word: string): string | null {
  if (word.length < 3) return null;
  const near = [...KNOWN_KEYS].filter(
    (k) => k.length >= 3 && editDistance(word, k) <= (k.length > 4 ? 2 : 1),
  );
  return near.length === 1 ? near[0] : null;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}
