// Atomic writes reach the disk: the temporary file is synced before the rename and its folder after it.
import { open, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { writeFileAtomic } from "../lib/store/atomic.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

let env: TestEnv;

beforeAll(async () => {
  env = await makeTestEnv();
});

afterAll(() => env.cleanup());

// Node's FileHandle class is not exported; its prototype is reached through a handle.
async function fileHandlePrototype(): Promise<{ sync(): Promise<void> }> {
  const handle = await open(path.join(env.dir, "probe"), "w");
  const proto = Object.getPrototypeOf(handle);
  await handle.close();
  return proto;
}

describe("writeFileAtomic", () => {
  it("syncs the file before the rename and the folder after it", async () => {
    const proto = await fileHandlePrototype();
    const file = path.join(env.dir, "cut", "cut.json");
    const seen: string[] = [];
    const spy = vi.spyOn(proto, "sync").mockImplementation(async function (this: { fd: number }) {
      // Which one is synced: the folder holds the temporary name until the rename, the final name after it.
      seen.push((await readdir(path.dirname(file))).join(","));
    });
    try {
      await writeFileAtomic(file, "{}\n");
    } finally {
      spy.mockRestore();
    }
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatch(/^\.cut\.json\.\d+\.[0-9a-f]{8}\.tmp$/);
    expect(seen[1]).toBe("cut.json");
    expect(await readFile(file, "utf8")).toBe("{}\n");
  });

  it("skips both syncs for files that can be made again", async () => {
    const proto = await fileHandlePrototype();
    const spy = vi.spyOn(proto, "sync");
    try {
      await writeFileAtomic(path.join(env.dir, "thumb.jpg"), "x", { durable: false });
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});
