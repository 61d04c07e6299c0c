// Config resource: GET/PUT /studio/config, STUDIO_ROOTS fallback, file location; the settings folder; settings.
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import configGet from "../functions/config/get.ts";
import configPut from "../functions/config/put.ts";
import { type Config, configFile, DEFAULT_ENGINE, readConfig } from "../lib/config/config.ts";
import { studioHome } from "../lib/config/home.ts";
import { defaultVideoTarget, readSettings } from "../lib/config/settings.ts";
import { callFunction, refused } from "./support/call.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

let env: TestEnv;
let a: string;
let b: string;

beforeEach(async () => {
  env = await makeTestEnv();
  a = path.join(env.dir, "shows-a");
  b = path.join(env.dir, "shows-b");
  await mkdir(a);
  await mkdir(b);
});
afterEach(() => env.cleanup());

const askGet = () => callFunction(configGet, undefined, env.services);
const askPut = (body: Record<string, unknown>) => callFunction(configPut, body, env.services);
const get = async (): Promise<Config> => (await askGet()).body;
const put = async (body: Record<string, unknown>): Promise<Config> => (await askPut(body)).body;

describe("GET /studio/config", () => {
  it("has a method, path and no input", () => {
    expect(configGet.method).toBe("GET");
    expect(configGet.path).toBe("/config");
    expect(configGet.input).toBeUndefined();
  });

  it("answers empty roots with no file and no STUDIO_ROOTS", async () => {
    expect(await get()).toEqual({
      roots: [],
      engine: DEFAULT_ENGINE,
      review_copy: false,
      version: 1,
      mounted: null,
    });
  });

  it("takes roots from STUDIO_ROOTS split on the path separator when there is no file", async () => {
    env.services.env.STUDIO_ROOTS = [a, "", ` ${b} `, a].join(path.delimiter);
    expect(await get()).toMatchObject({ roots: [a, b], review_copy: false, version: 1 });
  });

  it("prefers the stored file over STUDIO_ROOTS", async () => {
    env.services.env.STUDIO_ROOTS = a;
    await put({ roots: [b] });
    expect((await get()).roots).toEqual([b]);
  });

  it("reports the engine address from the environment, else settings, else the default", async () => {
    await mkdir(path.join(env.home, "default", "studio"), { recursive: true });
    await writeFile(
      path.join(env.home, "default", "studio", "settings.json"),
      JSON.stringify({ local_url: "http://gpu:8188" }),
    );
    expect((await get()).engine).toBe("http://gpu:8188");
    env.services.env.STUDIO_ENGINE_URL = "http://other:9000";
    expect((await get()).engine).toBe("http://other:9000");
  });

  it("answers 500 for a config file that is not JSON", async () => {
    await mkdir(path.dirname(configFile(env.services)), { recursive: true });
    await writeFile(configFile(env.services), "{roots:");
    expect(refused(await askGet(), 500)).toContain("config.json");
  });

  it("sees a hand edit of the file", async () => {
    await put({ roots: [a] });
    expect((await get()).roots).toEqual([a]);
    await writeFile(
      configFile(env.services),
      JSON.stringify({ roots: [a, b], review_copy: true, version: 1 }),
    );
    expect(await readConfig(env.services)).toMatchObject({ roots: [a, b], review_copy: true });
  });
});

describe("PUT /studio/config", () => {
  it("stores roots in <home>/default/studio/config.json and answers the new config", async () => {
    const got = await put({ roots: [a, b] });
    expect(got).toEqual({
      roots: [a, b],
      engine: DEFAULT_ENGINE,
      review_copy: false,
      version: 1,
      mounted: null,
    });
    const file = path.join(env.home, "default", "studio", "config.json");
    expect(configFile(env.services)).toBe(file);
    const text = await readFile(file, "utf8");
    expect(JSON.parse(text)).toEqual({ roots: [a, b], review_copy: false, version: 1 });
    expect(text).toBe(`${JSON.stringify({ roots: [a, b], review_copy: false, version: 1 }, null, 2)}\n`);
    expect(await get()).toEqual(got);
  });

  it("stores roots absolute, normalised and without duplicates", async () => {
    const got = await put({ roots: [`${a}/`, path.join(b, "..", "shows-b"), a] });
    expect(got.roots).toEqual([a, b]);
  });

  it("refuses a missing root with 400 naming it, and writes nothing", async () => {
    const missing = path.join(env.dir, "nope");
    const msg = refused(await askPut({ roots: [a, missing] }), 400);
    expect(msg).toContain(missing);
    expect(msg).toMatch(/^roots\[1\]: .* does not exist/);
    await expect(readFile(configFile(env.services), "utf8")).rejects.toThrow();
  });

  it("refuses roots that would open more than a show folder: /, the settings folder, home and above", async () => {
    const msgRoot = refused(await askPut({ roots: ["/"] }), 400);
    expect(msgRoot).toMatch(/^roots\[0\]: "\/" is the top of a drive/);
    // env.dir holds the settings folder (env.home); a link to it is judged by where it leads.
    expect(refused(await askPut({ roots: [env.dir] }), 400)).toMatch(/holds the service's settings folder/);
    await mkdir(env.home, { recursive: true });
    expect(refused(await askPut({ roots: [env.home] }), 400)).toMatch(/settings folder/);
    const link = path.join(a, "to-top");
    await symlink("/", link);
    expect(refused(await askPut({ roots: [link] }), 400)).toMatch(/a link to "\/".*top of a drive/);
    const user = path.join(b, "user");
    await mkdir(path.join(user, "work"), { recursive: true });
    const withHome = await makeTestEnv({ HOME: user });
    try {
      const putAs = (body: Record<string, unknown>) => callFunction(configPut, body, withHome.services);
      expect(refused(await putAs({ roots: [user] }), 400)).toMatch(/holds your home folder/);
      expect(refused(await putAs({ roots: [b] }), 400)).toMatch(/holds your home folder/);
      expect((await putAs({ roots: [path.join(user, "work")] })).body as Config).toMatchObject({
        roots: [path.join(user, "work")],
      });
    } finally {
      await withHome.cleanup();
    }
    // Nothing was stored by the refusals.
    expect((await get()).roots).toEqual([]);
  });

  it("refuses a file, a relative path and a NUL byte as roots", async () => {
    const file = path.join(env.dir, "f.txt");
    await writeFile(file, "x");
    expect(refused(await askPut({ roots: [file] }), 400)).toMatch(/is not a folder/);
    expect(refused(await askPut({ roots: ["shows-a"] }), 400)).toMatch(/absolute/);
    expect(refused(await askPut({ roots: [`${a}\0`] }), 400)).toMatch(/NUL/);
  });

  it("keeps review_copy when omitted", async () => {
    expect((await put({ roots: [a], review_copy: true })).review_copy).toBe(true);
    expect((await put({ roots: [b] })).review_copy).toBe(true);
    expect((await put({ roots: [b], review_copy: null })).review_copy).toBe(true);
    expect((await put({ roots: [b], review_copy: false })).review_copy).toBe(false);
    expect(JSON.parse(await readFile(configFile(env.services), "utf8")).review_copy).toBe(false);
  });

  it("accepts an empty list", async () => {
    await put({ roots: [a] });
    expect((await put({ roots: [] })).roots).toEqual([]);
  });

  it("rejects a body without roots or with wrong types", () => {
    const schema = configPut.input!;
    expect(schema.safeParse({}).success).toBe(false);
    expect(schema.safeParse({ roots: a }).success).toBe(false);
    expect(schema.safeParse({ roots: [1] }).success).toBe(false);
    expect(schema.safeParse({ roots: [a], review_copy: "yes" }).success).toBe(false);
    expect(schema.safeParse({ roots: [a], review_copy: true, engine: "x" }).success).toBe(true);
  });
});

describe("settings folder", () => {
  it("uses STUDIO_HOME first", () => {
    expect(studioHome({ STUDIO_HOME: "/srv/studio" }, "linux")).toBe("/srv/studio");
    expect(studioHome({ STUDIO_HOME: "/srv/studio", APPDATA: "C:\\x" }, "win32")).toBe(
      path.resolve("/srv/studio"),
    );
  });

  it("uses XDG_CONFIG_HOME, else ~/.config on Linux and macOS", () => {
    expect(studioHome({ XDG_CONFIG_HOME: "/cfg" }, "linux", "/home/u")).toBe("/cfg/episode-studio");
    expect(studioHome({}, "linux", "/home/u")).toBe("/home/u/.config/episode-studio");
    expect(studioHome({ HOME: "/Users/v" }, "darwin", "/home/u")).toBe("/Users/v/.config/episode-studio");
    expect(studioHome({ XDG_CONFIG_HOME: "relative" }, "linux", "/home/u")).toBe(
      "/home/u/.config/episode-studio",
    );
  });

  it("uses %APPDATA% on Windows", () => {
    expect(studioHome({ APPDATA: "C:\\Users\\u\\AppData\\Roaming" }, "win32")).toBe(
      "C:\\Users\\u\\AppData\\Roaming\\episode-studio",
    );
  });
});

describe("settings", () => {
  const write = async (value: unknown) => {
    await mkdir(path.join(env.home, "default", "studio"), { recursive: true });
    await writeFile(path.join(env.home, "default", "studio", "settings.json"), JSON.stringify(value));
  };

  it("reads as empty target choices when absent", async () => {
    expect(await readSettings(env.services)).toEqual({ default_targets: {}, detected_targets: {} });
  });

  it("reads default and detected targets", async () => {
    await write({
      default_targets: { image: "klein", video: 3 },
      detected_targets: { video: "ltx2" },
      paid_limit: 5,
    });
    const s = await readSettings(env.services);
    expect(s.default_targets).toEqual({ image: "klein" });
    expect(s.detected_targets).toEqual({ video: "ltx2" });
    expect(s.paid_limit).toBe(5);
  });

  it("picks the default video target: chosen, else detected, else animatic", () => {
    expect(
      defaultVideoTarget({ default_targets: { video: "wan" }, detected_targets: { video: "ltx2" } }),
    ).toBe("wan");
    expect(defaultVideoTarget({ default_targets: {}, detected_targets: { video: "ltx2" } })).toBe("ltx2");
    expect(defaultVideoTarget({ default_targets: {}, detected_targets: {} })).toBe("animatic");
  });
});
