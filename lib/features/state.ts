// An install job's tasks as the features listing shows them: one small file per job in the settings folder,
// written by the route that queues the job and then only by the worker running it.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { studioDataDir } from "../config/home.ts";
import { writeJsonAtomic } from "../store/atomic.ts";
import { isObject } from "../store/json-guards.ts";

export type TaskStatus = "queued" | "running" | "done" | "failed" | "canceled";

export interface InstallTask {
  key: string;
  kind: "model";
  name: string;
  folder: string;
  status: TaskStatus;
  bytes: number;
  total: number | null;
  error: string | null;
  note: string | null;
}

export const installStateFile = (home: string, jobId: string) =>
  path.join(studioDataDir(home), "installs", `${jobId.replace(/[^A-Za-z0-9_-]/g, "_")}.json`);

export async function writeInstallTasks(
  home: string,
  jobId: string,
  tasks: readonly InstallTask[],
): Promise<void> {
  await writeJsonAtomic(installStateFile(home, jobId), { job: jobId, tasks }, { durable: false });
}

/** The job's tasks, or null when its file is missing or unreadable. */
export async function readInstallTasks(home: string, jobId: string): Promise<InstallTask[] | null> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(installStateFile(home, jobId), "utf8"));
  } catch {
    return null;
  }
  if (!isObject(raw) || !Array.isArray(raw.tasks)) return null;
  return raw.tasks.filter(isObject) as unknown as InstallTask[];
}

/** The tasks of a job just queued: every file waiting, none started. */
export const freshTasks = (
  items: readonly { key: string; name: string; folder: string; size?: number }[],
): InstallTask[] =>
  items.map((i) => ({
    key: i.key,
    kind: "model",
    name: i.name,
    folder: i.folder,
    status: "queued",
    bytes: 0,
    total: i.size ?? null,
    error: null,
    note: null,
  }));
