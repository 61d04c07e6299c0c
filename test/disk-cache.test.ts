// Light GETs do not re-check the disk for what has not moved: missing JSON files remembered against their folder,
// roots and episode folders resolved from one lstat, one read of the build and take lists per episode answer.
// Each shortcut is checked for what it must still see: our own writes, files dropped in from outside, links.
import { mkdir, rename, rm, symlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readConfig, writeConfig } from "../lib/config/config.ts";
import { readSettings } from "../lib/config/settings.ts";
import { writeSettings } from "../lib/config/settings-store.ts";
import { resolveEpisode } from "../lib/paths/episode.ts";
import { writeFileAtomic } from "../lib/store/atomic.ts";
import { createCaches } from "../lib/store/caches.ts";
import { readJsonFile } from "../lib/store/json-file.ts";
import { callsOn, recordFsCalls } from "./support/fs-calls.ts";
import { seriesS } from "./support/series-s.ts";
import { SCRIPT, useStudio } from "./support/studio-episode.ts";

const studio = useStudio({ outside: true });

/** Give a folder an mtime an hour old, as any folder nobody wrote to lately has. */
const settle = (dir: string) => utimes(dir, new Date(Date.now() - 3600_000), new Date(Date.now() - 3600_000));

let n = 0;
async function settledFolder(): Promise<string> {
  const dir = path.join(studio.env.dir, `json${++n}`);
  await mkdir(dir);
  await settle(dir);
  return dir;
}

describe("missing JSON files", () => {
  it("are answered from one stat of their settled folder, not a failing stat of the file", async () => {
    const services = { caches: createCaches() };
    const dir = await settledFolder();
    const file = path.join(dir, "absent.json");
    expect(await readJsonFile(services, file, "test")).toBeUndefined();
    const { result, calls } = await recordFsCalls(() => readJsonFile(services, file, "test"));
    expect(result).toBeUndefined();
    expect(callsOn(calls, "stat", file)).toBe(0);
    expect(callsOn(calls, "stat", dir)).toBe(1);
  });

  it("show a file dropped in from outside on the next read, even with the folder's mtime put back", async () => {
    const services = { caches: createCaches() };
    const dir = await settledFolder();
    const file = path.join(dir, "later.json");
    expect(await readJsonFile(services, file, "test")).toBeUndefined();
    expect(await readJsonFile(services, file, "test")).toBeUndefined();
    await writeFile(file, '{"a": 1}');
    expect(await readJsonFile(services, file, "test")).toEqual({ a: 1 });

    const other = path.join(dir, "other.json");
    await settle(dir);
    expect(await readJsonFile(services, other, "test")).toBeUndefined();
    await writeFile(other, '{"b": 2}');
    // Put back to the very mtime it had: the change time still moved.
    await settle(dir);
    expect(await readJsonFile(services, other, "test")).toEqual({ b: 2 });
  });

  it("show a file whose folders were missing too once they are made", async () => {
    const services = { caches: createCaches() };
    const dir = await settledFolder();
    const file = path.join(dir, "a", "b", "deep.json");
    expect(await readJsonFile(services, file, "test")).toBeUndefined();
    expect(await readJsonFile(services, file, "test")).toBeUndefined();
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, "[1]");
    expect(await readJsonFile(services, file, "test")).toEqual([1]);
  });

  it("show our own atomic write at once, and do not trust a folder that changed a moment ago", async () => {
    const services = { caches: createCaches() };
    const dir = await settledFolder();
    const file = path.join(dir, "own.json");
    expect(await readJsonFile(services, file, "test")).toBeUndefined();
    await writeFileAtomic(file, '{"own": true}');
    expect(await readJsonFile(services, file, "test")).toEqual({ own: true });
    await rm(file);
    // The folder's mtime is now: the file is stat'ed again on every read until it settles.
    expect(await readJsonFile(services, file, "test")).toBeUndefined();
    const { calls } = await recordFsCalls(() => readJsonFile(services, file, "test"));
    expect(callsOn(calls, "stat", file)).toBe(1);
  });

  it("never take a dangling link for a missing file", async () => {
    const services = { caches: createCaches() };
    const dir = await settledFolder();
    const target = path.join(await settledFolder(), "target.json");
    const link = path.join(dir, "link.json");
    await symlink(target, link);
    await settle(dir);
    expect(await readJsonFile(services, link, "test")).toBeUndefined();
    expect(await readJsonFile(services, link, "test")).toBeUndefined();
    // The target appears in another folder: the link's own folder did not change.
    await writeFile(target, '{"via": "link"}');
    expect(await readJsonFile(services, link, "test")).toEqual({ via: "link" });
  });

  it("GET /studio/config looks once at the settled settings folder while neither file is there", async () => {
    const services = studio.env.services;
    const studioDir = path.join(services.home, "default", "studio");
    await mkdir(studioDir, { recursive: true });
    await settle(studioDir);
    expect((await studio.call("GET", "/config")).status).toBe(200);
    const { result, calls } = await recordFsCalls(() => studio.call("GET", "/config"));
    expect(result.body.roots).toEqual([studio.root]);
    expect(calls).toEqual([{ name: "stat", path: studioDir }]);
  });

  it("config and settings written through the service read back at once; a file put in by hand too", async () => {
    const services = studio.env.services;
    const studioDir = path.join(services.home, "default", "studio");
    await mkdir(studioDir, { recursive: true });
    await settle(studioDir);
    expect((await readConfig(services)).review_copy).toBe(false);
    expect((await readConfig(services)).review_copy).toBe(false);
    await writeConfig(services, { roots: [studio.root], review_copy: true });
    expect((await readConfig(services)).review_copy).toBe(true);

    await settle(studioDir);
    expect((await readSettings(services)).local_url).toBeUndefined();
    await writeSettings(services, { local_url: "http://127.0.0.1:9999" });
    expect((await readSettings(services)).local_url).toBe("http://127.0.0.1:9999");
    expect((await readConfig(services)).engine).toBe("http://127.0.0.1:9999");

    await rm(path.join(studioDir, "settings.json"));
    await settle(studioDir);
    expect((await readSettings(services)).engine_url).toBeUndefined();
    await writeFile(path.join(studioDir, "settings.json"), '{"engine_url": "http://127.0.0.1:7777"}');
    expect((await readConfig(services)).engine).toBe("http://127.0.0.1:7777");
    await rm(path.join(studioDir, "settings.json"));
    await rm(path.join(studioDir, "config.json"));
    expect((await readConfig(services)).roots).toEqual([studio.root]);
  });
});

describe("roots and episode folders", () => {
  it("resolve again from one lstat of the episode folder once resolved", async () => {
    const ep = await studio.folder({ "x.txt": "x" });
    const services = studio.env.services;
    expect(await resolveEpisode(ep, services)).toBe(ep);
    const { result, calls } = await recordFsCalls(() => resolveEpisode(ep, services));
    expect(result).toBe(ep);
    expect(calls.filter((c) => c.name === "realpath")).toEqual([]);
    expect(callsOn(calls, "lstat", ep)).toBe(1);
  });

  it("refuse an episode folder swapped for a link leading out after it was resolved", async () => {
    const ep = await studio.folder({ "ep01.md": "= e01  T\n" });
    const services = studio.env.services;
    await resolveEpisode(ep, services);
    const away = path.join(studio.outside, `away${++n}`);
    await rename(ep, away);
    await symlink(away, ep);
    await expect(resolveEpisode(ep, services)).rejects.toMatchObject({ status: 403 });
    expect((await studio.call("GET", "/episode", { ep })).status).toBe(403);
  });

  it("refuse an episode whose show folder became a link leading out, wherever the link leads", async () => {
    const ep = await studio.episode(SCRIPT);
    const services = studio.env.services;
    expect((await studio.call("GET", "/episode", { ep, pass: "proxy" })).status).toBe(200);
    const show = path.dirname(ep);

    // A link to another folder holding an ep01 of its own: another folder, resolved afresh.
    const elsewhere = path.join(studio.outside, `elsewhere${++n}`);
    await mkdir(path.join(elsewhere, "ep01"), { recursive: true });
    await rename(show, `${show}.old`);
    await symlink(elsewhere, show);
    await expect(resolveEpisode(ep, services)).rejects.toMatchObject({ status: 403 });
    await rm(show);

    // The very episode folder moved out with its show and a link left in the show's place: every read through
    // the old path resolves to the outside and is refused.
    const movedShow = path.join(studio.outside, `moved${++n}`);
    await rename(`${show}.old`, movedShow);
    await symlink(movedShow, show);
    const answer = await studio.call("GET", "/episode", { ep, pass: "proxy" });
    expect(answer.status).toBe(403);
    expect(JSON.stringify(answer.body)).not.toContain("sh010");
    expect((await studio.call("GET", "/file", { ep, path: "ep01.md" })).status).toBe(403);
  });

  it("see an episode folder removed and made again, and a file put in its place", async () => {
    const ep = await studio.folder({});
    const services = studio.env.services;
    await resolveEpisode(ep, services);
    await rm(ep, { recursive: true });
    await expect(resolveEpisode(ep, services)).rejects.toMatchObject({ status: 404 });
    await writeFile(ep, "a file");
    await expect(resolveEpisode(ep, services)).rejects.toMatchObject({ status: 404 });
    await rm(ep);
    await mkdir(ep);
    expect(await resolveEpisode(ep, services)).toBe(ep);
  });

  it("refuse a root swapped for a link to a folder outside", async () => {
    const services = studio.env.services;
    const ep = await studio.folder({});
    await resolveEpisode(ep, services);
    const root = path.join(studio.outside, `root${++n}`);
    const real = path.join(studio.outside, `real${++n}`);
    await mkdir(path.join(root, "show", "ep01"), { recursive: true });
    await mkdir(path.join(real, "show", "ep01"), { recursive: true });
    services.env.STUDIO_ROOTS = root;
    try {
      expect(await resolveEpisode(path.join(root, "show", "ep01"), services)).toBe(
        path.join(root, "show", "ep01"),
      );
      await rename(root, `${root}.old`);
      await symlink(real, root);
      // The root now is the link's target: an episode is judged against it and resolves there.
      expect(await resolveEpisode(path.join(root, "show", "ep01"), services)).toBe(
        path.join(real, "show", "ep01"),
      );
    } finally {
      services.env.STUDIO_ROOTS = studio.root;
    }
  });
});

describe("GET /studio/episode", () => {
  it("reads the build and each shot folder once for the sweep and the status together", async () => {
    const ep = await studio.episode(SCRIPT);
    await studio.take(ep, "proxy", "sh010", 1);
    await settle(path.join(ep, "renders_proxy", "sh010"));
    await settle(path.join(ep, "renders_proxy"));
    await studio.call("GET", "/episode", { ep, pass: "proxy" });
    const { result, calls } = await recordFsCalls(() =>
      studio.call("GET", "/episode", { ep, pass: "proxy" }),
    );
    expect(result.status).toBe(200);
    expect(callsOn(calls, "readdir", path.join(ep, "shotlist"))).toBe(1);
    expect(callsOn(calls, "stat", path.join(ep, "renders_proxy"))).toBe(1);
    expect(callsOn(calls, "stat", path.join(ep, "renders_proxy", "sh010"))).toBe(1);
    // Shots without a folder in the (settled) pass folder are not asked about one by one.
    for (const shot of ["sh020", "sh030"]) {
      expect(calls.filter((c) => c.path.startsWith(path.join(ep, "renders_proxy", shot)))).toEqual([]);
    }
  });

  it("sees a shot folder made after the pass folder was listed, even with its mtime put back", async () => {
    const ep = await studio.episode(SCRIPT);
    await studio.take(ep, "proxy", "sh010", 1);
    await settle(path.join(ep, "renders_proxy"));
    const takesOf = async (shot: string) =>
      (await studio.call("GET", "/episode", { ep, pass: "proxy" })).body.shots.find(
        (s: { shot: string }) => s.shot === shot,
      ).takes;
    expect(await takesOf("sh020")).toEqual([]);
    expect(await takesOf("sh020")).toEqual([]);
    await studio.take(ep, "proxy", "sh020", 1);
    await settle(path.join(ep, "renders_proxy"));
    expect((await takesOf("sh020")).map((t: { take: number }) => t.take)).toEqual([1]);
  });

  it("answers from the last answer only while every file it looked at is unchanged", async () => {
    const series = seriesS();
    series.series.target = "minimax_h3_ref2va";
    series.audio.track = "audio/track.wav";
    const ep = await studio.episode(SCRIPT, { series });
    await studio.take(ep, "proxy", "sh010", 1);
    const get = () => studio.call("GET", "/episode", { ep, pass: "proxy" });
    const first = await get();
    expect((await get()).body).toEqual(first.body);
    expect(first.body.track).toMatchObject({ path: "audio/track.wav", exists: false });
    const missing = first.body.shots[0].missing_refs.map((m: { path: string }) => m.path);
    expect(missing).toContain("refs/ada/ada_sheet_4panel.png");
    // A missing reference appears: the next answer no longer names it.
    await mkdir(path.join(ep, "refs", "ada"), { recursive: true });
    await writeFile(path.join(ep, "refs", "ada", "ada_sheet_4panel.png"), "png");
    const after = await get();
    expect(after.body.shots[0].missing_refs.map((m: { path: string }) => m.path)).not.toContain(
      "refs/ada/ada_sheet_4panel.png",
    );
    expect((await get()).body).toEqual(after.body);
    // So does the series' dialogue track.
    await mkdir(path.join(ep, "audio"));
    await writeFile(path.join(ep, "audio", "track.wav"), "wav");
    expect((await get()).body.track).toMatchObject({ exists: true });
  });

  it("sees a take's upscale record rewritten in place (same names in the folder)", async () => {
    const ep = await studio.episode(SCRIPT);
    const stem = await studio.take(ep, "proxy", "sh010", 1);
    const record = path.join(ep, "renders_proxy", "sh010", `${stem}.up.json`);
    await writeFile(record, JSON.stringify({ status: "queued", width: 1024 }));
    const take = async () =>
      (await studio.call("GET", "/episode", { ep, pass: "proxy" })).body.shots[0].takes[0];
    expect((await take()).upscale).toMatchObject({ status: "queued" });
    await writeFileAtomic(record, JSON.stringify({ status: "failed", width: 1024 }));
    expect((await take()).upscale).toMatchObject({ status: "failed" });
  });
});
