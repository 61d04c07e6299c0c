// GET and PUT /studio/source called as the runtime calls them: reading, and saving with its conflicts, no-ops
// and file style kept (script format 5.1, 5.4, test case 6.42; api extras 6, rule 17).
import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { seriesS } from "./support/series-s.ts";
import { useStudio } from "./support/studio-episode.ts";

const studio = useStudio();
const realNow = () => new Date();
beforeEach(() => {
  studio.env.services.now = realNow;
});

const sha1 = (bytes: Uint8Array | string) => createHash("sha1").update(bytes).digest("hex");
const script = (...shots: string[]) => ["= e01  T", "# sq01 kitchen", ...shots].join("\n");
const GOOD = script("## sh010", "who: ada", "dur: 3.04", "Ada waits.", "## sh020", "dur: 2", "Bo waits.");

/** A fresh episode `<root>/show<n>/ep01`; `parentSeries` puts the config in the show folder instead. */
const episode = (files: { series?: unknown; parentSeries?: unknown; script?: string | Uint8Array }) =>
  studio.folder({
    "series.json": files.series,
    "../series.json": files.parentSeries,
    "ep01.md": files.script,
  });

const get = (query: Record<string, string>) => studio.call("GET", "/source", query);
const put = (body: Record<string, unknown>) => studio.call("PUT", "/source", body);

const history = async (ep: string) =>
  (await readdir(path.join(ep, "_history")).catch(() => [] as string[])).sort();

describe("GET /studio/source", () => {
  it("answers the script as LF text with the hash of the bytes, mtime and shot spans", async () => {
    const ep = await episode({ series: seriesS(), script: GOOD });
    const { status, body } = await get({ ep, file: "script" });
    expect(status).toBe(200);
    expect(body).toEqual({
      file: "script",
      path: "ep01.md",
      text: GOOD,
      hash: sha1(GOOD),
      mtime: (await stat(path.join(ep, "ep01.md"))).mtimeMs / 1000,
      shots: [
        { id: "sh010", line: 3, end_line: 6 },
        { id: "sh020", line: 7, end_line: 9 },
      ],
    });
  });

  it("strips the BOM and CRLF from the text but hashes the raw bytes (6.42)", async () => {
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(GOOD.replace(/\n/g, "\r\n"))]);
    const ep = await episode({ series: seriesS(), script: raw });
    const { body } = await get({ ep, file: "script" });
    expect(body.text).toBe(GOOD);
    expect(body.hash).toBe(sha1(raw));
    expect(body.shots).toHaveLength(2);
  });

  it("gives no shot spans when the script does not parse against the config", async () => {
    const ep = await episode({ series: seriesS(), script: script("## sh010", "who: dan", "Dan waits.") });
    const { status, body } = await get({ ep, file: "script" });
    expect(status).toBe(200);
    expect(body.shots).toEqual([]);
  });

  it("answers the parent folder's config as ../series.json, without shot spans", async () => {
    const ep = await episode({ parentSeries: seriesS(), script: GOOD });
    const text = JSON.stringify(seriesS(), null, 2);
    const { status, body } = await get({ ep, file: "series" });
    expect(status).toBe(200);
    expect(body).toMatchObject({ file: "series", path: "../series.json", text, hash: sha1(text) });
    expect(body.shots).toBeUndefined();
  });

  it("answers only hash and mtime with hash_only", async () => {
    const ep = await episode({ series: seriesS(), script: GOOD });
    for (const flag of ["1", "true"]) {
      const { status, body } = await get({ ep, file: "script", hash_only: flag });
      expect(status).toBe(200);
      expect(Object.keys(body).sort()).toEqual(["file", "hash", "mtime"]);
      expect(body.hash).toBe(sha1(GOOD));
    }
    const bad = await get({ ep, file: "script", hash_only: "maybe" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^hash_only: /);
  });

  it("refuses an unknown file with 400, a missing file with 404, non-UTF-8 with 500", async () => {
    const ep = await episode({ series: seriesS(), script: GOOD });
    const unknown = await get({ ep, file: "cut" });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: expect.stringMatching(/^file: /) });

    const noScript = await episode({ series: seriesS() });
    const a = await get({ ep: noScript, file: "script" });
    expect(a.status).toBe(404);
    expect(a.body).toEqual({ error: expect.stringContaining("no script") });

    const noSeries = await episode({ script: GOOD });
    const b = await get({ ep: noSeries, file: "series" });
    expect(b.status).toBe(404);
    expect(b.body).toEqual({ error: expect.stringContaining("no series.json") });

    const latin1 = await episode({
      series: seriesS(),
      script: Buffer.from("= e01  T\n# sq01 caf\xe9\n", "latin1"),
    });
    const c = await get({ ep: latin1, file: "script" });
    expect(c.status).toBe(500);
    expect(c.body).toEqual({ error: "ep01.md is not UTF-8 text (first bad byte at offset 19)" });
  });

  it("checks the episode path first", async () => {
    const res = await get({ ep: "relative/ep01", file: "script" });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(["error"]);
  });
});

describe("PUT /studio/source", () => {
  it("keeps BOM and CRLF, copies the old bytes to _history, and uses -2 within one second (6.42)", async () => {
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(GOOD.replace(/\n/g, "\r\n"))]);
    const ep = await episode({ series: seriesS(), script: raw });
    const fixed = new Date(2024, 0, 2, 3, 4, 5);
    studio.env.services.now = () => fixed;
    const read = (await get({ ep, file: "script" })).body;
    const edited = read.text.replace("Ada waits.", "Ada waits longer.");
    const first = await put({ ep, file: "script", text: edited, base_hash: read.hash, rebuild: false });
    expect(first.status).toBe(200);
    const onDisk = await readFile(path.join(ep, "ep01.md"));
    expect(onDisk.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(onDisk.subarray(3).toString()).toBe(edited.replace(/\n/g, "\r\n"));
    expect(first.body).toMatchObject({ hash: sha1(onDisk), changed: true, build: null });
    expect(first.body.check.ok).toBe(true);
    expect(await history(ep)).toEqual(["ep01.md.20240102-030405"]);
    expect(await readFile(path.join(ep, "_history", "ep01.md.20240102-030405"))).toEqual(raw);

    const second = await put({
      ep,
      file: "script",
      text: `${edited}\n`,
      base_hash: first.body.hash,
      rebuild: false,
    });
    expect(second.status).toBe(200);
    expect(await history(ep)).toEqual(["ep01.md.20240102-030405", "ep01.md.20240102-030405-2"]);
    expect(await readFile(path.join(ep, "_history", "ep01.md.20240102-030405-2"))).toEqual(onDisk);
  });

  it("writes nothing and makes no copy for an identical text (a sent BOM is ignored)", async () => {
    const crlf = GOOD.replace(/\n/g, "\r\n");
    const ep = await episode({ series: seriesS(), script: crlf });
    const before = await stat(path.join(ep, "ep01.md"));
    const res = await put({
      ep,
      file: "script",
      text: `\ufeff${GOOD}`,
      base_hash: sha1(crlf),
      rebuild: false,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ hash: sha1(crlf), changed: false, build: null });
    expect(await history(ep)).toEqual([]);
    expect((await stat(path.join(ep, "ep01.md"))).mtimeMs).toBe(before.mtimeMs);
    expect(studio.env.events).toEqual([]);
  });

  it("answers a stale base_hash with 409 carrying the current hash, text and file", async () => {
    const ep = await episode({ series: seriesS(), script: GOOD });
    const res = await put({ ep, file: "script", text: "x", base_hash: sha1("older text") });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: expect.stringContaining("changed on disk"),
      hash: sha1(GOOD),
      text: GOOD,
      file: "script",
    });
    expect(await readFile(path.join(ep, "ep01.md"), "utf8")).toBe(GOOD);
  });

  it("refuses a save without base_hash", async () => {
    const ep = await episode({ series: seriesS(), script: GOOD });
    for (const body of [
      { ep, file: "script", text: GOOD },
      { ep, file: "script", text: GOOD, base_hash: "" },
    ]) {
      const res = await put(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringMatching(/^base_hash: required/) });
    }
  });

  it("refuses series text that is not JSON with line and col, writing nothing", async () => {
    const text = JSON.stringify(seriesS(), null, 2);
    const ep = await episode({ series: text, script: GOOD });
    const res = await put({
      ep,
      file: "series",
      text: '{\n  "series": {\n    "id": 1,,\n',
      base_hash: sha1(text),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: expect.stringContaining("not valid JSON"),
      line: 3,
      col: expect.any(Number),
    });
    expect(await readFile(path.join(ep, "series.json"), "utf8")).toBe(text);
    expect(await history(ep)).toEqual([]);
  });

  it("saves a script with errors and answers its check (ok false) and the failed build", async () => {
    const ep = await episode({ series: seriesS(), script: GOOD });
    const bad = script("## sh010", "who: dan", "Dan waits.");
    const res = await put({ ep, file: "script", text: bad, base_hash: sha1(GOOD) });
    expect(res.status).toBe(200);
    expect(res.body.check).toMatchObject({ ok: false, errors: [{ file: "script", line: 4 }] });
    expect(res.body.build.ok).toBe(false);
    expect(await readFile(path.join(ep, "ep01.md"), "utf8")).toBe(bad);
    // The failed build does not tell the pages; the save does, once.
    expect(studio.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);
  });

  it("rebuilds by default and emits studio.episode once", async () => {
    const ep = await episode({ series: seriesS(), script: GOOD });
    const edited = GOOD.replace("Bo waits.", "Bo sits.");
    const res = await put({ ep, file: "script", text: edited, base_hash: sha1(GOOD) });
    expect(res.status).toBe(200);
    expect(res.body.build).toMatchObject({ ok: true, passes: { final: { ok: true }, proxy: { ok: true } } });
    const shots = JSON.parse(await readFile(path.join(ep, "shotlist", "shots.json"), "utf8"));
    expect(JSON.stringify(shots)).toContain("Bo sits.");
    expect(studio.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);

    studio.env.events.length = 0;
    const quiet = await put({
      ep,
      file: "script",
      text: `${edited}\n`,
      base_hash: res.body.hash,
      rebuild: false,
    });
    expect(quiet.body.build).toBeNull();
    expect(studio.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);
  });

  it("saves a parent folder's config there and keeps its copy in this episode's _history", async () => {
    const text = JSON.stringify(seriesS(), null, 2);
    const ep = await episode({ parentSeries: `${text}\n`, script: GOOD });
    const s = seriesS();
    s.style.look = "a grainy 16mm look";
    const next = `${JSON.stringify(s, null, 2)}\n`;
    const res = await put({ ep, file: "series", text: next, base_hash: sha1(`${text}\n`) });
    expect(res.status).toBe(200);
    expect(res.body.check.ok).toBe(true);
    expect(await readFile(path.join(path.dirname(ep), "series.json"), "utf8")).toBe(next);
    const copies = await history(ep);
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatch(/^series\.json\.\d{8}-\d{6}$/);
    expect(await readFile(path.join(ep, "_history", copies[0]), "utf8")).toBe(`${text}\n`);
  });

  it("keeps the newest 30 copies of a file", async () => {
    const ep = await episode({ series: seriesS(), script: GOOD });
    let hash = sha1(GOOD);
    for (let i = 1; i <= 32; i++) {
      studio.env.services.now = () => new Date(2024, 5, 6, 7, 8, i);
      const res = await put({
        ep,
        file: "script",
        text: `${GOOD}\n// save ${i}`,
        base_hash: hash,
        rebuild: false,
      });
      expect(res.status).toBe(200);
      hash = res.body.hash;
    }
    const copies = await history(ep);
    const stamp = (i: number) => `ep01.md.20240606-0708${String(i).padStart(2, "0")}`;
    expect(copies).toEqual(Array.from({ length: 30 }, (_, k) => stamp(k + 3)));
    expect(await readFile(path.join(ep, "_history", stamp(32)), "utf8")).toBe(`${GOOD}\n// save 31`);
  });

  it("lets exactly one of two saves from the same base_hash win", async () => {
    const ep = await episode({ series: seriesS(), script: GOOD });
    const [a, b] = await Promise.all([
      put({ ep, file: "script", text: `${GOOD}\n// a`, base_hash: sha1(GOOD), rebuild: false }),
      put({ ep, file: "script", text: `${GOOD}\n// b`, base_hash: sha1(GOOD), rebuild: false }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const [won, lost] = a.status === 200 ? [a, b] : [b, a];
    const winner = won === a ? `${GOOD}\n// a` : `${GOOD}\n// b`;
    expect(lost.body).toEqual({
      error: expect.any(String),
      hash: won.body.hash,
      text: winner,
      file: "script",
    });
    expect(await readFile(path.join(ep, "ep01.md"), "utf8")).toBe(winner);
    const copies = await history(ep);
    expect(copies).toHaveLength(1);
    expect(await readFile(path.join(ep, "_history", copies[0]), "utf8")).toBe(GOOD);
  });

  it("refuses an unknown file kind", async () => {
    const ep = await episode({ series: seriesS(), script: GOOD });
    const res = await put({ ep, file: "cut", text: "", base_hash: "x" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(/^file: /) });
  });
});
