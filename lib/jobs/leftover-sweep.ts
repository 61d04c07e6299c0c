// Where crash leftovers are looked for, and when: at start, the settings folder and every episode the service
// knows of (its jobs' and the finder's); when a job ends or is given back, that job's own folders.
import { realpath } from "node:fs/promises";
import path from "node:path";
import type { Services } from "../context.ts";
import { findEpisodes } from "../episode/find.ts";
import { passFolder, safeShot, shotFolder } from "../episode/takes.ts";
import { insideRoots, realRoots } from "../paths/roots.ts";
import { type LeftoverRules, type SweepTarget, sweepLeftovers } from "../store/leftovers.ts";
import { mapLimit } from "../store/map-limit.ts";
import { jobDatabaseUrl } from "./database-url.ts";
import { pidAlive, thisProcess } from "./owner.ts";
import type { Job, JobStore } from "./types.ts";

type SweepServices = Pick<Services, "home" | "env" | "log" | "caches">;

/** Folder levels listed: an episode down to `renders/_trash/<shot>/<stamp>/`, the settings folder to its caches. */
const EPISODE_DEPTH = 5;
const HOME_DEPTH = 4;
/** What a show folder holds beside its episodes, and how deep each is listed. */
const SHOW_PARTS: readonly [name: string, depth: number][] = [
  ["refs", 4],
  ["audio", 1],
  ["_titles", 1],
  ["targets", 2],
];
/** With a job database shared by hosts, a leftover of a pid not alive here is removed only after this quiet. */
const SHARED_QUIET_MS = 15 * 60_000;

/** The rules of this process: its pid and start, the job store for job-owned folders. */
export function leftoverRules(
  services: Pick<Services, "home" | "env" | "caches">,
  store: JobStore,
): LeftoverRules {
  const self = thisProcess();
  const shared = !/^file:/i.test(jobDatabaseUrl(services));
  return {
    pidAlive,
    async jobActive(id) {
      try {
        const job = await store.get(id);
        return job !== null && (job.status === "queued" || job.status === "running");
      } catch {
        // The store cannot say: the folder may still be in use.
        return true;
      }
    },
    self: { pid: self.pid, started: self.started ?? 0 },
    quietMs: shared ? SHARED_QUIET_MS : 0,
    now: Date.now,
  };
}

/**
 * The start-up sweep: the settings folder, then every episode of a job in the store or found under the roots
 * (inside the roots only), then the shared parts of their show folders. Answers the paths removed.
 */
export async function sweepAtStart(
  services: Pick<Services, "home" | "env" | "caches">,
  store: JobStore,
  signal?: AbortSignal,
): Promise<string[]> {
  const roots = await realRoots(services);
  const named = new Set<string>();
  for (const job of (await store.list()).jobs) if (typeof job.info.ep === "string") named.add(job.info.ep);
  for (const found of await findEpisodes(roots)) named.add(found.ep);
  const eps = await insideOf(roots, [...named]);
  const shows = [...new Set(eps.map((ep) => path.dirname(ep)))].filter((show) => insideRoots(roots, show));
  const targets: SweepTarget[] = [
    { dir: services.home, depth: HOME_DEPTH },
    ...eps.map((ep) => ({ dir: ep, depth: EPISODE_DEPTH })),
    ...shows.flatMap((show) => [
      { dir: show, depth: 1 },
      ...SHOW_PARTS.map(([name, depth]) => ({ dir: path.join(show, name), depth })),
    ]),
  ];
  return sweepLeftovers(targets, leftoverRules(services, store), signal);
}

/** Run the start-up sweep in the background and log what it removed; it never stops the process. */
export function startLeftoverSweep(services: SweepServices, store: JobStore): Promise<void> {
  return sweepAtStart(services, store).then(
    (removed) => {
      // The first few by name is enough to find the rest.
      if (removed.length)
        services.log.info(`removed ${removed.length} crash leftover(s)`, { removed: removed.slice(0, 20) });
    },
    (err: unknown) =>
      services.log.warn(`leftover sweep failed: ${err instanceof Error ? err.message : String(err)}`),
  );
}

/**
 * After jobs ended or were given back: their take's folder, pass folder and keyframe folder lose the job's work
 * folder (once it is neither queued nor running) and temporaries of processes that are gone.
 */
export async function sweepAfterJobs(
  services: Pick<Services, "home" | "env" | "caches">,
  store: JobStore,
  jobs: readonly Job[],
): Promise<string[]> {
  const targets: SweepTarget[] = [];
  for (const job of jobs) targets.push(...jobFolders(job));
  if (targets.length === 0) return [];
  const roots = await realRoots(services);
  const inside = await insideOf(
    roots,
    targets.map((t) => t.dir),
  );
  const keep = new Set(inside);
  return sweepLeftovers(
    targets.filter((t) => keep.has(t.dir)),
    leftoverRules(services, store),
  );
}

/** The folders a job of any kind writes temporaries into, from what its info names. */
export function jobFolders(job: Pick<Job, "info">): SweepTarget[] {
  const { ep, pass, shot } = job.info;
  if (typeof ep !== "string" || !path.isAbsolute(ep)) return [];
  const out: SweepTarget[] = [];
  if (pass === "final" || pass === "proxy") {
    out.push({ dir: path.join(ep, passFolder(pass)), depth: 1 });
    if (typeof shot === "string" && shot) out.push({ dir: shotFolder(ep, pass, shot), depth: 1 });
  }
  if (typeof shot === "string" && shot)
    out.push({ dir: path.join(ep, "refs", "shots", safeShot(shot)), depth: 1 });
  return out;
}

/** The folders that exist and lie inside the roots once links are resolved (as given, not resolved). */
async function insideOf(roots: readonly string[], dirs: readonly string[]): Promise<string[]> {
  const real = await mapLimit(dirs, 16, (d) => realpath(d).catch(() => null));
  return dirs.filter((_, i) => {
    const r = real[i];
    return r !== null && insideRoots(roots, r);
  });
}
