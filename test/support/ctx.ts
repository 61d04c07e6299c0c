// Test helpers: a temp settings folder, services built as a process builds them (a job store in the temp folder,
// engines, job kinds), a Ctx for calling handlers directly, and events captured in a list.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Ctx } from "../../functions/fn.ts";
import type { Services } from "../../lib/context.ts";
import { silentLogger } from "../../lib/context.ts";
import { createComfyLookups } from "../../lib/engines/comfyui/readiness.ts";
import type { Engines } from "../../lib/engines/registry.ts";
import type { Engine } from "../../lib/engines/types.ts";
import { createCompilePool } from "../../lib/episode/compile-pool.ts";
import type { JobKinds } from "../../lib/jobs/kinds.ts";
import type { JobStore } from "../../lib/jobs/types.ts";
import { createMediaTools } from "../../lib/media/tools.ts";
import { type BuiltServices, type OwnedServices, withServices } from "../../runtime/services.ts";

/** ffmpeg and ffprobe as the test process finds them (for probing what a test made). */
export const hostMedia = createMediaTools(() => process.env);

// One compile thread for every test of a file, as a process has one: starting a thread per test would be slow.
const compile = createCompilePool();

export interface TestEnv {
  dir: string;
  home: string;
  events: { type: string; data: unknown }[];
  services: OwnedServices;
  ctx(init?: { url?: string; method?: string; remoteAddress?: string }): Ctx;
  cleanup(): Promise<void>;
}

/** What a test puts in place of the real services: an in-memory job store, a scripted engine, its own kinds. */
export interface TestParts {
  jobStore?: JobStore;
  engine?: (backend: string) => Engine;
  jobKinds?: JobKinds;
}

/** Engines that answer every backend with what `engine` gives (a scripted engine); real ComfyUI look-ups. */
export function scriptedEngines(engine: (backend: string) => Engine): Engines {
  const lookups = createComfyLookups();
  return {
    get: engine,
    comfyAt() {
      throw new Error("scripted engines have no ComfyUI address");
    },
    lookups,
    close: () => lookups.close(),
  };
}

/** Services for a test of the basic ones given, with the rest built as a process builds them. */
export function testServices(base: Omit<Services, BuiltServices>, parts: TestParts = {}): OwnedServices {
  const store = parts.jobStore;
  return withServices(base, {
    jobs: store ? async () => store : undefined,
    engines: parts.engine ? scriptedEngines(parts.engine) : undefined,
    jobKinds: parts.jobKinds,
    compile,
  });
}

/** A worker's services that log nothing and emit nowhere, for a pool tested without a server; `env` its settings. */
export function quietWorkerServices(home: string, env: Record<string, string> = {}): OwnedServices {
  return testServices({
    home,
    env,
    roles: ["worker"],
    version: "test",
    log: silentLogger,
    events: { emit() {} },
    now: () => new Date(),
  });
}

export async function makeTestEnv(
  env: Record<string, string | undefined> = {},
  parts: TestParts = {},
): Promise<TestEnv> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "studio-test-"));
  const home = path.join(dir, "home");
  const events: { type: string; data: unknown }[] = [];
  const services = testServices(
    {
      home,
      env: { STUDIO_HOME: home, ...env },
      roles: ["api"],
      version: "test",
      log: silentLogger,
      events: { emit: (type, data) => events.push({ type, data }) },
      now: () => new Date(),
    },
    parts,
  );
  return {
    dir,
    home,
    events,
    services,
    ctx(init = {}) {
      return {
        ...services,
        request: new Request(init.url ?? "http://127.0.0.1/studio/test", { method: init.method ?? "GET" }),
        remoteAddress: init.remoteAddress ?? "127.0.0.1",
        signal: new AbortController().signal,
      };
    },
    async cleanup() {
      await services.close().catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
