// POST /studio/discard: a take's files go to the trash, picks of it drop in both passes, numbers are never reused.
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { nextTakeNumber } from "../lib/episode/takes.ts";
import { refusal, SCRIPT, useStudio } from "./support/studio-episode.ts";

const s = useStudio();
beforeEach(() => {
  s.env.services.now = () => new Date();
});

const ls = async (dir: string) => (await readdir(dir).catch(() => [] as string[])).sort();

describe("POST /studio/discard", () => {
  it("moves the sidecar, every file sharing the stem and the files it names; picks drop in both passes, numbers are not reused", async () => {
    const ep = await s.episode(SCRIPT);
    const dir = path.join(ep, "renders_proxy", "sh020");
    await s.take(ep, "proxy", "sh020", 2);
    await s.take(ep, "proxy", "sh020", 3, {
      status: "failed",
      mp4: true,
      sidecar: {
        thumb: "poster.jpg",
        latent: "sh020_t03.latent.safetensors",
        refs: [
          { slot: "Picture 1", role: "sheet", path: "renders_proxy/sh020/composed_sheet.png" },
          { slot: "Picture 2", path: "refs/ada/ada_sheet_4panel.png" },
        ],
      },
    });
    await s.take(ep, "proxy", "sh020", 30);
    for (const f of [
      "sh020_t03.shotlist.json",
      "sh020_t03_h3.wav",
      "sh020_t03.latent.safetensors",
      "poster.jpg",
      "composed_sheet.png",
      "unrelated.txt",
    ]) {
      await writeFile(path.join(dir, f), f);
    }
    await mkdir(path.join(dir, "frames"));
    await writeFile(path.join(dir, "frames", "sh020_t03_000000.png"), "png");
    await writeFile(path.join(dir, "frames", "sh020_t30_000000.png"), "png");
    await writeFile(
      path.join(ep, "cut.json"),
      JSON.stringify({
        episode: "e01",
        final: [
          { shot: "sh010", take: 3 },
          { shot: "sh020", take: 3, pass: "proxy", note: "placeholder" },
        ],
        proxy: [{ shot: "sh010", take: 3 }, { shot: "sh020", take: 3, trim_in: 2 }, { shot: "sh030" }],
      }),
    );

    const res = await s.call("POST", "/discard", { ep, pass: "proxy", shot: "sh020", take: 3 });
    expect(res.status).toBe(200);
    const trash = "renders_proxy/_trash/sh020";
    expect(res.body).toEqual({
      shot: "sh020",
      take: 3,
      pass: "proxy",
      moved: [
        `${trash}/composed_sheet.png`,
        `${trash}/frames/sh020_t03_000000.png`,
        `${trash}/poster.jpg`,
        `${trash}/sh020_t03.jpg`,
        `${trash}/sh020_t03.json`,
        `${trash}/sh020_t03.latent.safetensors`,
        `${trash}/sh020_t03.mp4`,
        `${trash}/sh020_t03.shotlist.json`,
        `${trash}/sh020_t03_h3.wav`,
        `${trash}/sh020_t03_strip.jpg`,
      ],
      cut_changed: true,
    });
    for (const rel of res.body.moved) expect(await readFile(path.join(ep, rel))).toBeTruthy();
    expect(await ls(dir)).toEqual([
      "frames",
      "sh020_t02.jpg",
      "sh020_t02.json",
      "sh020_t02.mp4",
      "sh020_t02_strip.jpg",
      "sh020_t30.jpg",
      "sh020_t30.json",
      "sh020_t30.mp4",
      "sh020_t30_strip.jpg",
      "unrelated.txt",
    ]);
    expect(await ls(path.join(dir, "frames"))).toEqual(["sh020_t30_000000.png"]);
    const cut = await s.readJson(path.join(ep, "cut.json"));
    expect(cut).toEqual({
      episode: "e01",
      final: [
        { shot: "sh010", take: 3 },
        { shot: "sh020", pass: "proxy", note: "placeholder" },
      ],
      proxy: [{ shot: "sh010", take: 3 }, { shot: "sh020", trim_in: 2 }, { shot: "sh030" }],
    });
    expect((await ls(path.join(ep, "_history"))).filter((n) => n.startsWith("cut.json."))).toHaveLength(1);
    expect(s.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);
  });

  it("never gives a number out again: the trash counts for the next take", async () => {
    const ep = await s.episode(SCRIPT);
    await s.take(ep, "proxy", "sh010", 1);
    await s.take(ep, "proxy", "sh010", 2);
    expect(await nextTakeNumber(ep, "proxy", "sh010")).toBe(3);
    expect((await s.call("POST", "/discard", { ep, pass: "proxy", shot: "sh010", take: 2 })).status).toBe(
      200,
    );
    expect(await nextTakeNumber(ep, "proxy", "sh010")).toBe(3);
    expect((await s.call("POST", "/discard", { ep, pass: "proxy", shot: "sh010", take: 1 })).status).toBe(
      200,
    );
    expect(await ls(path.join(ep, "renders_proxy", "sh010"))).toEqual([]);
    expect(await nextTakeNumber(ep, "proxy", "sh010")).toBe(3);
    // The final pass has its own numbers.
    expect(await nextTakeNumber(ep, "final", "sh010")).toBe(1);
  });

  it("puts the whole set in a <YYYYmmdd-HHMMSS>[-n] subfolder when a name is already in the trash", async () => {
    const ep = await s.episode(SCRIPT);
    s.env.services.now = () => new Date(2025, 0, 2, 3, 4, 5);
    const trash = path.join(ep, "renders", "_trash", "sh010");
    await mkdir(trash, { recursive: true });
    await writeFile(path.join(trash, "sh010_t01.jpg"), "an older discard");
    await s.take(ep, "final", "sh010", 1);
    const first = await s.call("POST", "/discard", { ep, pass: "final", shot: "sh010", take: 1 });
    expect(first.body.moved).toEqual([
      "renders/_trash/sh010/20250102-030405/sh010_t01.jpg",
      "renders/_trash/sh010/20250102-030405/sh010_t01.json",
      "renders/_trash/sh010/20250102-030405/sh010_t01.mp4",
      "renders/_trash/sh010/20250102-030405/sh010_t01_strip.jpg",
    ]);
    expect(first.body.cut_changed).toBe(false);
    expect(await readFile(path.join(trash, "sh010_t01.jpg"), "utf8")).toBe("an older discard");

    // The same name again in the same second: a -2 folder.
    await s.take(ep, "final", "sh010", 1);
    const second = await s.call("POST", "/discard", { ep, pass: "final", shot: "sh010", take: 1 });
    expect(second.body.moved[0]).toBe("renders/_trash/sh010/20250102-030405-2/sh010_t01.jpg");
    expect(await nextTakeNumber(ep, "final", "sh010")).toBe(2);
  });

  it("leaves cut.json alone when no entry plays the take", async () => {
    const ep = await s.episode(SCRIPT);
    await s.take(ep, "proxy", "sh030", 1);
    const res = await s.call("POST", "/discard", { ep, shot: "sh030", take: 1 });
    expect(res.body).toMatchObject({ pass: "proxy", cut_changed: false });
    await expect(readFile(path.join(ep, "cut.json"))).rejects.toThrow();
    // A final pick of the same number does not name the proxy take.
    await s.take(ep, "proxy", "sh030", 2);
    await s.call("PUT", "/cut", { ep, pass: "final", entries: [{ shot: "sh030", take: 2 }] });
    const other = await s.call("POST", "/discard", { ep, pass: "proxy", shot: "sh030", take: 2 });
    expect(other.body.cut_changed).toBe(false);
    expect(((await s.readJson(path.join(ep, "cut.json"))) as { final: unknown[] }).final).toEqual([
      { shot: "sh030", take: 2 },
    ]);
  });

  it("refuses a queued take (409), a missing take (404) and bad input (400)", async () => {
    const ep = await s.episode(SCRIPT);
    await s.take(ep, "proxy", "sh010", 1, { status: "queued" });
    refusal(
      await s.call("POST", "/discard", { ep, pass: "proxy", shot: "sh010", take: 1 }),
      409,
      "sh010 proxy take 1 is still queued: cancel it first",
    );
    expect(await ls(path.join(ep, "renders_proxy", "sh010"))).toHaveLength(3);
    refusal(
      await s.call("POST", "/discard", { ep, pass: "proxy", shot: "sh010", take: 2 }),
      404,
      "sh010 has no proxy take 2",
    );
    refusal(
      await s.call("POST", "/discard", { ep, pass: "final", shot: "sh010", take: 1 }),
      404,
      "sh010 has no final take 1",
    );
    refusal(await s.call("POST", "/discard", { ep, shot: "sh010" }), 400, "take: required");
    refusal(await s.call("POST", "/discard", { ep, shot: "sh010", take: "1" }), 400, /^take: /);
    refusal(await s.call("POST", "/discard", { ep, pass: "FINAL", shot: "sh010", take: 1 }), 400, /^pass: /);
    expect(s.env.events).toEqual([]);
  });
});
