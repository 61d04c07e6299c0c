// What an `align` job carries from the route that queued it to the worker that runs it, and how its answer (or
// its refusal) comes back: a small JSON file in the episode's `_cache/`, named by the job, written by the worker
// and taken (read, then removed) by the route. The episode folder is the one place every API and worker host shares.
import path from "node:path";
import { z } from "zod";
import { jobAnswerFile, pruneJobAnswers, takeJobAnswer, writeJobAnswer } from "../jobs/answer-file.ts";

export const alignPayload = z.object({
  /** The episode's real path. */
  ep: z.string().min(1),
  pass: z.enum(["final", "proxy"]),
  /** The recording's real path and its episode-relative name. */
  recording: z.string().min(1),
  recording_rel: z.string().min(1),
  /** The whisper model asked for; null: the cached words' model, else the default. */
  model: z.string().min(1).nullable(),
  snap: z.boolean(),
  dry_run: z.boolean(),
  /** Point the series config's `audio.track` at the recording (a track asked that is not the config's). */
  set_track: z.boolean(),
});

export type AlignPayload = z.infer<typeof alignPayload>;

/** A run that could not align: the status and message the route answers, and the recogniser's log. */
export interface AlignRefusal {
  ok: false;
  status: number;
  error: string;
  log: string;
  extra?: Record<string, unknown>;
}

const PREFIX = ".align-answer-";
const answerDir = (ep: string) => path.join(ep, "_cache");
const answerFile = (ep: string, jobId: string) => jobAnswerFile(answerDir(ep), PREFIX, jobId);

export async function writeAlignAnswer(ep: string, jobId: string, answer: unknown): Promise<void> {
  await writeJobAnswer(ep, answerFile(ep, jobId), answer);
}

/** The job's answer, removed once read; null when the job wrote none. */
export async function takeAlignAnswer(ep: string, jobId: string): Promise<unknown> {
  return takeJobAnswer(ep, answerFile(ep, jobId));
}

/** Remove answers older than a day that no route took. */
export async function pruneAlignAnswers(ep: string, now: number): Promise<void> {
  await pruneJobAnswers(answerDir(ep), PREFIX, now);
}
