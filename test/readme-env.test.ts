// The README's environment table lists exactly the variables the code reads: a new one read without a row, or a
// row for one no longer read, fails here.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SOURCES = ["lib", "functions", "workers", "runtime", "scripts", "cli"];
// Read by the operating system's conventions rather than by this service's configuration.
const SYSTEM = new Set(["PATH"]);

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await files(p)));
    else if (/\.(ts|js)$/.test(e.name) || e.name === "target.json") out.push(p);
  }
  return out;
}

/**
 * Every variable name the code reads: `env.NAME`, `env["NAME"]`, a quoted STUDIO_/COMFY name or other settings
 * variable, a target's `env`.
 */
async function readByCode(): Promise<Set<string>> {
  const names = new Set<string>();
  const patterns = [
    /\benv\.([A-Z][A-Z0-9_]+)\b/g,
    /\benv\[\s*"([A-Z][A-Z0-9_]+)"\s*\]/g,
    /"((?:STUDIO|COMFY)[A-Z0-9_]*|FFMPEG_PATH|FFPROBE_PATH|ESPEAK_NG_PATH|H3_[A-Z0-9_]*WORKFLOW|HF_TOKEN|HUGGING_FACE_HUB_TOKEN)"/g,
  ];
  for (const dir of SOURCES) {
    for (const file of await files(dir)) {
      const text = await readFile(file, "utf8");
      if (file.endsWith("target.json")) {
        const env = (JSON.parse(text) as { binding?: { env?: unknown } }).binding?.env;
        if (typeof env === "string") names.add(env);
        continue;
      }
      for (const re of patterns) for (const m of text.matchAll(re)) names.add(m[1]);
    }
  }
  for (const s of SYSTEM) names.delete(s);
  return names;
}

/** The backticked upper-case names in the first column of the README's environment table. */
async function listed(): Promise<Set<string>> {
  const readme = await readFile("README.md", "utf8");
  const start = readme.indexOf("## Environment variables");
  expect(start, "README has an Environment variables section").toBeGreaterThan(-1);
  const section = readme.slice(start, readme.indexOf("\n## ", start + 1));
  const names = new Set<string>();
  for (const line of section.split("\n")) {
    if (!line.startsWith("| `")) continue;
    const first = line.split("|")[1];
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(m[1]);
  }
  return names;
}

describe("README environment table", () => {
  it("lists every variable the code reads, and none it does not", async () => {
    const [read, table] = await Promise.all([readByCode(), listed()]);
    expect(read.size).toBeGreaterThan(20);
    expect(
      [...read].filter((n) => !table.has(n)).sort(),
      "read by the code, missing from the README",
    ).toEqual([]);
    expect([...table].filter((n) => !read.has(n)).sort(), "in the README, read by nothing").toEqual([]);
  });
});
