// Test helpers: a temp settings folder, a Ctx for calling handlers directly, and events captured in a list.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Ctx, Services } from "../../lib/context.ts";
import { silentLogger } from "../../lib/context.ts";

export interface TestEnv {
  dir: string;
  home: string;
  events: { type: string; data: unknown }[];
  services: Services;
  ctx(init?: { url?: string; method?: string; remoteAddress?: string }): Ctx;
  cleanup(): Promise<void>;
}

export async function makeTestEnv(env: Record<string, string | undefined> = {}): Promise<TestEnv> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "studio-test-"));
  const home = path.join(dir, "home");
  const events: { type: string; data: unknown }[] = [];
  const services: Services = {
    home,
    env: { STUDIO_HOME: home, ...env },
    roles: ["api"],
    version: "test",
    log: silentLogger,
    events: { emit: (type, data) => events.push({ type, data }) },
    now: () => new Date(),
  };
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
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
