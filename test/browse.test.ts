// GET /studio/browse: starting points, folder listing, episode marks, file filters, refusals and the cap.
import { chmod, mkdir, realpath, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import browse from "../functions/browse/get.ts";
import { callFunction, refused } from "./support/call.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

// Running as root reads every folder, so an unreadable one is also simulated.
vi.mock("node:fs/promises", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs/promises")>();
  const readdir = (async (dir: unknown, ...rest: unknown[]) => {
    if (String(dir).endsWith("denied-by-test")) {
      throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
    }
    return (fs.readdir as (...a: unknown[]) => unknown)(dir, ...rest);
  }) as typeof fs.readdir;
  return { ...fs, default: { ...fs, readdir }, readdir };
});

async function put(file: string, text = "x"): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

interface Listing {
  path: string;
  parent: string | null;
  episode: boolean;
  truncated: boolean;
  dirs: { name: string; path: string; episode: boolean; series_config: boolean }[];
  files?: { name: string; path: string; size: number }[];
}

let env: TestEnv;
let base: string;
let show: string;
let homeDir: string;

const ask = (query: Record<string, string>) => callFunction(browse, query, env.services);
const call = async (query: Record<string, string>): Promise<Listing> => (await ask(query)).body;

beforeAll(async () => {
  env = await makeTestEnv();
  base = await realpath(env.dir);
  homeDir = path.join(base, "user");
  await mkdir(homeDir);
  env.services.env.HOME = homeDir;
  show = path.join(base, "show");
  await put(path.join(show, "series.json"), "{}");
  await put(path.join(show, "ep01", "ep01.md"), "= ep01  One\n");
  await put(path.join(show, "ep02", "script.md")); // parent config but not named after the folder
  await put(path.join(show, "Ep03", "series.json"), "{}");
  await put(path.join(show, "Ep03", "draft.md"));
  await put(path.join(show, "beta", "series.json"), "{}"); // config but no script
  await mkdir(path.join(show, ".hidden"));
  await mkdir(path.join(show, "alpha"));
  await put(path.join(show, "a.png"), "12345");
  await put(path.join(show, "B.JPG"), "1");
  await put(path.join(show, "c.wav"), "123");
  await put(path.join(show, "d.mp4"), "1234");
  await put(path.join(show, "notes.txt"));
  await put(path.join(show, ".hidden.png"));
  await symlink(path.join(show, "alpha"), path.join(show, "linked"));
  await symlink(path.join(show, "missing"), path.join(show, "broken"));
});

afterAll(() => env.cleanup());

describe("GET /studio/browse", () => {
  it("lists starting points without a path", async () => {
    env.services.env.STUDIO_ROOTS = show;
    const got = await call({});
    expect(got.parent).toBeNull();
    expect(got.truncated).toBe(false);
    expect(got.files).toBeUndefined();
    const paths = got.dirs.map((d) => d.path);
    expect(paths[0]).toBe(homeDir);
    expect(paths).toContain(show);
    if (process.platform !== "win32") expect(paths).toContain("/");
    expect(got.dirs[0]).toEqual({ name: "Home", path: homeDir, episode: false, series_config: false });
    expect((await call({ files: "image" })).files).toEqual([]);
    delete env.services.env.STUDIO_ROOTS;
  });

  it("lists folders sorted case-insensitively, without hidden ones, with episode marks", async () => {
    const got = await call({ path: show });
    expect(got.path).toBe(show);
    expect(got.parent).toBe(base);
    expect(got.episode).toBe(false);
    expect(got.truncated).toBe(false);
    expect(got.files).toBeUndefined();
    expect(got.dirs.map((d) => d.name)).toEqual(["alpha", "beta", "ep01", "ep02", "Ep03", "linked"]);
    const byName = Object.fromEntries(got.dirs.map((d) => [d.name, d]));
    expect(byName.ep01).toEqual({
      name: "ep01",
      path: path.join(show, "ep01"),
      episode: true,
      series_config: false,
    });
    expect(byName.ep02.episode).toBe(false);
    expect(byName.Ep03).toMatchObject({ episode: true, series_config: true });
    expect(byName.beta).toMatchObject({ episode: false, series_config: true });
  });

  it("marks the listed folder itself as an episode", async () => {
    const got = await call({ path: path.join(show, "ep01") });
    expect(got.episode).toBe(true);
    expect(got.parent).toBe(show);
    expect(got.dirs).toEqual([]);
  });

  it("adds files of the asked type with their sizes", async () => {
    expect((await call({ path: show, files: "image" })).files).toEqual([
      { name: "a.png", path: path.join(show, "a.png"), size: 5 },
      { name: "B.JPG", path: path.join(show, "B.JPG"), size: 1 },
    ]);
    expect((await call({ path: show, files: "audio" })).files?.map((f) => f.name)).toEqual(["c.wav"]);
    expect((await call({ path: show, files: "video" })).files).toEqual([
      { name: "d.mp4", path: path.join(show, "d.mp4"), size: 4 },
    ]);
  });

  it("refuses an unknown file type with 400", async () => {
    expect(refused(await ask({ path: show, files: "pdf" }), 400)).toMatch(/^files: "pdf"/);
  });

  it("gives an empty parent at the filesystem root", async () => {
    if (process.platform === "win32") return;
    const got = await call({ path: "/" });
    expect(got.parent).toBe("");
    expect(got.path).toBe("/");
  });

  it("refuses relative paths and NUL bytes with 400", async () => {
    expect(refused(await ask({ path: "show/ep01" }), 400)).toMatch(/absolute/);
    refused(await ask({ path: `${show}\0` }), 400);
  });

  it("answers 404 for a missing folder or a file", async () => {
    expect(refused(await ask({ path: path.join(show, "nope") }), 404)).toContain(path.join(show, "nope"));
    refused(await ask({ path: path.join(show, "a.png") }), 404);
  });

  it("answers 403 for a folder it cannot read", async () => {
    if (process.platform === "win32" || process.getuid?.() === 0) return;
    const locked = path.join(base, "locked");
    await mkdir(locked);
    await chmod(locked, 0o000);
    try {
      refused(await ask({ path: locked }), 403);
    } finally {
      await chmod(locked, 0o755);
    }
  });

  it("answers 403 when listing is refused", async () => {
    const denied = path.join(base, "denied-by-test");
    await mkdir(denied);
    expect(refused(await ask({ path: denied }), 403)).toMatch(/cannot be read/);
  });

  it("caps the listing at 1000 entries and says it is truncated", async () => {
    const big = path.join(base, "big");
    await mkdir(big);
    await Promise.all(
      Array.from({ length: 1003 }, (_, i) => mkdir(path.join(big, `d${String(i).padStart(4, "0")}`))),
    );
    const got = await call({ path: big });
    expect(got.truncated).toBe(true);
    expect(got.dirs).toHaveLength(1000);
    expect(got.dirs[0].name).toBe("d0000");
  });

  it("validates its query as strings", () => {
    expect(browse.input!.safeParse({ path: 3 }).success).toBe(false);
    expect(browse.input!.safeParse({}).success).toBe(true);
  });
});
