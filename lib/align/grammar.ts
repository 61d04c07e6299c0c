// A JSGF grammar for a constrained recogniser, built from the script's dialogue: the recogniser may only hear
// the script's phrases, in any order and any number of times (retakes, lines out of order). Node-free.
import { spokenWords, withoutAsides } from "./normalize.ts";

/** Where a line breaks into phrases: the places a speaker may pause or restart. */
const PHRASE_BREAKS = /[.,;:!?…\u2014\u2013"]+|\s-+\s/;

export interface Grammar {
  /** The JSGF text; "" when no phrase kept a word the dictionary knows. */
  grammar: string;
  /** How many distinct phrases the grammar offers. */
  phrases: number;
  /** Words of the script the dictionary does not have (each once, first-seen order): the recogniser cannot hear them. */
  dropped: string[];
}

/** A word as the dictionary spells it, or the dictionary's parts of a hyphenated word, or nothing. */
function known(word: string, dictionary: ReadonlySet<string>): string[] | null {
  if (dictionary.has(word)) return [word];
  if (!word.includes("-")) return null;
  const parts = word.split("-").filter((p) => p !== "");
  return parts.every((p) => dictionary.has(p)) ? parts : null;
}

/**
 * `public <s> = ( <p1> | <p2> | … )+ ;` with one rule per phrase of the lines (split at punctuation), words in
 * lower case as the dictionary has them; words the dictionary lacks are left out of their phrase.
 */
export function jsgfGrammar(lines: readonly { text: string }[], dictionary: ReadonlySet<string>): Grammar {
  const phrases: string[] = [];
  const seen = new Set<string>();
  const dropped: string[] = [];
  const droppedSeen = new Set<string>();
  for (const { text } of lines) {
    for (const part of withoutAsides(text).split(PHRASE_BREAKS)) {
      const words: string[] = [];
      for (const w of spokenWords(part)) {
        const got = known(w, dictionary);
        if (got) words.push(...got);
        else if (!droppedSeen.has(w)) {
          droppedSeen.add(w);
          dropped.push(w);
        }
      }
      const phrase = words.join(" ");
      if (phrase !== "" && !seen.has(phrase)) {
        seen.add(phrase);
        phrases.push(phrase);
      }
    }
  }
  if (phrases.length === 0) return { grammar: "", phrases: 0, dropped };
  const names = phrases.map((_, i) => `<p${i + 1}>`);
  const grammar = [
    "#JSGF V1.0;",
    "grammar script;",
    `public <s> = ( ${names.join(" | ")} )+ ;`,
    ...phrases.map((p, i) => `${names[i]} = ${p} ;`),
    "",
  ].join("\n");
  return { grammar, phrases: phrases.length, dropped };
}
