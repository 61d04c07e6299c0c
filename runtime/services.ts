// Builds the process-wide services once from the environment: settings folder, roles, version, log, events, and
// the job store, job signals, job kinds and engines every handler and job reaches through them.
import { readFile } from "node:fs/promises";
import { studioHome } from "../lib/config/home.ts";
import { checkMounted, mountedClientIdProblem } from "../lib/config/mounted.ts";
import type { EventSink, Logger, Services } from "../lib/context.ts";
import { createEngines, type Engines } from "../lib/engines/registry.ts";
import { type CompilePool, createCompilePool } from "../lib/episode/compile-pool.ts";
import { readEpisodeTexts } from "../lib/episode/episode-texts.ts";
import type { JobKinds } from "../lib/jobs/kinds.ts";
import type { JobStoreOpener } from "../lib/jobs/store.ts";
import type { JobStore, NewJob } from "../lib/jobs/types.ts";
import { createJobSignals } from "../lib/jobs/wake.ts";
import { createMediaTools } from "../lib/media/tools.ts";
import { createCaches } from "../lib/store/caches.ts";
import { createLocks } from "../lib/store/lock.ts";
import { shippedRegistry, type TargetRegistryView } from "../lib/targets/registry.ts";

export const DEFAULT_ROLES = ["api", "worker"];

export function parseRoles(text: string | undefined): string[] {
  const roles = (text ?? "")
    .split(",")
    .map((r) => r.trim().toLowerCase())
    .filter(Boolean);
  const bad = roles.filter((r) => r !== "api" && r !== "worker");
  if (bad.length) throw new Error(`STUDIO_ROLES: unknown role ${bad.join(", ")} (use api, worker)`);
  return roles.length ? [...new Set(roles)] : DEFAULT_ROLES;
}

let versionText: Promise<string> | undefined;
export function packageVersion(): Promise<string> {
  versionText ??= readFile(new URL("../package.json", import.meta.url), "utf8").then(
    (t) => (JSON.parse(t) as { version: string }).version,
  );
  return versionText;
}

/** The services a process owns: it closes them when it stops. */
export interface OwnedServices extends Services {
  /** Close what was opened: the job store, the engines' connections, the compile thread, the media tool process. */
  close(): Promise<void>;
}

/** What a test or a host may put in place of the built services (an in-memory store, scripted engines). */
export interface ServiceParts {
  jobs?: () => Promise<JobStore>;
  engines?: Engines;
  jobKinds?: JobKinds;
  /** Where the kinds of STUDIO_WORKER_EXTRA_HANDLERS are read from (a process that runs jobs); none by default. */
  extraKindsEnv?: Record<string, string | undefined>;
  compile?: CompilePool;
  /** The shipped targets; by default checked from the files bundled with the code. */
  targets?: TargetRegistryView;
}

/** The services built on the basic ones. */
export type BuiltServices =
  | "jobs"
  | "jobSignals"
  | "jobKinds"
  | "engines"
  | "compile"
  | "targets"
  | "caches"
  | "locks"
  | "media";

/**
 * The basic services plus the ones built on them: job store (opened on first use), job signals, job kinds,
 * engines, the compile thread (started on first use), the caches, the per-episode locks and the media tools.
 */
export function withServices(base: Omit<Services, BuiltServices>, parts: ServiceParts = {}): OwnedServices {
  const logged = new WeakMap<JobStore, JobStore>();
  // The store's database client and the job kinds' modules load on first use: a process serving one route that
  // needs neither starts without them.
  let opener: Promise<JobStoreOpener> | null = null;
  const openerOf = () => {
    // Reads the services when it opens (a test may move the clock first).
    opener ??= import("../lib/jobs/store.ts").then((m) => m.jobStoreOpener(services));
    return opener;
  };
  const open = parts.jobs ?? (async () => (await openerOf()).open());
  let kinds: Promise<JobKinds> | null = null;
  const services: OwnedServices = {
    ...base,
    // Every process logs the jobs it queues and the waiting ones it cancels; the pool logs the rest.
    jobs: async () => {
      const store = await open();
      let out = logged.get(store);
      if (!out) {
        out = loggedStore(store, services.log);
        logged.set(store, out);
      }
      return out;
    },
    jobSignals: createJobSignals(),
    jobKinds: () => {
      const given = parts.jobKinds;
      kinds ??= given
        ? Promise.resolve(given)
        : import("../workers/jobs/index.ts").then((m) => m.loadJobKinds(parts.extraKindsEnv ?? {}));
      kinds.catch(() => {
        kinds = null;
      });
      return kinds;
    },
    engines:
      parts.engines ??
      createEngines({
        get env() {
          return services.env;
        },
        get home() {
          return services.home;
        },
        get media() {
          return services.media;
        },
        get caches() {
          return services.caches;
        },
      }),
    compile: parts.compile ?? createCompilePool(),
    targets: parts.targets ?? shippedRegistry(),
    readEpisode: (ep) => readEpisodeTexts(services, ep),
    caches: createCaches(),
    locks: createLocks(),
    media: createMediaTools(() => services.env),
    async close() {
      if (opener) await (await opener).close();
      await services.engines.close();
      if (!parts.compile) await services.compile.close();
      await services.media.close();
    },
  };
  return services;
}

/** The store with a log line for each job queued and each waiting job canceled. */
function loggedStore(store: JobStore, log: Logger): JobStore {
  const add = store.add.bind(store);
  const cancel = store.cancel.bind(store);
  // Built on the store itself, so a class-based store (the tests' in-memory one) keeps its other methods.
  const logged: JobStore = Object.create(store);
  logged.add = async (job: NewJob) => {
    const added = await add(job);
    log.info(`job ${added.id} queued: ${added.kind} "${added.title}" on ${added.lane}`);
    return added;
  };
  logged.cancel = async (id: string) => {
    const job = await cancel(id);
    log.info(job.status === "canceled" ? `job ${id} canceled before it ran` : `job ${id}: cancel asked for`);
    return job;
  };
  return logged;
}

export async function createServices(opts: {
  env: Record<string, string | undefined>;
  log: Logger;
  events: EventSink;
  /** A compile thread the caller started already (it closes it); by default one starts on the first task. */
  compile?: CompilePool;
}): Promise<OwnedServices> {
  const roles = parseRoles(opts.env.STUDIO_ROLES);
  checkMounted(opts.env);
  const clientIdProblem = mountedClientIdProblem(opts.env);
  if (clientIdProblem !== null) opts.log.warn(clientIdProblem);
  const services = withServices(
    {
      home: studioHome(opts.env),
      env: opts.env,
      roles,
      version: await packageVersion(),
      log: opts.log,
      events: opts.events,
      now: () => new Date(),
    },
    // Extension kinds are loaded where jobs run; every process knows the shipped kinds (a retry may be asked anywhere).
    { extraKindsEnv: roles.includes("worker") ? opts.env : undefined, compile: opts.compile },
  );
  // A process that runs jobs loads its kinds at start, so a bad STUDIO_WORKER_EXTRA_HANDLERS stops it at once.
  if (roles.includes("worker")) await services.jobKinds();
  return services;
}
