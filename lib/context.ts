// The services of the process, built once at start and handed to handlers and jobs (a handler's request rides
// on top of them in the function contract's Ctx).
import type { Engines } from "./engines/registry.ts";
import type { CompilePool } from "./episode/compile-pool.ts";
import type { EpisodeReader } from "./episode/episode-texts.ts";
import type { JobKinds } from "./jobs/kinds.ts";
import type { JobStore } from "./jobs/types.ts";
import type { JobSignals } from "./jobs/wake.ts";
import type { MediaTools } from "./media/tools.ts";
import type { Caches } from "./store/caches.ts";
import type { Locks } from "./store/lock.ts";
import type { TargetRegistryView } from "./targets/registry.ts";

export interface Logger {
  /** Detail for tracing a problem: shown only with STUDIO_LOG=debug. */
  debug(message: string, extra?: Record<string, unknown>): void;
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
}

export interface EventSink {
  /** Broadcast `{"type": kind, "data": data}` to every page socket. */
  emit(kind: string, data: unknown): void;
}

export interface ServerControl {
  host: string;
  port: number;
  /** Close sockets, write what must be written, exit 0 (or 3 to ask for a restart). */
  stop(restart: boolean): void;
}

export interface Services {
  /** The settings folder (`STUDIO_HOME`, else the per-user default). */
  home: string;
  /** Environment as the process saw it at start (tests pass their own). */
  env: Record<string, string | undefined>;
  roles: string[];
  version: string;
  log: Logger;
  events: EventSink;
  now(): Date;
  server?: ServerControl;
  /** The job store, opened on first call (opening runs the migrations) and the same store after. */
  jobs(): Promise<JobStore>;
  /** In-process wake-ups between the routes and a worker pool of this process. */
  jobSignals: JobSignals;
  /** Every job kind this process knows: its payload's schema, how it runs, how it is retried (loaded on first call). */
  jobKinds(): Promise<JobKinds>;
  /** The engine of each backend, made once (per backend and address) for the life of the process. */
  engines: Engines;
  /** The compile thread (build, check, preview), started on first use. */
  compile: CompilePool;
  /** The shipped targets, checked once for the life of the services. */
  targets: TargetRegistryView;
  /** Reads an episode's compile inputs from its folder; absent where there are no show folders (per-function). */
  readEpisode?: EpisodeReader;
  /** The process's caches (parsed files, listings, answers): one set for the life of the services. */
  caches: Caches;
  /** Per-episode write serialization, shared by every writer of the process. */
  locks: Locks;
  /** ffmpeg and ffprobe as found from `env` (looked up once). */
  media: MediaTools;
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
