// The master lock on real files: exclusive, a live holder refused with who and since when, stale locks taken
// over (a dead pid on this host, a day-old lock of another host), and only one's own lock released.
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StudioError } from "../lib/errors.ts";
import { lockLive, lockPath, readLock, takeLock } from "../lib/master/lock.ts";

let dir: string;
let ep: string;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "master-lock-")));
  ep = path.join(dir, "ep01");
  await mkdir(ep);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const now = new Date("2025-01-02T14:05:00Z");
const noExtra = async () => ({ job: null });

describe("the master lock", () => {
  it("is exclusive: a second take while held is 409 with who holds it and the extra fields", async () => {
    const held = await takeLock(ep, "the editor", now, noExtra);
    expect(JSON.parse(await readFile(lockPath(ep), "utf8"))).toEqual({
      pid: process.pid,
      host: os.hostname(),
      by: "the editor",
      started: now.toISOString(),
    });
    const err = await takeLock(ep, "another", now, async (h) => ({ job: { by: h.by } })).catch((e) => e);
    expect(err).toBeInstanceOf(StudioError);
    expect(err.status).toBe(409);
    expect(err.message).toMatch(
      /^a master of this episode is already being assembled by the editor \(since \d\d:\d\d\); wait for it to finish$/,
    );
    expect(err.body().job).toEqual({ by: "the editor" });
    await held.release();
    expect(await readLock(ep)).toBeNull();
  });

  it("takes over a lock whose process on this host is gone", async () => {
    const dead = {
      pid: 2 ** 22 + 12345,
      host: os.hostname(),
      by: "a crashed run",
      started: now.toISOString(),
    };
    await writeFile(lockPath(ep), JSON.stringify(dead));
    expect(lockLive(dead, now)).toBe(false);
    const held = await takeLock(ep, "the editor", now, noExtra);
    expect(held.tookOver).toEqual(dead);
    expect((await readLock(ep))?.pid).toBe(process.pid);
    await held.release();
  });

  it("another host's lock stands for a day, then is taken over", async () => {
    const foreign = { pid: 1, host: "elsewhere.example", by: "the editor", started: now.toISOString() };
    await writeFile(lockPath(ep), JSON.stringify(foreign));
    const later = new Date(now.getTime() + 3600_000);
    await expect(takeLock(ep, "me", later, noExtra)).rejects.toMatchObject({ status: 409 });
    const nextDay = new Date(now.getTime() + 25 * 3600_000);
    const held = await takeLock(ep, "me", nextDay, noExtra);
    expect(held.tookOver?.host).toBe("elsewhere.example");
    await held.release();
  });

  it("a half-written lock is stale; release leaves a lock another process took", async () => {
    await writeFile(lockPath(ep), "{not json");
    const held = await takeLock(ep, "me", now, noExtra);
    const theirs = { pid: 1, host: "other", by: "x", started: now.toISOString() };
    await writeFile(lockPath(ep), JSON.stringify(theirs));
    await held.release();
    expect(await readLock(ep)).toEqual(theirs);
    await rm(lockPath(ep));
  });
});
