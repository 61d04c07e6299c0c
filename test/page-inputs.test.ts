// The page's build knows the service modules it bundles from outside web/, so a change to one of them alone makes
// a server build the page again rather than serve the older build.
import { mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

import * as builder from "../scripts/build-web.js";

const repo = path.join(import.meta.dirname, "..");

describe("the page's sources", () => {
  it("name the service's own modules the page bundles", async () => {
    const { inputs } = await builder.bundleWeb({ minify: false });
    expect(inputs).toContain("lib/align/script-windows.ts");
    expect(inputs.some((i) => i.startsWith("web/") || i.includes("node_modules"))).toBe(false);
  }, 60_000);

  it("count a named module's time, and a named module that is gone as changed now", async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), "page-inputs-"));
    try {
      // A bundled module, named as the build names it: relative to the repository.
      const abs = path.join(empty, "module.ts");
      await writeFile(abs, "export {};\n");
      const when = new Date("2031-01-02T03:04:05Z");
      await utimes(abs, when, when);
      const file = path.relative(repo, abs);
      expect(await builder.newestSource(empty, [file])).toBeCloseTo(when.getTime(), -1);
      const before = Date.now();
      expect(await builder.newestSource(empty, ["lib/no-such-module.ts"])).toBeGreaterThanOrEqual(before);
      await rm(abs);
      expect(await builder.newestSource(empty)).toBe(0);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
