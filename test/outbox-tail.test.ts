// The outbox tail between processes: with a store that pushes notices (PostgreSQL) it reads on each notice, not on a
// timer; with one that cannot (libsql) it polls; either way it broadcasts other origins' events only, once each.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../lib/context.ts";
import { createJobStore } from "../lib/jobs/store.ts";
import type { JobStore } from "../lib/jobs/types.ts";
import { OutboxTail, OutboxWriter } from "../workers/outbox.ts";
import { MemoryJobStore } from "./support/memory-jobs.ts";
import { startPostgres, type TestPostgres } from "./support/postgres.ts";

let server: TestPostgres;
let dir: string;
let files = 0;
const stores: JobStore[] = [];
const tails: OutboxTail[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "outbox-tail-"));
  server = await startPostgres();
}, 120_000);
afterEach(async () => {
  for (const t of tails.splice(0)) await t.stop();
  for (const s of stores.splice(0)) await s.close().catch(() => {});
});
afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function until(what: string, check: () => boolean, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An API process's store with a tail on it, and a worker process's store writing through its outbox writer. */
async function pair(url: string, tailOpts: { intervalMs?: number; safetyIntervalMs?: number }) {
  const api = await createJobStore(url);
  const worker = await createJobStore(url);
  stores.push(api, worker);
  const heard: { kind: string; data: unknown }[] = [];
  const sink = { emit: (kind: string, data: unknown) => heard.push({ kind, data }) };
  // Written before the tail starts: for sockets that are gone, never sent.
  await worker.emit("studio.job", { origin: "worker", data: { n: "old" } });
  const tail = new OutboxTail({ store: api, origin: "api", sink, log: silentLogger, ...tailOpts });
  tails.push(tail);
  await tail.start();
  const writer = new OutboxWriter(worker, "worker", silentLogger);
  const own = new OutboxWriter(api, "api", silentLogger);
  return { api, worker, heard, writer, own };
}

describe("OutboxTail", () => {
  it("on PostgreSQL reads on each notice, with no timer that could have done it", async () => {
    const { heard, writer, own } = await pair(await server.database(), {
      intervalMs: 600_000,
      safetyIntervalMs: 600_000,
    });
    own.emit("studio.job", { n: "mine" });
    await own.flush();
    writer.emit("studio.job", { n: 1 });
    writer.emit("studio.take", { n: 2 });
    await writer.flush();
    await until("both events", () => heard.length >= 2);
    writer.emit("studio.job", { n: 3 });
    await writer.flush();
    await until("the third event", () => heard.length >= 3);
    expect(heard).toEqual([
      { kind: "studio.job", data: { n: 1 } },
      { kind: "studio.take", data: { n: 2 } },
      { kind: "studio.job", data: { n: 3 } },
    ]);
  });

  it("on libsql, which cannot push, polls", async () => {
    const url = pathToFileURL(path.join(dir, `tail-${++files}.db`)).href;
    const { api, heard, writer } = await pair(url, { intervalMs: 20 });
    expect(api.listen).toBeUndefined();
    writer.emit("studio.job", { n: 1 });
    await writer.flush();
    await until("the event", () => heard.length >= 1);
    expect(heard).toEqual([{ kind: "studio.job", data: { n: 1 } }]);
  });

  it("stops listening when stopped", async () => {
    const { heard, writer } = await pair(await server.database(), {
      intervalMs: 600_000,
      safetyIntervalMs: 600_000,
    });
    await tails[0].stop();
    writer.emit("studio.job", { n: 1 });
    await writer.flush();
    // A fresh tail on the same store hears notices, so the first one would have too had it still listened.
    const later: unknown[] = [];
    const again = new OutboxTail({
      store: stores[0],
      origin: "api",
      sink: { emit: (_k, data) => later.push(data) },
      log: silentLogger,
      safetyIntervalMs: 600_000,
    });
    tails.push(again);
    await again.start();
    writer.emit("studio.job", { n: 2 });
    await writer.flush();
    await until("the fresh tail's event", () => later.length >= 1);
    expect(later).toEqual([{ n: 2 }]);
    expect(heard).toEqual([]);
  });

  it("a notice during the skip at start reads after the skip, never the rows skipped", async () => {
    const store = new MemoryJobStore();
    await store.emit("studio.job", { origin: "w", data: { n: "old" } });
    let notice: (() => void) | null = null;
    let skipping = true;
    const pushing = Object.assign(Object.create(store) as MemoryJobStore, {
      listen: (_channel: string, fn: () => void) => {
        notice = fn;
        return () => {
          notice = null;
        };
      },
      eventsSince: async (id: number, limit?: number) => {
        // A notice arrives while the tail is still skipping what was there before it started.
        if (skipping) notice?.();
        return store.eventsSince(id, limit);
      },
    });
    const heard: unknown[] = [];
    const tail = new OutboxTail({
      store: pushing,
      origin: "api",
      sink: { emit: (_k, data) => heard.push(data) },
      log: silentLogger,
      intervalMs: 600_000,
      safetyIntervalMs: 600_000,
    });
    tails.push(tail);
    await tail.start();
    skipping = false;
    await store.emit("studio.job", { origin: "w", data: { n: 1 } });
    (notice as (() => void) | null)?.();
    await until("the new event", () => heard.length >= 1);
    expect(heard).toEqual([{ n: 1 }]);
  });
});
