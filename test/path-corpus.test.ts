// Crafted paths on every route that takes an ep, a path, a shot, a take, a file or a name: always a 4xx, never
// the content of a file outside the roots, and nothing outside the roots and the settings folder changes.
import { createHash } from "node:crypto";
import { lstat, mkdir, readdir, readFile, readlink, realpath, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StudioFunction } from "../functions/fn.ts";
import { functions } from "../functions/index.ts";
import { assembleEpisode } from "../lib/assemble/assemble.ts";
import { createApp } from "../runtime/app.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";
import { seriesS } from "./support/series-s.ts";
import { SCRIPT } from "./support/studio-episode.ts";

// Inputs that name a place on disk, or a piece of one (a shot or take becomes a folder and file name).
const PATH_FIELDS = [
  "ep",
  "parent",
  "path",
  "file",
  "shot",
  "shots",
  "take",
  "name",
  "folder",
  "node",
  "roots",
  "source_path",
  "video",
  "root",
  "workflow",
];

const SECRET = `SECRET-${createHash("sha1").update(String(Math.random())).digest("hex").slice(0, 12)}`;

let env: TestEnv;
let app: ReturnType<typeof createApp>;
let base: string; // real temp dir
let root: string; // the configured root
let root2Real: string; // target of the second root, which is a link
let root2Link: string;
let outside: string;
let show: string; // show folder with its series.json
let ep: string; // built episode using the show's config
let linky: string; // episode whose script and series.json are links out
let epHistory: string; // _history is a link out
let epShotlist: string; // shotlist/ is a link out
let epRenders: string; // renders_proxy/ is a link out
let showT: string; // a show folder whose newest "episode" is a link out

type Input = Record<string, unknown>;

async function put(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

async function request(fn: Pick<StudioFunction, "method" | "path">, input: Input) {
  let res: Response;
  const headers = { host: "127.0.0.1", "content-type": "application/json" };
  if (fn.method === "GET" || fn.method === "DELETE") {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(input)) if (v !== undefined) query.set(k, String(v));
    res = await app.request(`http://127.0.0.1/studio${fn.path}?${query}`, { method: fn.method, headers });
  } else {
    res = await app.request(`http://127.0.0.1/studio${fn.path}`, {
      method: fn.method,
      headers,
      body: JSON.stringify(input),
    });
  }
  const text = await res.text();
  return { status: res.status, text };
}

const call = (method: StudioFunction["method"], route: string, input: Input) =>
  request({ method, path: route }, input);

async function json(method: StudioFunction["method"], route: string, input: Input) {
  const r = await call(method, route, input);
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
  let body: any = null;
  try {
    body = JSON.parse(r.text);
  } catch {
    // file replies are not JSON
  }
  return { status: r.status, body, text: r.text };
}

async function takeOnDisk(epDir: string, shot: string, take: number): Promise<void> {
  const stem = `${shot}_t${String(take).padStart(2, "0")}`;
  const dir = path.join(epDir, "renders_proxy", shot);
  const sidecar = { version: 1, shot, take, pass: "proxy", status: "ok", seed: 123, frames: 72, fps: 24 };
  await put(path.join(dir, `${stem}.json`), JSON.stringify({ ...sidecar, mp4: `${stem}.mp4` }, null, 2));
  await put(path.join(dir, `${stem}.mp4`), "mp4");
  await put(path.join(dir, `${stem}.jpg`), "jpg");
}

/** Names, sizes, link targets and content hashes of everything under `dir`, links never followed. */
async function snapshot(dir: string, skip: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string): Promise<void> => {
    for (const name of await readdir(d)) {
      const full = path.join(d, name);
      if (skip.includes(full)) continue;
      const st = await lstat(full);
      if (st.isSymbolicLink()) out.set(full, `link:${await readlink(full)}`);
      else if (st.isDirectory()) {
        out.set(full, "dir");
        await walk(full);
      } else {
        const hash = createHash("sha1")
          .update(await readFile(full))
          .digest("hex");
        out.set(full, `file:${st.size}:${st.mtimeMs}:${hash}`);
      }
    }
  };
  await walk(dir);
  return out;
}

const secretText = (what: string) => `${what} ${SECRET}\n`;

beforeAll(async () => {
  env = await makeTestEnv();
  base = await realpath(env.dir);
  root = path.join(base, "roots");
  outside = path.join(base, "outside");
  root2Real = path.join(base, "root2");
  root2Link = path.join(base, "root2link");

  // Outside every root: files with known content, a script, a series config, whole folders.
  await put(path.join(outside, "secret.txt"), secretText("secret"));
  await put(path.join(outside, "script.md"), `= e01  ${SECRET}\n# sq01 x\n## sh010\ndur: 2\n${SECRET}\n`);
  await put(path.join(outside, "series.json"), JSON.stringify({ ...seriesS(), secret: SECRET }, null, 2));
  await put(path.join(outside, "hist", "keep.txt"), secretText("history"));
  await put(path.join(outside, "shotlist", "shots.json"), JSON.stringify({ secret: SECRET }));
  await put(
    path.join(outside, "renders_proxy", "sh010", "sh010_t01.json"),
    JSON.stringify({ secret: SECRET }),
  );
  await put(path.join(outside, "renders_proxy", "sh010", "sh010_t01.mp4"), secretText("video"));
  await put(path.join(outside, "ep09", "ep09.md"), `= ep09  ${SECRET}\n`);
  await put(path.join(outside, "ep09", "series.json"), JSON.stringify({ ...seriesS(), secret: SECRET }));
  // The folder above the root holds a series config too: a root taken as an episode would find it.
  await put(path.join(base, "series.json"), JSON.stringify({ ...seriesS(), secret: SECRET }));

  show = path.join(root, "show");
  await put(path.join(show, "series.json"), JSON.stringify(seriesS(), null, 2));
  ep = path.join(show, "ep01");
  await put(path.join(ep, "ep01.md"), SCRIPT);
  await put(path.join(root, "roots.md"), SCRIPT); // the root itself looks like an episode
  await symlink(path.join(outside, "secret.txt"), path.join(ep, "leak.txt"));
  await symlink(outside, path.join(ep, "outdir"));
  await symlink(outside, path.join(root, "outlink"));

  linky = path.join(root, "linky", "epL");
  await mkdir(linky, { recursive: true });
  await symlink(path.join(outside, "script.md"), path.join(linky, "epL.md"));
  await symlink(path.join(outside, "series.json"), path.join(linky, "series.json"));

  const own = async (dir: string) => {
    await put(path.join(dir, "series.json"), JSON.stringify(seriesS(), null, 2));
    await put(path.join(dir, `${path.basename(dir)}.md`), SCRIPT);
  };
  epHistory = path.join(root, "hist", "epH");
  await own(epHistory);
  await symlink(path.join(outside, "hist"), path.join(epHistory, "_history"));
  epShotlist = path.join(root, "shot", "epS");
  await own(epShotlist);
  await symlink(path.join(outside, "shotlist"), path.join(epShotlist, "shotlist"));
  epRenders = path.join(root, "rend", "epR");
  await own(epRenders);
  await symlink(path.join(outside, "renders_proxy"), path.join(epRenders, "renders_proxy"));

  showT = path.join(root, "showT");
  await own(path.join(showT, "ep01"));
  await symlink(path.join(outside, "ep09"), path.join(showT, "ep09"));

  await own(path.join(root2Real, "show", "e1"));
  await symlink(root2Real, root2Link);

  env.services.env.STUDIO_ROOTS = [root, root2Link].join(path.delimiter);
  app = createApp(env.services, functions);

  for (const dir of [ep, epRenders]) {
    const built = await json("POST", "/build", { ep: dir });
    expect(built.body?.ok, built.text).toBe(true);
  }
  await takeOnDisk(ep, "sh010", 1);
});

afterAll(() => env.cleanup());

describe("regressions", () => {
  it("refuses a configured root given as ep, and never opens the series.json above it", async () => {
    for (const r of [root, root2Link]) {
      const got = await json("GET", "/source", { ep: r, file: "series" });
      expect(got.status, got.text).toBe(403);
      expect(got.body.error).toMatch(/configured root/);
      expect(got.text).not.toContain(SECRET);
      const putRes = await json("PUT", "/source", { ep: r, file: "series", text: "{}", base_hash: "x" });
      expect(putRes.status).toBe(403);
    }
    expect(await readFile(path.join(base, "series.json"), "utf8")).toContain(SECRET);
  });

  it("takes a show folder's series.json when the show folder is itself a root's child, or the root itself", async () => {
    const got = await json("GET", "/source", { ep, file: "series" });
    expect(got.status, got.text).toBe(200);
    expect(got.body.path).toBe("../series.json");
    const inRoot2 = await json("GET", "/source", { ep: path.join(root2Link, "show", "e1"), file: "script" });
    expect(inRoot2.status, inRoot2.text).toBe(200);
  });

  it("GET and PUT /source refuse a script or series.json that is a link out of the roots", async () => {
    for (const file of ["script", "series"]) {
      const got = await json("GET", "/source", { ep: linky, file });
      expect(got.status, got.text).toBe(403);
      expect(got.body.error).toMatch(/symbolic link/);
      expect(got.text).not.toContain(SECRET);
      const saved = await json("PUT", "/source", { ep: linky, file, text: "{}", base_hash: "0" });
      expect(saved.status, saved.text).toBe(403);
    }
  });

  it("the episode list never summarises a script or series.json linked out of the roots", async () => {
    const got = await json("GET", "/episodes", {});
    expect(got.status, got.text).toBe(200);
    expect(got.text).toContain(ep);
    expect(got.text).not.toContain(SECRET);
  });

  it("a _history folder linked out refuses the save, and nothing is copied or written", async () => {
    const src = await json("GET", "/source", { ep: epHistory, file: "script" });
    expect(src.status).toBe(200);
    const saved = await json("PUT", "/source", {
      ep: epHistory,
      file: "script",
      text: `${SCRIPT}\n`,
      base_hash: src.body.hash,
      rebuild: false,
    });
    expect(saved.status, saved.text).toBe(403);
    expect(await readdir(path.join(outside, "hist"))).toEqual(["keep.txt"]);
    expect(await readFile(path.join(epHistory, "epH.md"), "utf8")).toBe(SCRIPT);
  });

  it("a _history folder linked out is neither listed nor read as versions", async () => {
    const listed = await json("GET", "/source/history", { ep: epHistory, file: "script" });
    expect(listed.status, listed.text).toBe(403);
    const read = await json("GET", "/source/version", {
      ep: epHistory,
      file: "script",
      id: "20240101-000000",
    });
    expect(read.status, read.text).toBe(403);
    expect(listed.text + read.text).not.toContain(SECRET);
  });

  it("a history version id is never a path: every crafted value is a 4xx that leaks nothing", async () => {
    for (const id of [...crafted(), "../x", "20240101-000000/../../../outside/secret.txt"]) {
      const got = await json("GET", "/source/version", { ep, file: "script", id });
      expect(got.status, `${JSON.stringify(id)} -> ${got.text}`).toBeGreaterThanOrEqual(400);
      expect(got.status).toBeLessThan(500);
      expect(got.text).not.toContain(SECRET);
    }
  });

  it("a shotlist folder linked out is neither written by a build nor read", async () => {
    const built = await json("POST", "/build", { ep: epShotlist });
    expect(built.status, built.text).toBe(403);
    expect(await readdir(path.join(outside, "shotlist"))).toEqual(["shots.json"]);
    const view = await json("GET", "/episode", { ep: epShotlist, pass: "proxy" });
    expect(view.status, view.text).toBeGreaterThanOrEqual(400);
    expect(view.status).toBeLessThan(500);
    expect(view.text).not.toContain(SECRET);
  });

  it("a renders_proxy folder linked out is neither listed, rendered into, discarded from nor assembled into", async () => {
    const view = await json("GET", "/episode", { ep: epRenders, pass: "proxy" });
    expect(view.status, view.text).toBe(403);
    expect(view.text).not.toContain(SECRET);
    const shot = await json("GET", "/shot", { ep: epRenders, pass: "proxy", shot: "sh010" });
    expect(shot.status, shot.text).toBe(403);
    // A render answers per shot: the shot is refused with the reason, nothing is queued.
    const render = await json("POST", "/render", { ep: epRenders, pass: "proxy", shots: ["sh010"] });
    expect(render.body.queued, render.text).toEqual([]);
    expect(render.body.errors[0].error).toMatch(/symbolic link/);
    const discard = await json("POST", "/discard", { ep: epRenders, pass: "proxy", shot: "sh010", take: 1 });
    expect(discard.status, discard.text).toBe(403);
    // The assembly job itself (the route only queues it): refused before anything is planned or written.
    await expect(assembleEpisode(env.services, epRenders, "proxy")).rejects.toMatchObject({ status: 403 });
    expect((await readdir(path.join(outside, "renders_proxy"))).sort()).toEqual(["sh010"]);
    const file = await json("GET", "/file", { ep: epRenders, path: "renders_proxy/sh010/sh010_t01.mp4" });
    expect(file.status).toBe(403);
    expect(file.text).not.toContain(SECRET);
  });

  it("episode/new never takes a sibling that is a link out of the show folder as its template", async () => {
    const got = await json("GET", "/episode/new", { parent: showT });
    expect(got.status, got.text).toBe(200);
    expect(got.body.from).toBe("ep01");
    expect(got.text).not.toContain(SECRET);
    const made = await json("POST", "/episode/new", { parent: showT, name: "ep10" });
    expect(made.status, made.text).toBe(200);
    expect(made.body.from).toBe("ep01");
    expect(await readFile(path.join(showT, "ep10", "series.json"), "utf8")).not.toContain(SECRET);
  });

  it("never writes a live reference where the series config may not lead, nor through a linked takes folder", async () => {
    const before = await snapshot(outside, []);
    // An episode whose own config names a sheet two folders up: only ../refs and ../audio may open above it.
    const epC = path.join(root, "climb", "epC");
    await put(path.join(epC, "epC.md"), SCRIPT);
    const config = seriesS();
    config.subjects.kettle.sheet = "../../outside/kettle.png";
    await put(path.join(epC, "series.json"), JSON.stringify(config));
    await put(
      path.join(epC, "refs", "_takes", "subject__kettle", "subject__kettle_t01.png"),
      "not really a png",
    );
    const picked = await json("PUT", "/refs/pick", { ep: epC, ref: "subject:kettle", take: 1 });
    expect(picked.status, picked.text).toBe(400);
    expect(picked.body.error).toMatch(/leaves the episode folder/);
    // A takes folder linked outside the episode is never listed, written or picked from.
    const epL = path.join(root, "climb", "epL");
    await put(path.join(epL, "epL.md"), SCRIPT);
    await put(path.join(epL, "series.json"), JSON.stringify(seriesS()));
    await mkdir(path.join(epL, "refs"), { recursive: true });
    await symlink(outside, path.join(epL, "refs", "_takes"));
    const listed = await json("GET", "/refs", { ep: epL });
    expect(listed.text).not.toContain(SECRET);
    // biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
    expect(listed.body.refs.flatMap((r: any) => r.takes)).toEqual([]);
    for (const [method, route, input] of [
      ["PUT", "/refs/pick", { ep: epL, ref: "subject:kettle", take: 1 }],
      ["POST", "/refs/import", { ep: epL, ref: "subject:kettle", source_path: "epL.md" }],
      ["POST", "/refs/discard", { ep: epL, ref: "subject:kettle", take: 1 }],
    ] as const) {
      const got = await json(method, route, input);
      expect(got.status, `${method} ${route}: ${got.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
      expect(got.status, `${method} ${route}: ${got.text.slice(0, 300)}`).toBeLessThan(500);
      expect(got.text).not.toContain(SECRET);
    }
    expect(await snapshot(outside, [])).toEqual(before);
  });

  it("long names and names ending in a dot or a space are a 400 naming the rule", async () => {
    const long = await json("GET", "/file", { ep, path: `${"a".repeat(256)}.png` });
    expect(long.status, long.text).toBe(400);
    expect(long.body.error).toMatch(/longer than 255 bytes/);
    const longPath = await json("GET", "/episode", { ep: `${ep}/${"ab/".repeat(1400)}` });
    expect(longPath.status).toBe(400);
    expect(longPath.body.error).toMatch(/at most 4096/);
    for (const bad of [`${ep}.`, `${ep} `]) {
      const got = await json("GET", "/episode", { ep: bad });
      expect(got.status, got.text).toBe(400);
      expect(got.body.error).toMatch(/ending in a dot or a space/);
    }
    const dotted = await json("GET", "/file", { ep, path: "ep01.md." });
    expect(dotted.status).toBe(400);
  });
});

// ------------------------------------------------------------------------------------------ the corpus

/** A valid input per route: the crafted value replaces one field at a time. */
function baseInputs(): Record<string, Input> {
  const shot = { ep, pass: "proxy", shot: "sh010" };
  return {
    "GET /episode": { ep, pass: "proxy" },
    "GET /shot": shot,
    "GET /episode/new": { parent: show },
    "POST /episode/new": { parent: show, name: "ep50" },
    "POST /import": { parent: show, scripts: [{ name: "x.md", text: "= ep60  T\n" }] },
    "POST /build": { ep },
    "POST /assemble": { ep, pass: "final" },
    "GET /assemble/last": { ep, pass: "final" },
    "GET /timeline": { ep, pass: "final", format: "edl" },
    "POST /master": { ep, action: "plan" },
    "GET /master/job": { ep },
    "POST /source/check": { ep, file: "script", text: SCRIPT },
    "GET /source": { ep, file: "script" },
    "PUT /source": { ep, file: "script", text: SCRIPT, base_hash: "0", rebuild: false },
    "GET /source/history": { ep, file: "script" },
    "GET /source/version": { ep, file: "script", id: "20240101-000000" },
    "GET /promote": { ep },
    "POST /promote": { ep, items: [], hashes: { script: "0", series: "0" } },
    "POST /shot/preview": { ...shot, text: SCRIPT },
    "GET /file": { ep, path: "ep01.md" },
    "GET /thumb": { ep, path: "renders_proxy/sh010/sh010_t01.jpg", w: "64" },
    "GET /peaks": { ep, path: "ep01.md" },
    "POST /cut/copy": { ep, from: "proxy", to: "final", what: "order" },
    "PUT /cut": { ep, pass: "proxy", entries: [] },
    "POST /cut/reset": { ep, pass: "proxy", what: "order" },
    "POST /discard": { ...shot, take: 99 },
    "PUT /episode-target": { ep, target: null },
    "DELETE /issues": { ep, id: "i_none" },
    "GET /issues/export": { ep },
    "GET /issues": { ep },
    "POST /issues": { ...shot, note: "n" },
    "DELETE /override": shot,
    "PUT /override": { ...shot, fields: {} },
    "PUT /pick": { ...shot, take: 1 },
    "POST /render": { ep, pass: "proxy", shots: ["sh099"] },
    "POST /cancel": { ...shot, take: 99 },
    "POST /post": { ep, shots: ["sh099"], blur: 0.5 },
    "DELETE /post": { ep, shot: "sh010", take: "99" },
    "GET /post/options": { ep },
    "POST /upscale": { ep, shots: ["sh099"] },
    "DELETE /upscale": { ep, shot: "sh010", take: "99" },
    "GET /upscale/options": { ep },
    "PUT /upscale/keep": { ep, shot: "sh010", take: 99, keep: true },
    "PUT /upscale/recipe": { ep, shot: "sh010", recipe: null },
    "GET /targets": { ep },
    "GET /models": { target: "animatic", ep },
    "GET /refs": { ep },
    "GET /refs/owner-takes": { ep, ref: "subject:ada" },
    "PUT /refs/pick": { ep, ref: "subject:kettle", take: 99 },
    "DELETE /refs/pick": { ep, ref: "location:street" },
    "POST /refs/discard": { ep, ref: "subject:kettle", take: 99 },
    "POST /refs/copy-take": { ep, ref: "location:kitchen", take: 99, to: "location:street" },
    "PUT /refs/override": { ep, ref: "location:kitchen", fields: {} },
    "DELETE /refs/override": { ep, ref: "location:kitchen" },
    "PUT /refs/defaults": { ep, target: null },
    "POST /refs/match": { ep, names: ["ada.png"] },
    "POST /refs/import": { ep, ref: "subject:kettle", source_path: "ep01.md" },
    "POST /refs/video": { ep, source_path: "ep01.md" },
    "POST /align": { ep, dry_run: true },
    "POST /track": { ep, source_path: "ep01.md" },
    "POST /audio/import": { ep, source_path: "ep01.md" },
    "GET /refs/videos": { ep },
    "POST /refs/keyframe": { ep, pass: "proxy", shot: "sh020" },
    "POST /refs/tour": { ep, ref: "location:kitchen", move: "push_in" },
    "POST /refs/tour-frame": { ep, ref: "location:kitchen", tour: 1, seconds: 1 },
    "POST /refs/from-frame": { ep, video: "refs/_videos/clip.mp4", time: 0, ref: "location:kitchen" },
    "POST /refs/voice-from-take": { ep, ref: "voice:ada", shot: "sh010", take: 99, end: 1 },
    "POST /refs/relight": { ep, relight: "night", locations: ["kitchen"], dry_run: true },
    "POST /refs/generate": { ep, ref: "location:kitchen" },
    "POST /refs/generate-missing": { ep, dry_run: true },
    "POST /clip/queue": { ep, shot: "sh010", pass: "proxy", still: true, image_target: "no_such_target" },
    "POST /clips/ensure": { root },
    "POST /clips/new": { title: "Corpus clips", root },
    "GET /presets": { ep },
    "POST /presets/own": { ep, label: "Corpus", kind: "image", target: "card" },
    "POST /presets/own/picture": { id: "corpus", source_path: path.join(ep, "ep01.md") },
    "POST /presets/own/render": { ep, id: "corpus" },
    "GET /drafts": { ep },
    "POST /targets/router-dryrun": { ep, shot: "sh010", target: "router_corpus", pass: "final" },
    "PUT /targets/limits": { ep, target: "animatic", limits: {} },
    "POST /workflow/install": { target: "wan22_ti2v", name: "corpus.json" },
    "DELETE /workflow/install": { target: "wan22_ti2v", name: "corpus.json" },
    "POST /targets/inspect": { ep, workflow: "corpus.json" },
    "PUT /targets/custom": { ep, scope: "show", id: "corpus_custom", draft: false },
    "DELETE /targets/custom": { ep, scope: "show", id: "corpus_custom" },
  };
}

// Routes whose path-like fields are not show files, why they are left out of the 4xx rule, and whether the
// corpus is still sent to them (to check for 5xx and leaks) or would change the very settings under test.
const EXEMPT: Record<string, { why: string; send: boolean }> = {
  "GET /browse": {
    why: "the folder picker lists folder names anywhere so a root can be chosen; it reads no file",
    send: true,
  },
  "PUT /config": {
    why: "choosing the roots is this route's job; it writes only the settings folder",
    send: false,
  },
  "PUT /settings": { why: "the engine path is a setting; it writes only the settings folder", send: false },
  "GET /models/:folder": { why: "forwarded to the engine as one URL-encoded segment", send: true },
  "GET /object_info/:node": { why: "forwarded to the engine as one URL-encoded segment", send: true },
};

/** Values that are a fair answer in some fields (a root is a fine `parent`, "0" a fine folder `name`). */
function ambiguous(): Set<string> {
  return new Set([root, root2Link, "leak.txt", "outdir", "0", "-1", "1e309"]);
}

/**
 * Routes that answer per item by contract (a render's per-shot errors, a preview's `ok: false`): a 200 that
 * queues, writes and compiles nothing counts as a refusal.
 */
// biome-ignore lint/suspicious/noExplicitAny: the answer is looked at loosely
function refusedInBand(body: any): boolean {
  if (!body || typeof body !== "object") return false;
  if (body.ok === false) return true;
  return (
    Array.isArray(body.queued) &&
    body.queued.length === 0 &&
    Array.isArray(body.errors) &&
    body.errors.length > 0
  );
}

function crafted(): string[] {
  return [
    "..",
    "../outside/secret.txt",
    "../../outside",
    "../../../outside/secret.txt",
    "./../x",
    "%2e%2e/outside",
    "%2E%2E%2Foutside",
    "%252e%252e%252fsecret.txt",
    "..%2fsecret.txt",
    "..%5csecret.txt",
    "%00",
    "..\\..\\outside\\secret.txt",
    "sub\\..\\..\\x",
    path.join(outside, "secret.txt"),
    outside,
    path.join(outside, "ep09"),
    `${root}/../outside`,
    `${ep}/../../../outside`,
    root,
    root2Link,
    path.join(root, "outlink"),
    path.join(root, "outlink", "ep09"),
    "C:\\Windows\\win.ini",
    "C:/x",
    "c:",
    "\\\\server\\share\\x",
    "//server/share/x",
    "\\\\?\\C:\\x",
    "x\0y",
    "a".repeat(300),
    `${"ab/".repeat(1400)}x`,
    "ep01.",
    "ep01 ",
    "sh010.",
    "leak.txt",
    "outdir/secret.txt",
    "outdir",
    "",
    "   ",
    "-1",
    "0",
    "1e309",
  ];
}

type Shape = Record<string, { safeParse(v: unknown): { success: boolean } }>;

/** The fields of a route's input; a raw-body route's input is an optional object (absent for an upload). */
function inputShape(fn: StudioFunction): Shape | undefined {
  const input = fn.input as unknown as { shape?: Shape; unwrap?: () => { shape?: Shape } } | undefined;
  return input?.shape ?? input?.unwrap?.().shape;
}

function optionalFields(fn: StudioFunction): string[] {
  const shape = inputShape(fn);
  return shape ? Object.keys(shape).filter((k) => shape[k].safeParse(undefined).success) : [];
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const routeKey = (fn: StudioFunction) => `${fn.method} ${fn.path}`;

function pathFields(fn: StudioFunction): string[] {
  const shape = inputShape(fn);
  return shape ? Object.keys(shape).filter((k) => PATH_FIELDS.includes(k)) : [];
}

describe("crafted-path corpus", () => {
  it("covers every route that takes a path-like field", () => {
    const bases = baseInputs();
    const missing = functions
      .filter((fn) => pathFields(fn).length > 0)
      .map(routeKey)
      .filter((k) => !(k in bases) && !(k in EXEMPT));
    expect(missing, "routes taking ep/path/shot/take/file/name with no corpus entry").toEqual([]);
    // Entries for routes that no longer exist would test nothing.
    const known = new Set(functions.map(routeKey));
    expect(Object.keys(bases).filter((k) => !known.has(k))).toEqual([]);
  });

  it("answers 4xx to every crafted value on every such route, leaks nothing and changes nothing outside", async () => {
    const skip = [root, root2Real, env.home];
    const before = await snapshot(base, skip);
    const bases = baseInputs();
    const failures: string[] = [];
    let sent = 0;
    for (const fn of functions) {
      const fields = pathFields(fn);
      const key = routeKey(fn);
      if (fields.length === 0) continue;
      const exempt = key in EXEMPT;
      if (exempt && !EXEMPT[key].send) continue;
      const optional = new Set(optionalFields(fn));
      const start = bases[key] ?? {};
      for (const field of fields) {
        for (const value of crafted()) {
          // An empty optional field is the field not given.
          if (value === "" && optional.has(field)) continue;
          const input = { ...start, [field]: field === "shots" || field === "roots" ? [value] : value };
          const got = await request(fn, input);
          sent++;
          const shown = `${key} ${field}=${JSON.stringify(value).slice(0, 60)} -> ${got.status} ${got.text.slice(0, 160)}`;
          if (got.text.includes(SECRET)) failures.push(`leaked: ${shown}`);
          if (got.status >= 500 && !(exempt && (got.status === 502 || got.status === 503))) {
            failures.push(`5xx: ${shown}`);
          }
          if (exempt || ambiguous().has(value)) continue;
          if (got.status < 300 && refusedInBand(parse(got.text))) continue;
          if (got.status < 400 || got.status >= 500) failures.push(`not 4xx: ${shown}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(500);
    const after = await snapshot(base, skip);
    const changed = [...new Set([...before.keys(), ...after.keys()])].filter(
      (k) => before.get(k) !== after.get(k),
    );
    expect(changed, "files outside the roots and the settings folder").toEqual([]);
  }, 600_000);
});
