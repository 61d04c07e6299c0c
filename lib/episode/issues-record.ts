// The `_issues.json` record: the file and each stored note have one lenient schema (unknown fields kept
// in their order, a wrong-typed field read as null), and the file has one writer.
import path from "node:path";
import { z } from "zod";
import type { Services } from "../context.ts";
import { episodeFence, removeShow, writeShowFile } from "../paths/guarded.ts";
import { pyJson } from "../script/canonical.ts";
import { forgetJsonFile } from "../store/json-file.ts";
import { type Lenient, recordKind } from "../store/record.ts";

export const ISSUES_FILE = "_issues.json";
export const ISSUES_VERSION = 1;

const txt = z.string();

/** A picture the shot used when the note was taken. */
export const issueRef = z.looseObject({ role: txt, id: txt.nullable(), path: txt.nullable() });
export type IssueRef = z.output<typeof issueRef>;

/** One stored note, in the file's key order; `addressed` is worked out on read and never stored. */
export const ISSUE_SHAPE = {
  id: txt,
  shot: txt,
  pass: z.enum(["final", "proxy"]),
  take: z.number().int(),
  shot_hash: txt,
  target: txt,
  script: txt,
  prompt: txt,
  /** An integer in the file (read as a bigint), a string on the wire. */
  seed: z.bigint(),
  refs: z.array(issueRef),
  take_file: txt,
  note: txt,
  when: txt,
};

/** A note as read: `take`, `seed` and `take_file` are null when there is none. */
export type Issue = Lenient<typeof ISSUE_SHAPE>;

export const issueRecord = recordKind(ISSUE_SHAPE);

/** The file: a version (a newer one is refused, not rewritten) and the notes, oldest first. */
export const issuesFileRecord = recordKind({ version: z.number(), items: z.array(z.unknown()) });
export type IssuesFile = Lenient<typeof issuesFileRecord.shape>;

export const issuesPath = (ep: string) => path.join(ep, ISSUES_FILE);

/**
 * Write the notes into the file as read (its other fields kept in their order), or remove the file when no
 * note is left.
 */
export async function writeIssuesFile(
  services: Pick<Services, "caches">,
  ep: string,
  file: IssuesFile,
  items: readonly Issue[],
): Promise<void> {
  const where = issuesPath(ep);
  if (items.length === 0) await removeShow(episodeFence(ep), where);
  else await writeShowFile(episodeFence(ep), where, issuesText(file, items));
  forgetJsonFile(services, where);
}

/** The file's text: its fields in their order with this version and `items`, seeds as integer literals. */
export function issuesText(file: IssuesFile, items: readonly Issue[]): string {
  return `${pyJson({ ...file, version: ISSUES_VERSION, items }, { indent: 2, floatKeys: NO_FLOATS })}\n`;
}

const NO_FLOATS: ReadonlySet<string> = new Set();
