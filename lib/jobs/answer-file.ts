// How a job hands its answer to the route that queued it and waits: a small JSON file in the episode folder, named
// by the job, written by the handler and taken (read, then removed) by the route. The episode folder is the one
// place every API and worker host shares, and an answer can outgrow a job's log line.
import { readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { episodeFence, readShowText, writeShowJson } from "../paths/guarded.ts";

/** Answers nobody came for (the route gave up or its process ended) are removed after a day. */
export const ANSWER_LIFE_MS = 24 * 3600_000;

/** The answer file of a job in `dir`: `<prefix><job id>.json`, the id reduced to safe file-name characters. */
export const jobAnswerFile = (dir: string, prefix: string, jobId: string): string =>
  path.join(dir, `${prefix}${jobId.replace(/[^A-Za-z0-9_-]/g, "_")}.json`);

/** Write a job's answer (atomically, fenced to the episode `ep`). */
export async function writeJobAnswer(ep: string, file: string, answer: unknown): Promise<void> {
  await writeShowJson(episodeFence(ep), file, answer);
}

/** The job's answer, removed once read; null when the job wrote none (or nothing readable). */
export async function takeJobAnswer(ep: string, file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readShowText(episodeFence(ep), file);
  } catch {
    return null;
  }
  await rm(file, { force: true });
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** Remove answer files in `dir` older than a day that no route took (it gave up, or its process ended). */
export async function pruneJobAnswers(dir: string, prefix: string, now: number): Promise<void> {
  const names = await readdir(dir).catch((): string[] => []);
  await Promise.all(
    names
      .filter((n) => n.startsWith(prefix) && n.endsWith(".json"))
      .map(async (n) => {
        const file = path.join(dir, n);
        const st = await stat(file).catch(() => null);
        if (st && now - st.mtimeMs > ANSWER_LIFE_MS) await rm(file, { force: true });
      }),
  );
}
