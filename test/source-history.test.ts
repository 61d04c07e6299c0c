// GET /studio/source/history and /studio/source/version (extra routes) called as the runtime calls them: the copies
// saves leave in _history/ listed newest first and read back as text; bad and unknown ids refused.
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { versionWhen } from "../lib/episode/history-read.ts";
import { seriesS } from "./support/series-s.ts";
import { useStudio } from "./support/studio-episode.ts";

const studio = useStudio({ outside: true });
beforeEach(() => {
  studio.env.services.now = () => new Date();
});

const V1 = ["= e01  T", "# sq01 kitchen", "## sh010", "who: ada", "dur: 3", "Ada waits."].join("\n");
const V2 = `${V1}\nShe looks up.`;
const V3 = `${V2}\nRain.`;

/** Save `text` over the script at the given local time; the copy of the text before gets that time's stamp. */
async function save(ep: string, file: "script" | "series", text: string, at: Date) {
  studio.env.services.now = () => at;
  const now = await studio.call("GET", "/source", { ep, file, hash_only: "1" });
  const saved = await studio.call("PUT", "/source", {
    ep,
    file,
    text,
    base_hash: now.body.hash,
    rebuild: false,
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
}

const list = (ep: string, file = "script") => studio.call("GET", "/source/history", { ep, file });
const version = (ep: string, id: string, file = "script") =>
  studio.call("GET", "/source/version", { ep, file, id });

describe("GET /studio/source/history", () => {
  it("lists the script's copies newest first, a second copy of one second after the first", async () => {
    const ep = await studio.folder({ "series.json": seriesS(), "ep01.md": V1 });
    await save(ep, "script", V2, new Date(2024, 0, 2, 3, 4, 5));
    await save(ep, "script", V3, new Date(2024, 0, 2, 3, 4, 5));
    await save(ep, "script", V1, new Date(2024, 5, 30, 23, 59, 59));
    const got = await list(ep);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      file: "script",
      versions: [
        { id: "20240630-235959", when: "2024-06-30T23:59:59", size: Buffer.byteLength(V3) },
        { id: "20240102-030405-2", when: "2024-01-02T03:04:05", size: Buffer.byteLength(V2) },
        { id: "20240102-030405", when: "2024-01-02T03:04:05", size: Buffer.byteLength(V1) },
      ],
    });
    // The series config has copies of its own (none yet), never the script's.
    expect((await list(ep, "series")).body).toEqual({ file: "series", versions: [] });
  });

  it("answers no versions when _history/ does not exist, and skips names that are no copy of this file", async () => {
    const ep = await studio.folder({ "series.json": seriesS(), "ep01.md": V1 });
    expect((await list(ep)).body).toEqual({ file: "script", versions: [] });
    await mkdir(path.join(ep, "_history", "ep01.md.20240101-000000-3"), { recursive: true });
    for (const name of [
      "ep01.md.notes",
      "ep01.md.20241399-000000",
      "ep02.md.20240101-000000",
      "cut.json.20240101-000000",
    ])
      await writeFile(path.join(ep, "_history", name), "x");
    await writeFile(path.join(ep, "_history", "ep01.md.20240101-000000"), "old");
    expect((await list(ep)).body.versions).toEqual([
      { id: "20240101-000000", when: "2024-01-01T00:00:00", size: 3 },
    ]);
  });

  it("lists a parent folder config's copies kept in this episode", async () => {
    const ep = await studio.folder({ "../series.json": seriesS(), "ep01.md": V1 });
    const text = JSON.stringify({ ...seriesS(), style: { look: "ink" } }, null, 2);
    await save(ep, "series", text, new Date(2024, 2, 3, 4, 5, 6));
    const got = await list(ep, "series");
    expect(got.body.versions.map((v: { id: string }) => v.id)).toEqual(["20240303-040506"]);
    const old = await version(ep, "20240303-040506", "series");
    expect(old.status).toBe(200);
    expect(JSON.parse(old.body.text)).toEqual(seriesS());
  });

  it("refuses a bad file, an episode outside the roots and a _history/ linked out of the episode", async () => {
    const ep = await studio.folder({ "series.json": seriesS(), "ep01.md": V1 });
    expect((await list(ep, "notes")).status).toBe(400);
    expect((await studio.call("GET", "/source/history", { ep: studio.outside, file: "script" })).status).toBe(
      403,
    );
    await mkdir(path.join(studio.outside, "hist"), { recursive: true });
    await writeFile(path.join(studio.outside, "hist", "ep01.md.20240101-000000"), "SECRET");
    await symlink(path.join(studio.outside, "hist"), path.join(ep, "_history"));
    const got = await list(ep);
    expect(got.status).toBe(403);
    expect(JSON.stringify(got.body)).not.toContain("SECRET");
    const read = await version(ep, "20240101-000000");
    expect(read.status).toBe(403);
    expect(JSON.stringify(read.body)).not.toContain("SECRET");
  });
});

describe("GET /studio/source/version", () => {
  it("answers a copy's text with LF endings and no BOM, as GET /source reads a file", async () => {
    const raw = Buffer.from(`\ufeff${V1.replace(/\n/g, "\r\n")}`);
    const ep = await studio.folder({ "series.json": seriesS(), "ep01.md": raw });
    await save(ep, "script", V2, new Date(2024, 0, 2, 3, 4, 5));
    const got = await version(ep, "20240102-030405");
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      file: "script",
      id: "20240102-030405",
      when: "2024-01-02T03:04:05",
      text: V1,
    });
  });

  it("is 404 for an id with no copy, and for a copy of the other file", async () => {
    const ep = await studio.folder({ "series.json": seriesS(), "ep01.md": V1 });
    await save(ep, "script", V2, new Date(2024, 0, 2, 3, 4, 5));
    const missing = await version(ep, "20240102-030406");
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatch(/no history version 20240102-030406 of ep01\.md/);
    expect((await version(ep, "20240102-030405", "series")).status).toBe(404);
  });

  it("is 400 for anything that is not a version id, crafted paths included", async () => {
    const ep = await studio.folder({ "series.json": seriesS(), "ep01.md": V1 });
    await save(ep, "script", V2, new Date(2024, 0, 2, 3, 4, 5));
    await writeFile(path.join(ep, "secret.md"), "SECRET");
    for (const id of [
      "",
      "../x",
      "../ep01.md",
      "../../secret.md",
      "20240102-030405/../../secret.md",
      "20240102-030405%2f..",
      "20240102-030405\0",
      "20240102-030405-",
      "20240102-030405-0",
      "20240102-030405-x",
      "2024012-030405",
      "20241340-256199",
      " 20240102-030405",
      "20240102-030405 ",
      "ep01.md.20240102-030405",
      "..\\secret.md",
    ]) {
      const got = await version(ep, id);
      expect(got.status, `id ${JSON.stringify(id)}: ${JSON.stringify(got.body)}`).toBe(400);
      expect(got.body.error).toMatch(/id/);
      expect(JSON.stringify(got.body)).not.toContain("SECRET");
    }
  });
});

describe("version ids", () => {
  it("read as the local time they name, only when that time exists", () => {
    expect(versionWhen("20240229-235959")).toBe("2024-02-29T23:59:59");
    expect(versionWhen("20240102-030405-12")).toBe("2024-01-02T03:04:05");
    expect(versionWhen("20230229-000000")).toBeNull();
    expect(versionWhen("20240102-246000")).toBeNull();
    expect(versionWhen("20240102-030405-0")).toBeNull();
    expect(versionWhen("../20240102-030405")).toBeNull();
  });
});
