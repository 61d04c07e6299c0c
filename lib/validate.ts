// Input validation: a zod failure becomes a 400 whose message names the field and the problem.
import type { z } from "zod";
import { StudioError, shown } from "./errors.ts";

/** Parse `data` with `schema`, or throw a 400 naming the first bad field. */
export function parseInput<S extends z.ZodType>(schema: S, data: unknown, where = "body"): z.output<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  throw new StudioError(400, describeIssues(result.error.issues, where));
}

export function describeIssues(issues: readonly z.core.$ZodIssue[], where: string): string {
  const issue = issues[0];
  if (!issue) return `${where}: invalid`;
  const field = issue.path.length ? issue.path.map((p) => name(String(p))).join(".") : where;
  return `${field}: ${describeIssue(issue)}`;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type" && /received undefined/.test(issue.message)) return "required";
  if (issue.code === "unrecognized_keys")
    return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map(name).join(", ")}`;
  return issue.message;
}

// Field names are the caller's own keys: a long one is quoted and cut like any other value.
const name = (key: string): string => (key.length <= 64 ? key : shown(key));
