// The thread pool: work runs off the main thread, errors come back as rejections, a dead thread is replaced.
import { threadId } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import { ThreadPool } from "../lib/threads/pool.ts";

const pool = new ThreadPool(new URL("./support/echo-task.ts", import.meta.url), 2);
afterAll(() => pool.close());

describe("ThreadPool", () => {
  it("runs a task on another thread and structured-clones the answer (bigint too)", async () => {
    const out = await pool.run<{ arg: unknown; threadId: number }>("echo", { seed: 6290346879385008131n });
    expect(out.arg).toEqual({ seed: 6290346879385008131n });
    expect(out.threadId).not.toBe(threadId);
  });

  it("keeps the event loop free while a task spins", async () => {
    const started = Date.now();
    const work = pool.run<number>("spin", 300);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    await work;
    clearInterval(timer);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    // The main thread kept ticking while the other thread was busy.
    expect(ticks).toBeGreaterThan(5);
  });

  it("rejects with the task's error and keeps working", async () => {
    await expect(pool.run("fail", "no such shot")).rejects.toMatchObject({
      name: "TypeError",
      message: "no such shot",
    });
    await expect(pool.run("nope", 1)).rejects.toThrow(/no task nope/);
    expect((await pool.run<{ arg: number }>("echo", 1)).arg).toBe(1);
  });

  it("fails the calls of a thread that died and starts a new one", async () => {
    await expect(pool.run("die", null)).rejects.toThrow(/exited with code 7/);
    expect((await pool.run<{ arg: number }>("echo", 2)).arg).toBe(2);
  });
});
