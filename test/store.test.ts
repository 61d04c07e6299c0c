// Atomic writes and the per-episode lock.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFileAtomic, writeJsonAtomic } from "../lib/store/atomic.ts";
import { createLocks, withLock } from "../lib/store/lock.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

let env: TestEnv;
beforeAll(async () => {
  env = await makeTestEnv();
});
afterAll(() => env.cleanup());

describe("atomic writes", () => {
  it("replaces the file and leaves no temporary behind", async () => {
    const file = path.join(env.dir, "a", "b.json");
    await writeJsonAtomic(file, { x: 1 });
    await writeFileAtomic(file, "second");
    expect(await readFile(file, "utf8")).toBe("second");
    expect(await readdir(path.dirname(file))).toEqual(["b.json"]);
  });

  it("writes JSON with a 2-space indent and a final newline", async () => {
    const file = path.join(env.dir, "c.json");
    await writeJsonAtomic(file, { a: [1] });
    expect(await readFile(file, "utf8")).toBe('{\n  "a": [\n    1\n  ]\n}\n');
  });
});

describe("withLock", () => {
  const locks = { locks: createLocks() };
  it("serializes work on one key and lets other keys run", async () => {
    const order: string[] = [];
    const slow = (tag: string, ms: number) => async () => {
      order.push(`${tag}+`);
      await new Promise((r) => setTimeout(r, ms));
      order.push(`${tag}-`);
      return tag;
    };
    const results = await Promise.all([
      withLock(locks, "ep1", slow("a", 30)),
      withLock(locks, "ep1", slow("b", 1)),
      withLock(locks, "ep2", slow("c", 1)),
    ]);
    expect(results).toEqual(["a", "b", "c"]);
    expect(order.indexOf("b+")).toBeGreaterThan(order.indexOf("a-"));
    expect(order.indexOf("c+")).toBeLessThan(order.indexOf("a-"));
  });

  it("keeps going after a failed holder", async () => {
    await expect(withLock(locks, "ep3", async () => Promise.reject(new Error("boom")))).rejects.toThrow(
      "boom",
    );
    expect(await withLock(locks, "ep3", async () => "next")).toBe("next");
  });
});
