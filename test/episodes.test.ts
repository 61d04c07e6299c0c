// GET /studio/episodes: the finder (one and two levels, parent-config naming rule, skip list) and summaries.
import { mkdir, realpath, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import episodes from "../functions/episodes/get.ts";
import { findScript, findSeriesConfig } from "../lib/episode/files.ts";
import { type EpisodeSummary, findEpisodes, isSkippedFolder } from "../lib/episode/find.ts";
import { callFunction } from "./support/call.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

async function put(file: string, text = "x"): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

const SCRIPT =
  "= ep01  The Pilot\n# sq01 kitchen\n## sh010\nDean waits.\n## sh020 more\n##sh030\n  ## sh040\n";

let env: TestEnv;
let base: string;
let root: string;
let show: string;

const list = async (): Promise<EpisodeSummary[]> =>
  (await callFunction(episodes, undefined, env.services)).body;

beforeAll(async () => {
  env = await makeTestEnv();
  base = await realpath(env.dir);
  root = path.join(base, "root");
  show = path.join(root, "show");
  await put(path.join(show, "series.json"), JSON.stringify({ series: { id: "tsh", title: "The Show" } }));
  await put(path.join(show, "ep01", "ep01.md"), SCRIPT);
  await put(path.join(show, "ep02", "script.md"), SCRIPT); // parent config: must be ep02.md
  await put(path.join(show, "ep03", "series.json"), JSON.stringify({ series: { id: "own" }, simple: true }));
  await put(path.join(show, "ep03", "draft.md"), "\uFEFF= ep03\n## sh010\n");
  await put(path.join(show, "ep03", "README.md"));
  await put(path.join(show, "ep03", "refs_todo.md"));
  await put(path.join(show, "ep04", "series.json"), "{}");
  await put(path.join(show, "ep04", "a.md"));
  await put(path.join(show, "ep04", "b.md")); // two candidates: cannot tell
  await put(path.join(show, "ep05", "ep05.md"), SCRIPT);
  await put(path.join(show, "ep05", "shotlist", "shotlist_proxy.json"), "{}");
  await put(
    path.join(show, "ep05", "shotlist", "shots.json"),
    JSON.stringify({ episode: "ep05", sequences: [{ shots: [{}, {}, {}] }, { shots: [{}, {}, {}, {}] }] }),
  );
  await put(path.join(show, "ep05", "shotlist", "shotlist.json"), "{}");
  // Skipped names are neither listed nor entered.
  for (const name of [
    "refs",
    "audio",
    "shotlist",
    "renders",
    "renders_proxy",
    "views",
    "targets",
    "_old",
    ".git",
    "node_modules",
  ]) {
    await put(path.join(show, name, `${name}.md`));
    await put(path.join(root, name, "x", "series.json"), "{}");
    await put(path.join(root, name, "x", "x.md"));
  }
  // One level below the root, with its own config (the root has none).
  await put(path.join(root, "solo", "series.json"), JSON.stringify({ series: { title: 7 } }));
  await put(path.join(root, "solo", "solo.md"), "no header\n## a\n");
  // Three levels down is too deep.
  await put(path.join(root, "deep", "a", "b", "series.json"), "{}");
  await put(path.join(root, "deep", "a", "b", "b.md"));
  await put(path.join(root, "deep", "a", "series.json"), "not json");
  await put(path.join(root, "deep", "a", "a.md"));
  // A link out of the root is not listed.
  await put(path.join(base, "outside", "ext", "series.json"), "{}");
  await put(path.join(base, "outside", "ext", "ext.md"));
  await symlink(path.join(base, "outside", "ext"), path.join(root, "ext"));
  env.services.env.STUDIO_ROOTS = root;
});

afterAll(() => env.cleanup());

describe("GET /studio/episodes", () => {
  it("has no input", () => {
    expect(episodes.method).toBe("GET");
    expect(episodes.path).toBe("/episodes");
    expect(episodes.input).toBeUndefined();
  });

  it("lists episodes one and two levels below the root, in path order", async () => {
    const got = await list();
    expect(got.map((e) => path.relative(root, e.ep))).toEqual([
      path.join("deep", "a"),
      path.join("show", "ep01"),
      path.join("show", "ep03"),
      path.join("show", "ep05"),
      "solo",
    ]);
  });

  it("summarises an episode using the show's config", async () => {
    const ep01 = (await list()).find((e) => e.name === "ep01");
    expect(ep01).toEqual({
      ep: path.join(show, "ep01"),
      name: "ep01",
      series: "The Show",
      title: "The Pilot",
      built: { final: false, proxy: false },
      shots: 2,
      script: "ep01.md",
      simple: false,
    });
  });

  it("uses the episode's own config, the single other script and series.id", async () => {
    const ep03 = (await list()).find((e) => e.name === "ep03");
    expect(ep03).toMatchObject({ series: "own", title: "", shots: 1, script: "draft.md", simple: true });
  });

  it("counts built shots from shots.json and reports both passes", async () => {
    const ep05 = (await list()).find((e) => e.name === "ep05");
    expect(ep05).toMatchObject({ built: { final: true, proxy: true }, shots: 7, series: "The Show" });
  });

  it("answers null series for a config without a usable name or that does not parse", async () => {
    const got = await list();
    expect(got.find((e) => e.name === "solo")).toMatchObject({ series: null, title: "", shots: 1 });
    expect(got.find((e) => e.name === "a")).toMatchObject({ series: null, simple: false, script: "a.md" });
  });

  it("sees a changed script", async () => {
    await put(path.join(show, "ep01", "ep01.md"), "= ep01  Renamed\n## s1\n## s2\n## s3\n");
    expect((await list()).find((e) => e.name === "ep01")).toMatchObject({ title: "Renamed", shots: 3 });
    await put(path.join(show, "ep01", "ep01.md"), SCRIPT);
  });

  it("lists each episode once when roots overlap", async () => {
    const got = await findEpisodes([root, show, root]);
    expect(got.filter((e) => e.name === "ep01")).toHaveLength(1);
  });

  it("answers an empty list without roots, and skips missing roots", async () => {
    const other = await makeTestEnv();
    try {
      expect((await callFunction(episodes, undefined, other.services)).body).toEqual([]);
      expect(await findEpisodes([path.join(base, "gone")])).toEqual([]);
    } finally {
      await other.cleanup();
    }
  });
});

describe("finder helpers", () => {
  it("knows the skip list", () => {
    for (const n of [
      "refs",
      "Audio",
      "shotlist",
      "renders",
      "renders_proxy",
      "views",
      "targets",
      "_x",
      ".git",
      "node_modules",
    ]) {
      expect(isSkippedFolder(n), n).toBe(true);
    }
    expect(isSkippedFolder("ep01")).toBe(false);
  });

  it("finds the script: <folder>.md, else the single other .md that is not refs_todo, readme or notes", async () => {
    expect(await findScript(path.join(show, "ep01"))).toBe(path.join(show, "ep01", "ep01.md"));
    expect(await findScript(path.join(show, "ep02"))).toBe(path.join(show, "ep02", "script.md"));
    expect(await findScript(path.join(show, "ep03"))).toBe(path.join(show, "ep03", "draft.md"));
    expect(await findScript(path.join(show, "ep04"))).toBeNull();
    expect(await findScript(path.join(base, "nope"))).toBeNull();
  });

  it("finds the series config in the episode, else its parent", async () => {
    expect(await findSeriesConfig(path.join(show, "ep03"))).toEqual({
      path: path.join(show, "ep03", "series.json"),
      inParent: false,
    });
    expect(await findSeriesConfig(path.join(show, "ep01"))).toEqual({
      path: path.join(show, "series.json"),
      inParent: true,
    });
    expect(await findSeriesConfig(path.join(root, "solo", "nothing"))).toEqual({
      path: path.join(root, "solo", "series.json"),
      inParent: true,
    });
    expect(await findSeriesConfig(root)).toBeNull();
  });
});
