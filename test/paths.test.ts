// Path rules: ep checks, relative paths and their exceptions, symlinks, folder names.
import { mkdir, readdir, readFile, realpath, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StudioError } from "../lib/errors.ts";
import {
  checkRelativePath,
  createShowFile,
  episodeFence,
  findSeriesConfig,
  isInside,
  isInsideOrEqual,
  mkdirShow,
  type ResolveOptions,
  readShowDir,
  readShowFile,
  realRoots,
  removeShow,
  renameShow,
  resolveEpisode,
  resolveEpisodePath,
  resolveInEpisode,
  seriesHome,
  validateFolderName,
  writeShowFile,
} from "../lib/paths/index.ts";
import { createCaches } from "../lib/store/caches.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

/** New caches: each look-up reads the disk as it is now. */
const fresh = () => ({ caches: createCaches() });

async function put(file: string, text = "x"): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

async function refused(p: Promise<unknown>, status: number): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(StudioError);
    const e = err as StudioError;
    expect(e.status).toBe(status);
    const body = e.body();
    expect(Object.keys(body)).toEqual(["error"]);
    expect(typeof body.error).toBe("string");
    return body.error as string;
  }
  throw new Error(`expected a ${status} refusal`);
}

const config = (refs = true) =>
  JSON.stringify({
    series: { id: "s" },
    subjects: { dean: { name: "Dean", sheet: refs ? "../refs/dean.png" : "refs/dean.png" } },
  });

let env: TestEnv;
let root: string; // real path of the root
let outside: string;
let showA: string; // series.json in the show folder
let showB: string; // series.json in each episode naming ../refs
let epA1: string;
let epB1: string;
let epC: string; // own config that names nothing above it

beforeAll(async () => {
  env = await makeTestEnv();
  root = path.join(await realpath(env.dir), "root");
  outside = path.join(await realpath(env.dir), "outside");
  await put(path.join(outside, "secret.txt"));
  await put(path.join(outside, "ep", "series.json"), config());

  showA = path.join(root, "showA");
  await put(path.join(showA, "series.json"), config());
  await put(path.join(showA, "notes.txt"));
  await put(path.join(showA, "refs", "dean.png"));
  epA1 = path.join(showA, "ep01");
  await put(path.join(epA1, "ep01.md"), "= ep01  One\n");
  await put(path.join(epA1, "renders", "sh010", "sh010_t01.mp4"));
  await put(path.join(showA, "ep02", "ep02.md"));
  await put(path.join(showA, "ep02", "renders", "sh010", "sh010_t01.mp4"));
  await put(path.join(showA, "ep02", "renders_proxy", "sh010", "sh010_t01.mp4"));
  await put(path.join(showA, "ep02", "refs", "_takes", "subject__dean", "subject__dean_t01.png"));

  showB = path.join(root, "showB");
  await put(path.join(showB, "notes.txt"));
  await put(path.join(showB, "refs", "dean.png"));
  await put(path.join(showB, "audio", "track.wav"));
  await put(path.join(showB, "other", "x.txt"));
  epB1 = path.join(showB, "e1");
  await put(path.join(epB1, "series.json"), config());
  await put(path.join(epB1, "e1.md"));
  await put(path.join(epB1, "cut.json"), "{}");
  await put(path.join(epB1, "renders", "sh010", "sh010_t01.mp4"));
  await put(path.join(showB, "e2", "series.json"), config());
  await put(path.join(showB, "e2", "renders", "sh010", "sh010_t01.mp4"));
  await put(path.join(showB, "e2", "refs", "_takes", "subject__dean", "subject__dean_t01.png"));
  await symlink(path.join(outside, "secret.txt"), path.join(epB1, "link.txt"));
  await symlink(path.join(showB, "refs", "dean.png"), path.join(epB1, "shared.png"));
  await symlink(outside, path.join(epB1, "outdir"));

  epC = path.join(root, "showC", "e3");
  await put(path.join(epC, "series.json"), config(false));
  await put(path.join(root, "showC", "refs", "dean.png"));

  await symlink(path.join(showA, "ep02", "renders"), path.join(epA1, "sib"));
  await symlink(path.join(outside, "ep"), path.join(root, "escape"));
  await symlink(root, path.join(env.dir, "rootlink"));
  env.services.env.STUDIO_ROOTS = root;
});

afterAll(() => env.cleanup());

describe("resolveEpisode", () => {
  it("returns the real folder of an episode inside a root", async () => {
    expect(await resolveEpisode(epB1, env.services)).toBe(epB1);
    expect(await resolveEpisode(`${epB1}/`, env.services)).toBe(epB1);
  });

  it("refuses malformed values with 400", async () => {
    expect(await refused(resolveEpisode(42, env.services), 400)).toMatch(/^ep must be a string/);
    expect(await refused(resolveEpisode(undefined, env.services), 400)).toMatch(/ep/);
    expect(await refused(resolveEpisode("", env.services), 400)).toMatch(/ep is required/);
    expect(await refused(resolveEpisode("showB/e1", env.services), 400)).toMatch(/absolute/);
    expect(await refused(resolveEpisode("C:\\shows\\e1", env.services), 400)).toMatch(/absolute/);
    expect(await refused(resolveEpisode(`${epB1}\0`, env.services), 400)).toMatch(/NUL/);
    expect(await refused(resolveEpisode(`${showB}/%2e%2e/showA`, env.services), 400)).toMatch(/encoded/);
    expect(await refused(resolveEpisode(`${showB}%2fe1`, env.services), 400)).toMatch(/encoded/);
    expect(await refused(resolveEpisode(`${showB}%5Ce1`, env.services), 400)).toMatch(/encoded/);
    expect(await refused(resolveEpisode(`${epB1}/../e2`, env.services), 400)).toMatch(/\.\./);
  });

  it("refuses a folder outside the roots with 403, even when it does not exist", async () => {
    const msg = await refused(resolveEpisode(path.join(outside, "ep"), env.services), 403);
    expect(msg).toContain("outside the configured roots");
    expect(msg).toContain(path.join(outside, "ep"));
    await refused(resolveEpisode(path.join(outside, "nope"), env.services), 403);
    await refused(resolveEpisode("/", env.services), 403);
  });

  it("answers 404 for a missing folder inside a root, and for a file", async () => {
    expect(await refused(resolveEpisode(path.join(showB, "e9"), env.services), 404)).toMatch(
      /no episode folder/,
    );
    await refused(resolveEpisode(path.join(epB1, "e1.md"), env.services), 404);
  });

  it("resolves symlinks before the root check", async () => {
    await refused(resolveEpisode(path.join(root, "escape"), env.services), 403);
    const viaLink = path.join(env.dir, "rootlink", "showB", "e1");
    expect(await resolveEpisode(viaLink, env.services)).toBe(epB1);
  });

  it("accepts a symlinked root", async () => {
    const other = await makeTestEnv({ STUDIO_ROOTS: path.join(env.dir, "rootlink") });
    try {
      expect(await resolveEpisode(epB1, other.services)).toBe(epB1);
      expect(await resolveEpisode(path.join(env.dir, "rootlink", "showA", "ep01"), other.services)).toBe(
        epA1,
      );
    } finally {
      await other.cleanup();
    }
  });

  it("refuses everything when no roots are configured", async () => {
    const other = await makeTestEnv();
    try {
      expect(await refused(resolveEpisode(epB1, other.services), 403)).toMatch(/no roots are configured/);
    } finally {
      await other.cleanup();
    }
  });
});

describe("seriesHome", () => {
  it("tells which config applies and what it opens", async () => {
    expect(await seriesHome(fresh(), epA1)).toEqual({
      config: path.join(showA, "series.json"),
      home: showA,
      inParent: true,
      opensParentRefsAudio: false,
    });
    expect(await seriesHome(fresh(), epB1)).toEqual({
      config: path.join(epB1, "series.json"),
      home: epB1,
      inParent: false,
      opensParentRefsAudio: true,
    });
    expect((await seriesHome(fresh(), epC)).opensParentRefsAudio).toBe(false);
    expect(await seriesHome(fresh(), path.join(showB, "other"))).toEqual({
      config: null,
      home: path.join(showB, "other"),
      inParent: false,
      opensParentRefsAudio: false,
    });
  });

  it("sees ../refs in a config that does not parse", async () => {
    const dir = path.join(root, "showD", "broken");
    await put(path.join(dir, "series.json"), '{"subjects": {"a": {"sheet": "../audio/a.wav"}');
    expect((await seriesHome(fresh(), dir)).opensParentRefsAudio).toBe(true);
  });
});

describe("resolveInEpisode: inside the episode", () => {
  it("returns the real path of a file in the episode", async () => {
    expect(await resolveInEpisode(epB1, "renders/sh010/sh010_t01.mp4")).toBe(
      path.join(epB1, "renders", "sh010", "sh010_t01.mp4"),
    );
    expect(await resolveInEpisode(epB1, "./renders//sh010/./sh010_t01.mp4")).toBe(
      path.join(epB1, "renders", "sh010", "sh010_t01.mp4"),
    );
  });

  it("answers 404 for a missing file, or the would-be path when mustExist is false", async () => {
    expect(await refused(resolveInEpisode(epB1, "renders/nope.mp4"), 404)).toMatch(/^path: no file/);
    expect(await resolveInEpisode(epB1, "new/file.json", { mustExist: false })).toBe(
      path.join(epB1, "new", "file.json"),
    );
  });

  it("refuses malformed paths with 400", async () => {
    const cases: [unknown, RegExp][] = [
      ["../e2/cut.json", /leaves the episode/],
      ["renders/../../e2/cut.json", /leaves the episode/],
      ["%2e%2e/e2/cut.json", /encoded/],
      ["%2E%2E/e2", /encoded/],
      ["renders%2fsh010", /encoded/],
      ["renders%5Csh010", /encoded/],
      ["/etc/passwd", /absolute/],
      [path.join(epB1, "cut.json"), /absolute/],
      ["C:\\Windows\\win.ini", /drive/],
      ["C:/Windows/win.ini", /drive/],
      ["c:x", /drive/],
      ["renders/C:/x", /drive/],
      ["\\\\srv\\share\\x", /UNC/],
      ["//srv/share/x", /UNC/],
      ["renders\\sh010\\x.mp4", /forward slashes/],
      ["cut.json\0.png", /NUL/],
      ["", /required/],
      [".", /names no file/],
      [7, /must be a string/],
      [null, /must be a string/],
    ];
    for (const [rel, re] of cases) {
      expect(await refused(resolveInEpisode(epB1, rel), 400), String(rel)).toMatch(re);
    }
  });

  it("names the field in the message", async () => {
    expect(await refused(resolveInEpisode(epB1, "/x", { field: "audio_file" }), 400)).toMatch(
      /^audio_file: /,
    );
  });

  it('refuses ".." that comes back into the episode when its own config is in force', async () => {
    await refused(
      resolveInEpisode(epB1, "renders/../cut.json", { series: await seriesHome(fresh(), epB1) }),
      400,
    );
  });

  it("refuses a symlink that points out of the episode with 403 (or 400 when asked)", async () => {
    const msg = await refused(resolveInEpisode(epB1, "link.txt"), 403);
    expect(msg).toContain("link");
    await refused(resolveInEpisode(epB1, "outdir/secret.txt"), 403);
    await refused(resolveInEpisode(epB1, "outdir/new.txt", { mustExist: false }), 403);
    await refused(resolveInEpisode(epB1, "link.txt", { linkEscapeStatus: 400 }), 400);
  });
});

describe("resolveInEpisode: a series config in the parent opens the show folder", () => {
  let opts: ResolveOptions;
  beforeAll(async () => {
    opts = { series: await seriesHome(fresh(), epA1), roots: [root] };
  });

  it("opens the whole parent folder", async () => {
    expect(await resolveInEpisode(epA1, "../refs/dean.png", opts)).toBe(path.join(showA, "refs", "dean.png"));
    expect(await resolveInEpisode(epA1, "../notes.txt", opts)).toBe(path.join(showA, "notes.txt"));
    expect(await resolveInEpisode(epA1, "../series.json", opts)).toBe(path.join(showA, "series.json"));
    expect(await resolveInEpisode(epA1, "renders/../ep01.md", opts)).toBe(path.join(epA1, "ep01.md"));
    expect(
      await resolveInEpisode(epA1, "../ep02/refs/_takes/subject__dean/subject__dean_t01.png", opts),
    ).toBe(path.join(showA, "ep02", "refs", "_takes", "subject__dean", "subject__dean_t01.png"));
  });

  it("still refuses a sibling's renders and anything above the show", async () => {
    expect(await refused(resolveInEpisode(epA1, "../ep02/renders/sh010/sh010_t01.mp4", opts), 400)).toMatch(
      /another episode's renders/,
    );
    await refused(resolveInEpisode(epA1, "../ep02/renders_proxy/sh010/sh010_t01.mp4", opts), 400);
    await refused(resolveInEpisode(epA1, "../../showB/notes.txt", opts), 400);
    await refused(resolveInEpisode(epA1, "../../../outside/secret.txt", opts), 400);
  });

  it("refuses a link to a sibling's renders", async () => {
    await refused(resolveInEpisode(epA1, "sib/sh010/sh010_t01.mp4", opts), 403);
  });

  it("does not open the parent without the parent situation", async () => {
    await refused(resolveInEpisode(epA1, "../notes.txt"), 400);
  });
});

describe("resolveInEpisode: an episode config naming ../refs and ../audio", () => {
  let opts: ResolveOptions;
  beforeAll(async () => {
    opts = { series: await seriesHome(fresh(), epB1), roots: [root] };
  });

  it("opens exactly the show's refs/ and audio/", async () => {
    expect(await resolveInEpisode(epB1, "../refs/dean.png", opts)).toBe(path.join(showB, "refs", "dean.png"));
    expect(await resolveInEpisode(epB1, "../audio/track.wav", opts)).toBe(
      path.join(showB, "audio", "track.wav"),
    );
    expect(await resolveInEpisode(epB1, "../refs/new.png", { ...opts, mustExist: false })).toBe(
      path.join(showB, "refs", "new.png"),
    );
  });

  it("refuses the show's own files, other folders and siblings", async () => {
    await refused(resolveInEpisode(epB1, "../notes.txt", opts), 400);
    await refused(resolveInEpisode(epB1, "../other/x.txt", opts), 400);
    await refused(resolveInEpisode(epB1, "../e2/series.json", opts), 400);
    await refused(resolveInEpisode(epB1, "../e2/renders/sh010/sh010_t01.mp4", opts), 400);
    await refused(resolveInEpisode(epB1, "../refs/../notes.txt", opts), 400);
  });

  it("lets a link inside the episode reach the shared refs", async () => {
    expect(await resolveInEpisode(epB1, "shared.png", opts)).toBe(path.join(showB, "refs", "dean.png"));
  });

  it("opens a sibling's reference candidates only for file serving", async () => {
    const rel = "../e2/refs/_takes/subject__dean/subject__dean_t01.png";
    await refused(resolveInEpisode(epB1, rel, opts), 400);
    expect(await resolveInEpisode(epB1, rel, { ...opts, siblingRefTakes: true })).toBe(
      path.join(showB, "e2", "refs", "_takes", "subject__dean", "subject__dean_t01.png"),
    );
    await refused(
      resolveInEpisode(epB1, "../e2/renders/sh010/sh010_t01.mp4", { ...opts, siblingRefTakes: true }),
      400,
    );
    await refused(resolveInEpisode(epB1, "../e2/series.json", { ...opts, siblingRefTakes: true }), 400);
  });

  it("does not open refs/ when the config names nothing above the episode", async () => {
    await refused(resolveInEpisode(epC, "../refs/dean.png", { series: await seriesHome(fresh(), epC) }), 400);
  });

  it("refuses the parent's folders when the parent is outside every root (403)", async () => {
    const epRoot = path.join(env.dir, "root2");
    await put(path.join(epRoot, "series.json"), config());
    await put(path.join(env.dir, "refs", "dean.png"));
    const real = await realpath(epRoot);
    await refused(
      resolveInEpisode(real, "../refs/dean.png", { series: await seriesHome(fresh(), real), roots: [real] }),
      403,
    );
  });
});

describe("resolveEpisodePath", () => {
  it("applies ep, series situation and roots in one call", async () => {
    const got = await resolveEpisodePath(env.services, epB1, "../refs/dean.png");
    expect(got.ep).toBe(epB1);
    expect(got.path).toBe(path.join(showB, "refs", "dean.png"));
    expect(got.series.opensParentRefsAudio).toBe(true);
    await refused(resolveEpisodePath(env.services, path.join(outside, "ep"), "series.json"), 403);
    await refused(resolveEpisodePath(env.services, epB1, "../notes.txt"), 400);
    await refused(resolveEpisodePath(env.services, epB1, "link.txt"), 403);
    const sib = "../e2/refs/_takes/subject__dean/subject__dean_t01.png";
    expect((await resolveEpisodePath(env.services, epB1, sib, { siblingRefTakes: true })).path).toContain(
      "_takes",
    );
  });
});

describe("isInside", () => {
  it("compares whole segments", () => {
    expect(isInside("/a/b", "/a/b/c")).toBe(true);
    expect(isInside("/a/b", "/a/b")).toBe(false);
    expect(isInsideOrEqual("/a/b", "/a/b")).toBe(true);
    expect(isInside("/a/b", "/a/bc")).toBe(false);
    expect(isInside("/a/b", "/a/b/../c")).toBe(false);
    expect(isInside("/", "/x")).toBe(true);
  });
});

describe("validateFolderName", () => {
  it("accepts portable names", () => {
    for (const name of ["ep01", "Ep-2.final", "a", "9_lives", "x".repeat(64), "console", "com10", "refs2"]) {
      expect(validateFolderName(name)).toBe(name);
    }
  });

  it("refuses bad shapes, reserved names and device names with 400", () => {
    const bad = [
      "",
      "_x",
      ".x",
      "-x",
      "a b",
      "a/b",
      "a\\b",
      "x.",
      "x".repeat(65),
      "épisode",
      "refs",
      "Renders",
      "renders_proxy",
      "shotlist",
      "views",
      "AUDIO",
      "targets",
      "CON",
      "prn",
      "Aux",
      "nul",
      "com1",
      "COM9",
      "lpt1",
      "nul.txt",
      42,
    ];
    for (const name of bad) {
      let err: unknown;
      try {
        validateFolderName(name);
      } catch (e) {
        err = e;
      }
      expect(err, String(name)).toBeInstanceOf(StudioError);
      expect((err as StudioError).status).toBe(400);
      expect(Object.keys((err as StudioError).body())).toEqual(["error"]);
    }
    expect(() => validateFolderName("refs", "name")).toThrow(/name: "refs" is a reserved folder name/);
  });
});

describe("an episode lies strictly inside a root", () => {
  it("refuses a configured root as ep with 403, directly or through a link", async () => {
    expect(await refused(resolveEpisode(root, env.services), 403)).toMatch(/is a configured root/);
    await refused(resolveEpisode(path.join(env.dir, "rootlink"), env.services), 403);
  });

  it("never takes the series.json of a folder above a root", async () => {
    const above = path.join(path.dirname(root), "series.json");
    await put(above, config());
    const roots = await realRoots(env.services);
    expect(await findSeriesConfig(root)).toEqual({ path: above, inParent: true });
    expect(await findSeriesConfig(root, roots)).toBeNull();
    expect((await seriesHome(fresh(), root, roots)).config).toBeNull();
    // The root itself is a fine show folder: an episode right below it takes its config.
    await put(path.join(root, "series.json"), config());
    const top = path.join(root, "top");
    await put(path.join(top, "top.md"));
    expect(await findSeriesConfig(top, roots)).toEqual({
      path: path.join(root, "series.json"),
      inParent: true,
    });
  });
});

describe("names the file system would refuse or change", () => {
  it("refuses a segment over 255 bytes, a path over 4096 characters, and a trailing dot or space (400)", async () => {
    expect(() => checkRelativePath(`${"é".repeat(128)}.png`, "path")).toThrow(/longer than 255 bytes/);
    expect(() => checkRelativePath(`${"a/".repeat(2100)}b`, "path")).toThrow(/at most 4096/);
    for (const bad of ["ep01.md.", "renders /x.mp4", "a./b", "..."]) {
      expect(() => checkRelativePath(bad, "path"), bad).toThrow(/ending in a dot or a space/);
    }
    expect(await refused(resolveEpisode(`${epB1}.`, env.services), 400)).toMatch(/ending in a dot/);
    expect(await refused(resolveEpisode(`${"/x".repeat(10)}/${"n".repeat(256)}`, env.services), 400)).toMatch(
      /longer than 255 bytes/,
    );
    expect(checkRelativePath("a/./b/../c", "path")).toEqual(["a", "b", "..", "c"]);
  });
});

describe("the guarded door", () => {
  it("reads through links that stay inside the fence and refuses links that leave it (403)", async () => {
    const fence = episodeFence(epB1);
    await symlink(path.join(epB1, "e1.md"), path.join(epB1, "alias.md"));
    expect((await readShowFile(fence, path.join(epB1, "alias.md"))).toString()).toBe("x");
    expect(await refused(readShowFile(fence, path.join(epB1, "link.txt")), 403)).toMatch(/symbolic link/);
    await refused(readShowDir(fence, path.join(epB1, "outdir")), 403);
    await refused(readShowFile(episodeFence(epA1), path.join(epA1, "..", "series.json")), 403);
  });

  it("refuses writes into a linked folder that leads out, and writes nothing there", async () => {
    const fence = episodeFence(epB1);
    await refused(writeShowFile(fence, path.join(epB1, "outdir", "new.json"), "{}"), 403);
    await refused(writeShowFile(fence, path.join(epB1, "outdir", "deep", "new.json"), "{}"), 403);
    await refused(writeShowFile(fence, path.join(epB1, "link.txt"), "changed"), 403);
    await refused(createShowFile(fence, path.join(epB1, "outdir", "x"), "x"), 403);
    await refused(mkdirShow(fence, path.join(epB1, "outdir", "sub")), 403);
    await refused(renameShow(fence, path.join(epB1, "e1.md"), path.join(epB1, "outdir", "e1.md")), 403);
    expect((await readdir(outside)).sort()).toEqual(["ep", "secret.txt"]);
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("x");
  });

  it("writes atomically inside the fence and removes a link itself, never its target", async () => {
    const fence = episodeFence(epB1);
    await writeShowFile(fence, path.join(epB1, "notes", "n.json"), "{}\n");
    expect(await readFile(path.join(epB1, "notes", "n.json"), "utf8")).toBe("{}\n");
    expect(await readdir(path.join(epB1, "notes"))).toEqual(["n.json"]);
    await symlink(path.join(outside, "secret.txt"), path.join(epB1, "gone.txt"));
    await removeShow(fence, path.join(epB1, "gone.txt"));
    expect(await readdir(outside)).toContain("secret.txt");
  });
});
