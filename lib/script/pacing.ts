// The dialogue pacing model: syllable counts, pauses, speech time and verdicts (script format 4.13).
import { roundHalfEven } from "./rounding.ts";

export type Pace = "slow" | "normal" | "fast";
export type Verdict = "CRAMMED" | "tight" | "ok";

/** Only the fields pacing reads, so compiled entries and IR lines both fit. */
export interface SpokenLine {
  speaker: string;
  line: string;
}

/** Syllables per second a listener accepts at each pace. */
export const PACE_RATES: Readonly<Record<Pace, number>> = { slow: 3.6, normal: 4.4, fast: 5.4 };
/** Above this rate speech is crammed whatever the pace. */
export const CEILING = 5.8;
/** A rate may exceed its pace by this much before it counts as tight. */
export const TIGHT_MARGIN = 0.15;
export const HEAD_AIR = 0.35;
export const TAIL_AIR = 0.3;
export const SPEAKER_CHANGE_PAUSE = 0.3;
export const SAME_SPEAKER_PAUSE = 0.15;
/** The shortest speaking window forcedRate divides by, so a tiny window cannot divide by zero. */
export const MIN_SPEAKING_WINDOW = 0.1;

const WHITESPACE = /\s+/;
const NOT_LETTERS = /[^a-z]/g;
const VOWEL_RUNS = /[aeiouy]+/g;
const SOUNDED_E = /(?:le|ee|ye)$/;

export function isPace(value: string): value is Pace {
  return value === "slow" || value === "normal" || value === "fast";
}

function wordSyllables(raw: string): number {
  const word = raw.toLowerCase().replace(NOT_LETTERS, "");
  if (word === "") return 0;
  let count = word.match(VOWEL_RUNS)?.length ?? 0;
  // A silent final e ("cake"), but not the sounded endings of "table", "free", "bye".
  if (count > 1 && word.endsWith("e") && !SOUNDED_E.test(word)) count -= 1;
  return Math.max(1, count);
}

/** Vowel-group syllable count; numerals count zero. */
export function syllables(text: string): number {
  let total = 0;
  for (const word of text.split(WHITESPACE)) if (word) total += wordSyllables(word);
  return total;
}

export function dialogueSyllables(dialogue: readonly SpokenLine[]): number {
  let total = 0;
  for (const d of dialogue) total += syllables(d.line);
  return total;
}

/** Air before, after and between lines (longer when the speaker changes). */
export function pauses(dialogue: readonly SpokenLine[]): number {
  let total = HEAD_AIR + TAIL_AIR;
  for (let i = 1; i < dialogue.length; i++) {
    total += dialogue[i].speaker === dialogue[i - 1].speaker ? SAME_SPEAKER_PAUSE : SPEAKER_CHANGE_PAUSE;
  }
  return total;
}

export function paceRate(pace: Pace): number {
  return PACE_RATES[pace];
}

/** How long the lines take at the pace, pauses included; 0 when nothing is spoken. */
export function speechSeconds(dialogue: readonly SpokenLine[], pace: Pace): number {
  const syl = dialogueSyllables(dialogue);
  return syl === 0 ? 0 : syl / PACE_RATES[pace] + pauses(dialogue);
}

/** The syllable rate the lines need to fit in `seconds`. */
export function forcedRate(dialogue: readonly SpokenLine[], seconds: number): number {
  return dialogueSyllables(dialogue) / Math.max(MIN_SPEAKING_WINDOW, seconds - pauses(dialogue));
}

/** The verdict for lines rendered in a window of `heldSeconds` (frames / fps). */
export function verdict(dialogue: readonly SpokenLine[], heldSeconds: number, pace: Pace): Verdict {
  const rate = forcedRate(dialogue, heldSeconds);
  if (rate > CEILING) return "CRAMMED";
  if (rate > PACE_RATES[pace] + TIGHT_MARGIN) return "tight";
  return "ok";
}

/** How many syllables a window holds at the pace (the CRAMMED warning's "about N syllables"). */
export function syllablesHeld(dialogue: readonly SpokenLine[], heldSeconds: number, pace: Pace): number {
  return Math.trunc(PACE_RATES[pace] * Math.max(0, heldSeconds - pauses(dialogue)));
}

/** The shortest grid length (seconds) that holds the lines; `snap` is the target's frame grid. */
export function fitsSeconds(
  dialogue: readonly SpokenLine[],
  pace: Pace,
  fps: number,
  snap: (frames: number) => number,
): number {
  return snap(roundHalfEven(speechSeconds(dialogue, pace) * fps)) / fps;
}
