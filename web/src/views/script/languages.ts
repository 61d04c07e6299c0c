// The editor's two languages as CodeMirror stream modes over the line colouring in tokens.ts, the tags each token
// carries and the classes the stylesheet colours them with.
import { HighlightStyle, StreamLanguage, type StreamParser } from "@codemirror/language";
import { type Tag, tags } from "@lezer/highlight";
import { type JsonToken, jsonLine, type ScriptToken, type Span, scriptLine, stepAt } from "./tokens.ts";

/** A stream mode that colours each line by `spans`; the spans of the line being read are kept between steps. */
function lineMode<T extends string>(
  name: string,
  spans: (line: string) => Span<T>[],
  table: Record<T, Tag>,
): StreamParser<null> {
  let line: string | null = null;
  let cached: Span<T>[] = [];
  return {
    name,
    startState: () => null,
    token(stream) {
      if (stream.string !== line) {
        line = stream.string;
        cached = spans(line);
      }
      const step = stepAt(cached, stream.pos, stream.string.length);
      stream.pos = step.to;
      return step.token;
    },
    tokenTable: table,
  };
}

const SCRIPT_TAGS: Record<ScriptToken, Tag> = {
  comment: tags.lineComment,
  marker: tags.processingInstruction,
  episode: tags.heading1,
  title: tags.heading2,
  sequence: tags.heading3,
  location: tags.labelName,
  shot: tags.heading4,
  ignored: tags.meta,
  key: tags.propertyName,
  colon: tags.punctuation,
  value: tags.string,
  number: tags.number,
  speaker: tags.className,
  paren: tags.annotation,
  speech: tags.quote,
};

const JSON_TAGS: Record<JsonToken, Tag> = {
  property: tags.propertyName,
  string: tags.string,
  number: tags.number,
  atom: tags.atom,
  punctuation: tags.punctuation,
  invalid: tags.invalid,
};

export const scriptLanguage = StreamLanguage.define(lineMode("episode-script", scriptLine, SCRIPT_TAGS));
export const jsonLanguage = StreamLanguage.define(lineMode("series-json", jsonLine, JSON_TAGS));

/** Tags to the stylesheet's `tok-*` classes (colours live in style.css with the rest of the theme). */
export const highlightClasses = HighlightStyle.define([
  { tag: tags.lineComment, class: "tok-comment" },
  { tag: tags.processingInstruction, class: "tok-marker" },
  { tag: [tags.heading1, tags.heading3, tags.heading4], class: "tok-header" },
  { tag: tags.heading2, class: "tok-title" },
  { tag: tags.labelName, class: "tok-location" },
  { tag: tags.meta, class: "tok-ignored" },
  { tag: tags.propertyName, class: "tok-key" },
  { tag: tags.punctuation, class: "tok-punct" },
  { tag: tags.string, class: "tok-value" },
  { tag: [tags.number, tags.atom], class: "tok-number" },
  { tag: tags.className, class: "tok-speaker" },
  { tag: tags.annotation, class: "tok-paren" },
  { tag: tags.quote, class: "tok-speech" },
  { tag: tags.invalid, class: "tok-invalid" },
]);
