// Matching a recogniser's words to the script's dialogue lines, and each shot's window from its lines' words.
// One monotonic alignment (dynamic programming over script words × recognised words) that may skip words on
// both sides: recognised words that are not in the script (ad-libs, retakes, noise) and script words nobody
// said. Skipping recognised words between lines is cheap, inside a line dear, so a retake of a line is matched
// as its last complete take. Node-free.
import { matchWords, recognisedWords, similarity } from "./normalize.ts";
import { type Envelope, reachOver, silenceThreshold, snapEnd, snapStart } from "./snap.ts";

/** A recognised word with its times in seconds, as the recogniser spelt it. */
export interface Word {
  w: string;
  start: number;
  end: number;
}

/** A dialogue line to find: its shot, its 1-based script line number and its words. */
export interface LineToMatch {
  shot: string;
  line: number;
  text: string;
}

export interface LineFound {
  shot: string;
  line: number;
  text: string;
  /** Start of its first matched word, end of its last, seconds. */
  start: number;
  end: number;
  /** Mean similarity over the line's words (a word not heard counts 0), 0–1. */
  score: number;
  /** How many of its words were heard, of how many it has. */
  matched: number;
  of: number;
  /** Indexes in the recognised words of its first and last matched word. */
  first: number;
  last: number;
  /** Its words before the first matched one and after the last: said, most likely, but not recognised. */
  unheardBefore: number;
  unheardAfter: number;
}

export interface LineMissing {
  shot: string;
  line: number;
  text: string;
  missing: true;
  matched: number;
  of: number;
}

export type LineMatch = LineFound | LineMissing;

/** A shot's new window and what to know about it (`""` when every line was found). */
export interface Change {
  shot: string;
  audio_in: number;
  audio_out: number;
  note: string;
}

/** Below this similarity two words are not a match at all. */
const MIN_SIMILARITY = 0.6;
const SKIP_SCRIPT_WORD = 0.4;
const SKIP_HEARD_INSIDE_LINE = 0.3;
const SKIP_HEARD_BETWEEN_LINES = 0.05;
/**
 * Leaving a whole line unheard costs less than skipping its words one by one, so a line nobody said does not
 * lend its words to a stray match that would leave its neighbour line short.
 */
const skipLine = (words: number): number => Math.min(words * SKIP_SCRIPT_WORD, 0.5 + 0.1 * words);
/** Scores are sums of fractions: equal paths may differ in the last bits. */
const EPSILON = 1e-9;
/** A line counts as found when at least half of its words were heard. */
const FOUND_SHARE = 0.5;
/** The traceback table is one byte a cell: beyond this the recording is to be matched in parts. */
const MAX_CELLS = 200_000_000;

const FROM_DIAGONAL = 1;
const FROM_UP = 2;
const FROM_LEFT = 3;
const FROM_LINE_START = 4;

interface HeardToken {
  form: string;
  start: number;
  end: number;
  /** Index of the recognised word it came from. */
  word: number;
}

/** The recognised words as tokens to match; a word that reads as several shares its time among them. */
function heardTokens(words: readonly Word[]): HeardToken[] {
  const out: HeardToken[] = [];
  words.forEach((w, i) => {
    const forms = recognisedWords(w.w);
    const step = (w.end - w.start) / Math.max(1, forms.length);
    forms.forEach((form, k) => {
      out.push({ form, start: w.start + k * step, end: w.start + (k + 1) * step, word: i });
    });
  });
  return out;
}

/** Ids for distinct strings, so similarities are computed once per pair of spellings. */
function intern(forms: readonly string[]): { ids: Int32Array; vocabulary: string[] } {
  const index = new Map<string, number>();
  const ids = new Int32Array(forms.length);
  forms.forEach((f, i) => {
    let id = index.get(f);
    if (id === undefined) {
      id = index.size;
      index.set(f, id);
    }
    ids[i] = id;
  });
  return { ids, vocabulary: [...index.keys()] };
}

/**
 * Where each dialogue line was heard. Lines in script order; words in time order. A line is found when at least
 * half its words were matched, in order, to recognised words; the others are `missing`.
 */
export function matchLines(lines: readonly LineToMatch[], words: readonly Word[]): LineMatch[] {
  const scriptForms: string[] = [];
  const lineOf: number[] = [];
  const lineSizes = lines.map((l, li) => {
    const forms = matchWords(l.text);
    for (const f of forms) {
      scriptForms.push(f);
      lineOf.push(li);
    }
    return forms.length;
  });
  const heard = heardTokens(words);
  const n = scriptForms.length;
  const m = heard.length;
  if ((n + 1) * (m + 1) > MAX_CELLS) {
    throw new RangeError(`${n} script words × ${m} recognised words is too much to match at once`);
  }
  // Between lines: before the first script word, after the last, and after each line's last word.
  const between = new Uint8Array(n + 1);
  for (let i = 0; i <= n; i++) between[i] = i === 0 || i === n || lineOf[i - 1] !== lineOf[i] ? 1 : 0;

  const s = intern(scriptForms);
  const h = intern(heard.map((t) => t.form));
  // Similarities by spelling pair in 255ths (a byte each: two vocabularies of thousands of words stay small), a
  // row per script spelling, filled when a script word first needs it.
  const hv = h.vocabulary.length;
  const sims = new Uint8Array(s.vocabulary.length * hv);
  const filled = new Uint8Array(s.vocabulary.length);
  const simRow = (a: number): Uint8Array => {
    const row = sims.subarray(a * hv, (a + 1) * hv);
    if (filled[a]) return row;
    filled[a] = 1;
    const word = s.vocabulary[a];
    for (let b = 0; b < hv; b++) {
      const other = h.vocabulary[b];
      // Lengths this far apart cannot reach the threshold.
      const longer = Math.max(word.length, other.length);
      const far = Math.abs(word.length - other.length) > longer * (1 - MIN_SIMILARITY);
      row[b] = far ? 0 : Math.round(similarity(word, other) * 255);
    }
    return row;
  };
  const simOf = (a: number, b: number): number => simRow(a)[b] / 255;

  const width = m + 1;
  const from = new Uint8Array((n + 1) * width);
  let prev = new Float64Array(width);
  let cur = new Float64Array(width);
  for (let j = 1; j <= m; j++) {
    prev[j] = prev[j - 1] - SKIP_HEARD_BETWEEN_LINES;
    from[j] = FROM_LEFT;
  }
  // The row where the current line starts: a line may be skipped whole from there.
  let lineStartRow = Float64Array.from(prev);
  let lineStart = 0;
  for (let i = 1; i <= n; i++) {
    const skipHeard = between[i] ? SKIP_HEARD_BETWEEN_LINES : SKIP_HEARD_INSIDE_LINE;
    const lineEnds = i === n || lineOf[i] !== lineOf[i - 1];
    const wholeLine = skipLine(i - lineStart);
    const row = simRow(s.ids[i - 1]);
    const heardIds = h.ids;
    for (let j = 0; j <= m; j++) {
      let best = prev[j] - SKIP_SCRIPT_WORD;
      let way = FROM_UP;
      if (j > 0) {
        const sim = row[heardIds[j - 1]] / 255;
        if (sim >= MIN_SIMILARITY) {
          const diagonal = prev[j - 1] + 2 * sim - 1;
          // Ties go to the match: read backwards, that keeps the later take of a repeated line.
          if (diagonal >= best - EPSILON) {
            best = diagonal;
            way = FROM_DIAGONAL;
          }
        }
      }
      if (lineEnds && lineStartRow[j] - wholeLine > best + EPSILON) {
        best = lineStartRow[j] - wholeLine;
        way = FROM_LINE_START;
      }
      if (j > 0 && cur[j - 1] - skipHeard > best + EPSILON) {
        best = cur[j - 1] - skipHeard;
        way = FROM_LEFT;
      }
      cur[j] = best;
      from[i * width + j] = way;
    }
    if (lineEnds) {
      lineStartRow = Float64Array.from(cur);
      lineStart = i;
    }
    [prev, cur] = [cur, prev];
  }

  // Walk back from the end: which recognised token each script word got, if any.
  const starts = new Int32Array(n + 1);
  for (let i = 1; i <= n; i++) starts[i] = i > 1 && lineOf[i - 1] === lineOf[i - 2] ? starts[i - 1] : i - 1;
  const got = new Int32Array(n).fill(-1);
  for (let i = n, j = m; i > 0 || j > 0; ) {
    const way = from[i * width + j];
    if (way === FROM_DIAGONAL) {
      got[i - 1] = j - 1;
      i--;
      j--;
    } else if (way === FROM_UP) i--;
    else if (way === FROM_LINE_START) i = starts[i];
    else j--;
  }

  const out: LineMatch[] = [];
  let at = 0;
  lines.forEach((l, li) => {
    const of = lineSizes[li];
    let matched = 0;
    let total = 0;
    let firstToken = -1;
    let lastToken = -1;
    let unheardBefore = 0;
    let unheardAfter = 0;
    for (let k = at; k < at + of; k++) {
      const j = got[k];
      if (j < 0) {
        if (firstToken < 0) unheardBefore++;
        else unheardAfter++;
        continue;
      }
      matched++;
      total += simOf(s.ids[k], h.ids[j]);
      if (firstToken < 0) firstToken = j;
      lastToken = j;
      unheardAfter = 0;
    }
    at += of;
    const base = { shot: l.shot, line: l.line, text: l.text };
    if (of === 0 || matched < Math.max(1, Math.ceil(of * FOUND_SHARE))) {
      out.push({ ...base, missing: true, matched, of });
      return;
    }
    out.push({
      ...base,
      start: heard[firstToken].start,
      end: heard[lastToken].end,
      score: Math.round((total / of) * 1000) / 1000,
      matched,
      of,
      first: heard[firstToken].word,
      last: heard[lastToken].word,
      unheardBefore,
      unheardAfter,
    });
  });
  return out;
}

export function isFound(m: LineMatch): m is LineFound {
  return !("missing" in m);
}

const round2 = (t: number): number => Math.round(t * 100) / 100;

function lineList(lines: readonly LineMatch[]): string {
  return `${lines.length === 1 ? "line" : "lines"} ${lines.map((l) => l.line).join(", ")}`;
}

/**
 * Each shot's window from its lines: from its first found line's first word to its last found line's last word,
 * rounded to 0.01 s. With `snap` and an envelope, each edge moves outward into the silence next to it (at most
 * 0.3 s, more over words of the line the recogniser missed at that edge; never into the neighbouring words). Shots none of whose lines were found get a note and no change.
 */
export function shotWindows(
  matches: readonly LineMatch[],
  words: readonly Word[],
  opts: { snap: boolean; envelope?: Envelope },
): { changes: Change[]; notes: string[] } {
  const byShot = new Map<string, LineMatch[]>();
  for (const m of matches) {
    const list = byShot.get(m.shot);
    if (list) list.push(m);
    else byShot.set(m.shot, [m]);
  }
  const spoken = words.map((w) => recognisedWords(w.w).length > 0);
  const envelope = opts.snap && opts.envelope && opts.envelope.peaks.length > 0 ? opts.envelope : null;
  const threshold = envelope ? silenceThreshold(envelope) : 0;
  const changes: Change[] = [];
  const notes: string[] = [];
  for (const [shot, lines] of byShot) {
    const found = lines.filter(isFound);
    const missing = lines.filter((l) => !isFound(l));
    if (found.length === 0) {
      notes.push(`${shot}: ${lineList(missing)} not found in the recording; window left as it was`);
      continue;
    }
    const first = found[0];
    const last = found[found.length - 1];
    let audioIn = first.start;
    let audioOut = last.end;
    if (envelope) {
      let before = 0;
      for (let i = first.first - 1; i >= 0; i--) {
        if (spoken[i]) {
          before = words[i].end;
          break;
        }
      }
      let after = Number.POSITIVE_INFINITY;
      for (let i = last.last + 1; i < words.length; i++) {
        if (spoken[i]) {
          after = words[i].start;
          break;
        }
      }
      audioIn = snapStart(audioIn, before, envelope, threshold, reachOver(first.unheardBefore));
      audioOut = snapEnd(audioOut, after, envelope, threshold, reachOver(last.unheardAfter));
    }
    audioIn = Math.max(0, round2(audioIn));
    audioOut = Math.max(round2(audioOut), audioIn + 0.01);
    const note = missing.length > 0 ? `${lineList(missing)} not found` : "";
    changes.push({ shot, audio_in: audioIn, audio_out: round2(audioOut), note });
  }
  return { changes, notes };
}

export interface MatchInput {
  lines: readonly LineToMatch[];
  words: readonly Word[];
  snap: boolean;
  envelope?: Envelope;
}

export interface MatchResult {
  matches: LineMatch[];
  changes: Change[];
  notes: string[];
}

/** The lines matched and the shots' windows from them, in one call (what the compile thread runs). */
export function matchScriptWindows(input: MatchInput): MatchResult {
  const matches = matchLines(input.lines, input.words);
  return { matches, ...shotWindows(matches, input.words, { snap: input.snap, envelope: input.envelope }) };
}
