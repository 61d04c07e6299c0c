// zod's messages rewritten for a person: each says what was expected and what came, e.g.
// `must be "final" or "proxy" (got "FINAL")`; a field left out is `required`. A schema's own message still wins.
import type { z } from "zod";
import { shown } from "../errors.ts";

type RawIssue = z.core.$ZodRawIssue;
type Issue = z.core.$ZodIssue;

// JSON Schema type names as a sentence says them.
const TYPES: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  bigint: "a whole number",
  boolean: "true or false",
  object: "an object",
  record: "an object",
  array: "a list",
  tuple: "a list",
  null: "null",
  date: "a date",
};

/** The error map parseInput hands to every parse: the message for one issue, without the field's name. */
export const studioErrorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === "invalid_type" && issue.input === undefined) return "required";
  if (issue.code === "unrecognized_keys") return unknownKeys(issue.keys);
  const wanted = expected(issue);
  return wanted
    ? `must be ${wanted} (got ${shown(issue.input)})`
    : `is not valid (got ${shown(issue.input)})`;
};

function unknownKeys(keys: readonly string[]): string {
  const names = keys.map((k) => (k.length <= 64 ? k : shown(k)));
  return `unknown field${keys.length > 1 ? "s" : ""} ${names.join(", ")}`;
}

/** What the schema wanted, as the words after "must be"; null when zod says nothing a person could act on. */
function expected(issue: RawIssue | Issue): string | null {
  switch (issue.code) {
    case "invalid_type":
      return typeWord(issue.expected, issue);
    case "invalid_value":
      return oneOf(issue.values.map((v) => shown(v)));
    case "too_small":
      return bound("at least", "more than", issue.minimum, issue.inclusive, issue.origin);
    case "too_big":
      return bound("at most", "less than", issue.maximum, issue.inclusive, issue.origin);
    case "not_multiple_of":
      return `a multiple of ${issue.divisor}`;
    case "invalid_format":
      return issue.format === "regex" ? `text matching ${issue.pattern}` : `a valid ${issue.format}`;
    case "invalid_union":
      // A discriminated union names its options; a plain one is read branch by branch.
      return discriminatorOptions(issue) ?? unionWords(issue.errors);
    case "invalid_key":
    case "invalid_element":
      return "an object whose keys and values are valid";
    default:
      return null;
  }
}

function discriminatorOptions(issue: object): string | null {
  const options = "options" in issue && Array.isArray(issue.options) ? issue.options : [];
  return options.length ? oneOf(options.map((v) => shown(v))) : null;
}

function typeWord(type: string, issue: RawIssue | Issue): string {
  // z.int() and z.number().int() both report `number` for a value that is no number at all.
  if (type === "number" && "inst" in issue && wantsInteger(issue.inst)) return TYPES.int;
  return TYPES[type] ?? type;
}

// An integer schema says so by its format (z.int()) or by a format check (z.number().int()).
function wantsInteger(schema: z.core.$ZodType | z.core.$ZodCheck | undefined): boolean {
  const def: object = schema?._zod.def ?? {};
  const checks = "checks" in def && Array.isArray(def.checks) ? def.checks : [];
  return [def, ...checks.map((check) => check?._zod?.def)].some(isIntFormat);
}

function isIntFormat(def: unknown): boolean {
  return (
    def instanceof Object && "format" in def && typeof def.format === "string" && def.format.includes("int")
  );
}

// Each branch of a union that failed on one issue contributes what it wanted; blank ("") is the "not set" of a
// query string and is left out of the list.
function unionWords(branches: readonly (readonly Issue[])[]): string | null {
  const words: string[] = [];
  for (const issues of branches) {
    if (issues.length !== 1) return null;
    const issue = issues[0];
    if (issue.code === "invalid_value") {
      words.push(...issue.values.filter((v) => v !== "").map((v) => shown(v)));
      continue;
    }
    const word = expected(issue);
    if (!word) return null;
    words.push(word);
  }
  return words.length ? oneOf([...new Set(words)]) : null;
}

function oneOf(words: readonly string[]): string {
  if (words.length <= 1) return words[0] ?? "nothing";
  return `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`;
}

function bound(
  incl: string,
  excl: string,
  limit: unknown,
  inclusive: boolean | undefined,
  origin: string,
): string {
  const n = Number(limit);
  const word = inclusive === false ? excl : incl;
  if (origin === "string") {
    if (word === "at least" && n === 1) return "text that is not empty";
    return `text of ${word} ${n} character${n === 1 ? "" : "s"}`;
  }
  if (origin === "array" || origin === "set") {
    if (word === "at least" && n === 1) return "a list that is not empty";
    return `a list of ${word} ${n} item${n === 1 ? "" : "s"}`;
  }
  return `${word} ${String(limit)}`;
}
