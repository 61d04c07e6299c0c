// History copies: stamped names, -N within one second, newest 30 kept, never the new copy pruned.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HISTORY_KEEP, historyStamp, saveHistory } from "../lib/episode/history.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

let env: TestEnv;
beforeAll(async () => {
  env = await makeTestEnv();
});
afterAll(() => env.cleanup());

describe("saveHistory", () => {
  it("stamps local time and counts up within one second", async () => {
    const ep = path.join(env.dir, "a");
    const now = new Date(2026, 10, 22, 9, 5, 7);
    expect(historyStamp(now)).toBe("20261122-090507");
    expect(await saveHistory(ep, "ep01.md", Buffer.from("one"), now)).toBe(
      "_history/ep01.md.20261122-090507",
    );
    expect(await saveHistory(ep, "ep01.md", Buffer.from("two"), now)).toBe(
      "_history/ep01.md.20261122-090507-2",
    );
    expect(await readFile(path.join(ep, "_history", "ep01.md.20261122-090507-2"), "utf8")).toBe("two");
  });

  it("keeps the newest 30, and the copy just made survives even 40 saves in one second", async () => {
    const ep = path.join(env.dir, "b");
    const now = new Date(2026, 10, 22, 9, 5, 7);
    for (let i = 1; i <= 40; i++) await saveHistory(ep, "cut.json", Buffer.from(String(i)), now);
    const names = await readdir(path.join(ep, "_history"));
    expect(names).toHaveLength(HISTORY_KEEP);
    expect(names).toContain("cut.json.20261122-090507-40");
    expect(await readFile(path.join(ep, "_history", "cut.json.20261122-090507-40"), "utf8")).toBe("40");
    expect(names).not.toContain("cut.json.20261122-090507");
  });
});
