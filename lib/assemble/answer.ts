// How an `assemble` job hands its answer to the route that waits for it: a small JSON file in the pass's folder,
// named by the job, written by the handler and taken (read, then removed) by the route. The episode folder is
// the one place every API and worker host shares, and a report of a long cut outgrows a job's log line.
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import { passFolder } from "../episode/takes.ts";
import { jobAnswerFile, pruneJobAnswers, takeJobAnswer, writeJobAnswer } from "../jobs/answer-file.ts";
import type { AssembleAnswer } from "./assemble.ts";

const PREFIX = ".assemble-answer-";

export const answerPath = (ep: string, pass: Pass, jobId: string) =>
  jobAnswerFile(path.join(ep, passFolder(pass)), PREFIX, jobId);

export async function writeAnswer(
  ep: string,
  pass: Pass,
  jobId: string,
  answer: AssembleAnswer,
): Promise<void> {
  await writeJobAnswer(ep, answerPath(ep, pass, jobId), answer);
}

/** The job's answer, removed once read; null when the job wrote none. */
export async function takeAnswer(ep: string, pass: Pass, jobId: string): Promise<AssembleAnswer | null> {
  return (await takeJobAnswer(ep, answerPath(ep, pass, jobId))) as AssembleAnswer | null;
}

/** Remove answers older than a day that no route took. */
export async function pruneAnswers(ep: string, pass: Pass, now: number): Promise<void> {
  await pruneJobAnswers(path.join(ep, passFolder(pass)), PREFIX, now);
}
