// Syntax colouring of the script and the series config as pure functions of one line: each answers the coloured
// spans of the line (what is left out is plain text), so the editor's stream mode and the tests share them. Every
// rule is line-local: a script line is classified at column 0 on its own, and a JSON string never spans lines.

export type ScriptToken =
  | "comment"
  | "marker"
  | "episode"
  | "title"
  | "sequence"
  | "location"
  | "shot"
  | "ignored"
  | "key"
  | "colon"
  | "value"
  | "number"
  | "speaker"
  | "paren"
  | "speech";

export type JsonToken = "property" | "string" | "number" | "atom" | "punctuation" | "invalid";

export interface Span<T extends string> {
  from: number;
  to: number;
  token: T;
}

/** A dialogue line: an upper-case name, an optional parenthetical, a colon and the words spoken. */
const DIALOGUE = /^([A-Z][A-Z0-9_ '-]*?)\s*(?:(\([^)]*\)))?\s*(:)\s*(.+)$/d;
/** A key line: a lower-case key, a colon, its value. Only the format's known keys are key lines. */
const KEY_LINE = /^([a-z_]+)\s*(:)\s*(.*)$/d;
export const KNOWN_KEYS: ReadonlySet<string> = new Set(
  (
    "who cast with props size audio dur duration camera sound music policy continuous text pace plate " +
    "retention model lora steps extras target profile first last overlap"
  ).split(" "),
);
const NUMBER = /^-?\d+(?:\.\d+)?(?:\s*-\s*\d+(?:\.\d+)?)?$/;

/** The words of `text` starting at `offset`, as [from, to) pairs. */
function words(text: string, offset: number): [number, number][] {
  const out: [number, number][] = [];
  for (const m of text.matchAll(/\S+/g)) out.push([offset + m.index, offset + m.index + m[0].length]);
  return out;
}

/** A header: its marker, the words it names (`kinds`, in order), then the rest of the line as `rest`. */
function headerSpans(
  line: string,
  markerLength: number,
  kinds: ScriptToken[],
  rest: ScriptToken,
): Span<ScriptToken>[] {
  const spans: Span<ScriptToken>[] = [{ from: 0, to: markerLength, token: "marker" }];
  const parts = words(line.slice(markerLength), markerLength);
  parts.slice(0, kinds.length).forEach(([from, to], i) => {
    spans.push({ from, to, token: kinds[i] });
  });
  const after = parts[kinds.length];
  if (after) spans.push({ from: after[0], to: line.length, token: rest });
  return spans;
}

/** The coloured spans of one script line, classified as the parser does (headers, comments, dialogue, keys). */
export function scriptLine(raw: string): Span<ScriptToken>[] {
  // Trailing space is dropped before a line is classified; leading space makes any line prose.
  const line = raw.trimEnd();
  if (line === "") return [];
  if (line.trimStart().startsWith("//")) return [{ from: 0, to: line.length, token: "comment" }];
  if (line.startsWith("= ")) return headerSpans(line, 1, ["episode"], "title");
  if (line.startsWith("## ")) return headerSpans(line, 2, ["shot"], "ignored");
  if (line.startsWith("# ")) return headerSpans(line, 1, ["sequence", "location"], "ignored");
  const said = DIALOGUE.exec(line);
  if (said?.indices) {
    const [name, paren, colon, speech] = said.indices.slice(1) as ([number, number] | undefined)[];
    const spans: Span<ScriptToken>[] = [];
    if (name) spans.push({ from: name[0], to: name[1], token: "speaker" });
    if (paren) spans.push({ from: paren[0], to: paren[1], token: "paren" });
    if (colon) spans.push({ from: colon[0], to: colon[1], token: "colon" });
    if (speech) spans.push({ from: speech[0], to: speech[1], token: "speech" });
    return spans;
  }
  const key = KEY_LINE.exec(line);
  if (key?.indices && KNOWN_KEYS.has(key[1])) {
    const [name, colon, value] = key.indices.slice(1) as [number, number][];
    const spans: Span<ScriptToken>[] = [
      { from: name[0], to: name[1], token: "key" },
      { from: colon[0], to: colon[1], token: "colon" },
    ];
    if (value[1] > value[0]) {
      spans.push({ from: value[0], to: value[1], token: NUMBER.test(key[3]) ? "number" : "value" });
    }
    return spans;
  }
  return [];
}

/** The coloured spans of one line of JSON: keys apart from string values, numbers, literals and punctuation. */
export function jsonLine(line: string): Span<JsonToken>[] {
  const spans: Span<JsonToken>[] = [];
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === " " || c === "\t") {
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== '"') j += line[j] === "\\" ? 2 : 1;
      const end = Math.min(j + 1, line.length);
      const after = line.slice(end).trimStart();
      spans.push({ from: i, to: end, token: after.startsWith(":") ? "property" : "string" });
      i = end;
    } else if ("{}[],:".includes(c)) {
      spans.push({ from: i, to: i + 1, token: "punctuation" });
      i++;
    } else {
      const m = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|[^\s{}[\],:"]+)/.exec(line.slice(i));
      const text = m ? m[0] : c;
      const token: JsonToken = /^-?\d/.test(text)
        ? "number"
        : text === "true" || text === "false" || text === "null"
          ? "atom"
          : "invalid";
      spans.push({ from: i, to: i + text.length, token });
      i += text.length;
    }
  }
  return spans;
}

/**
 * The stream step at `pos` of a line: the span covering it (its token and where it ends), or plain text up to the
 * next span. Always moves forward, so a stream mode built on it cannot stall.
 */
export function stepAt<T extends string>(
  spans: readonly Span<T>[],
  pos: number,
  length: number,
): { to: number; token: T | null } {
  for (const s of spans) {
    if (s.to <= pos) continue;
    if (s.from <= pos) return { to: Math.max(s.to, pos + 1), token: s.token };
    return { to: s.from, token: null };
  }
  return { to: Math.max(length, pos + 1), token: null };
}
