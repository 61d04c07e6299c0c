// Words of a text as alignment sees them, and how alike two words are. Node-free (the page may import it).

const PARENTHETICAL = /\([^)]*\)|\[[^\]]*\]|\{[^}]*\}/g;
const CURLY_APOSTROPHES = /[\u2018\u2019\u02bc\u0060\u00b4]/g;
/** Everything that is not a letter, a digit, an apostrophe or a hyphen separates words. */
const SEPARATORS = /[^\p{L}\p{N}'-]+/u;
const EDGE_MARKS = /^['-]+|['-]+$/g;
/** A recogniser's alternate-pronunciation suffix: `close(2)`. */
const ALTERNATE = /\(\d+\)$/;
/** Recogniser tokens that are not words: `<sil>`, `<s>`, `[noise]`, `++breath++`, `[NOISE]`. */
const NON_WORD = /^(?:<[^>]*>|\[[^\]]*\]|\+\+.*\+\+|\+[^+]*\+)$/;

/** The text with its parentheticals and bracketed asides (`(beat)`, `[laughs]`) blanked out: never spoken. */
export function withoutAsides(text: string): string {
  return text.replace(PARENTHETICAL, " ");
}

/**
 * The words of a line of text, spoken order, for the recogniser's grammar: lower case, curly apostrophes as `'`,
 * parentheticals out, punctuation out, hyphenated words kept whole, digits kept (numbers as written).
 */
export function spokenWords(text: string): string[] {
  const out: string[] = [];
  for (const raw of withoutAsides(text).replace(CURLY_APOSTROPHES, "'").toLowerCase().split(SEPARATORS)) {
    const word = raw.replace(EDGE_MARKS, "");
    if (word !== "") out.push(word);
  }
  return out;
}

/** The form two words are compared in: no apostrophes, hyphens split the word in parts. */
export function matchForms(word: string): string[] {
  return word
    .replace(/'/g, "")
    .split("-")
    .filter((w) => w !== "");
}

/** The words of a text as matching compares them. */
export function matchWords(text: string): string[] {
  return spokenWords(text).flatMap(matchForms);
}

/**
 * A recogniser's token as words to match: `close(2)` → `close`, `Hello,` → `hello`; silences, noises and
 * fillers give none.
 */
export function recognisedWords(token: string): string[] {
  const t = token.trim();
  if (t === "" || NON_WORD.test(t)) return [];
  return matchWords(t.replace(ALTERNATE, ""));
}

/** Edit distance (insert, delete, substitute, each 1), two rows of memory. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = new Array<number>(b.length + 1);
  let cur = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const sub = prev[j - 1] + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1);
      cur[j] = Math.min(sub, prev[j] + 1, cur[j - 1] + 1);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length];
}

/**
 * How alike two match-form words are, 0–1: 1 when equal, else 1 − distance / longer length. Words of one or two
 * letters, and numbers, must be equal: one letter off there is another word.
 */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  const longer = Math.max(a.length, b.length);
  if (longer <= 2 || /\d/.test(a) || /\d/.test(b)) return 0;
  return Math.max(0, 1 - editDistance(a, b) / longer);
}
