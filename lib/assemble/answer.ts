// How an `assemble` job hands its answer to the route that waits for it: a small JSON file in the pass's folder,
// named by the job, written by the handler and taken (read, then removed) by the route. The episode folder is
// the one place every API and worker host shares, and a report of a long cut outgrows a job's log line.
import { readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import { passFolder } from "../episode/takes.ts";
import { episodeFence, readShowText, writeShowJson } from "../paths/guarded.ts";
import type { AssembleAnswer } from "./assemble.ts";

const PREFIX = ".assemble-answer-";
/** Answers nobody came for (the route gave up or its process ended) are removed after a day. */
const ANSWER_LIFE_MS = 24 * 3600_000;

export const answerPath = (ep: string, pass: Pass, jobId: string) =>
  path.join(ep, passFolder(pass), `${PREFIX}${jobId.replace(/[^A-Za-z0-9_-]/g, "_")}.json`);

export async function writeAnswer(
  ep: string,
  pass: Pass,
  jobId: string,
  answer: AssembleAnswer,
): Promise<void> {
  await writeShowJson(episodeFence(ep), answerPath(ep, pass, jobId), answer);
}

/** The job's answer, removed once read; null when the job wrote none. */
export async function takeAnswer(ep: string, pass: Pass, jobId: string): Promise<AssembleAnswer | null> {
  const file = answerPath(ep, pass, jobId);
  let text: string;
  try {
    text = await readShowText(episodeFence(ep), file);
  } catch {
    return null;
  }
  await rm(file, { force: true });
  try {
    return JSON.parse(text) as AssembleAnswer;
  } catch {
    return null;
  }
}

/** Remove answers older than a day that no route took. */
export async function pruneAnswers(ep: string, pass: Pass, now: number): Promise<void> {
  const dir = path.join(ep, passFolder(pass));
  const names = await readdir(dir).catch((): string[] => []);
  await Promise.all(
    names
      .filter((n) => n.startsWith(PREFIX) && n.endsWith(".json"))
      .map(async (n) => {
        const file = path.join(dir, n);
        const st = await stat(file).catch(() => null);
        if (st && now - st.mtimeMs > ANSWER_LIFE_MS) await rm(file, { force: true });
      }),
  );
}
