// Input validation: a zod failure becomes a 400 whose message names the field, what it expected and what came.
import type { z } from "zod";
import { StudioError, shown } from "./errors.ts";
import { studioErrorMap } from "./schema/messages.ts";

/**
 * Parse `data` with `schema`, or throw a 400 naming the first bad field. The person-written messages are passed
 * to this parse (not set globally), so they hold wherever input is parsed through here.
 */
export function parseInput<S extends z.ZodType>(schema: S, data: unknown, where = "body"): z.output<S> {
  const result = schema.safeParse(data, { error: studioErrorMap });
  if (result.success) return result.data;
  throw new StudioError(400, describeIssues(result.error.issues, where));
}

export function describeIssues(issues: readonly z.core.$ZodIssue[], where: string): string {
  const issue = issues[0];
  if (!issue) return `${where}: invalid`;
  const field = issue.path.length ? issue.path.map((p) => name(String(p))).join(".") : where;
  return `${field}: ${issue.message}`;
}

// Field names are the caller's own keys: a long one is quoted and cut like any other value.
const name = (key: string): string => (key.length <= 64 ? key : shown(key));
