// POST /studio/import called as the runtime calls it: folders named from headers, which config each gets, skipped
// and errors.
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { headerId } from "../lib/script/header.ts";
import { seriesS } from "./support/series-s.ts";
import { refused, useStudio } from "./support/studio-episode.ts";

const studio = useStudio({ outside: true });

const STARTER_SERIES = await readFile("lib/episode/starter/series.json", "utf8");

const show = (name?: string) => studio.show(name);

/** A script for series S (Ada in the kitchen) or the starter (Riley on the street). */
const script = (id: string, who = "ada", where = "kitchen") =>
  `= ${id}  Title of ${id}\n# sq01 ${where}\n## sh010\nwho: ${who}\ndur: 2\nSomeone waits.\n`;

const post = (body: Record<string, unknown>) => studio.call("POST", "/import", body);

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

describe("headerId", () => {
  it("reads the id of the last header, ignoring a BOM, CRLF and bare `=` lines", () => {
    expect(headerId("= ep01  The Pilot\n")).toBe("ep01");
    expect(headerId("\uFEFF= ep02\r\n# sq01 x\r\n")).toBe("ep02");
    expect(headerId("= one\n= two  Later\n")).toBe("two");
    expect(headerId("=   \n= \nno header here\n")).toBeNull();
    expect(headerId(" = indented\n")).toBeNull();
    expect(headerId("")).toBeNull();
  });
});

describe("POST /studio/import", () => {
  it("makes one folder per script named from its header, with the starter config when nothing else applies", async () => {
    const parent = await show("My_Show");
    const { status, body } = await post({
      parent,
      scripts: [
        { name: "first.md", text: script("ep01", "riley", "street") },
        { name: "second.md", text: script("ep02", "riley", "kitchen") },
      ],
    });
    expect(status).toBe(200);
    expect(body.show).toBe("My_Show");
    expect(body.skipped).toEqual([]);
    expect(body.errors).toEqual([]);
    expect(
      body.episodes.map((e: { ep: string; name: string; own_config: boolean }) => [
        e.ep,
        e.name,
        e.own_config,
      ]),
    ).toEqual([
      [path.join(parent, "ep01"), "ep01", true],
      [path.join(parent, "ep02"), "ep02", true],
    ]);
    for (const e of body.episodes) expect(e.check).toMatchObject({ ok: true, errors: [] });
    expect(await readFile(path.join(parent, "ep01", "ep01.md"), "utf8")).toBe(
      script("ep01", "riley", "street"),
    );
    expect(await readFile(path.join(parent, "ep01", "series.json"), "utf8")).toBe(STARTER_SERIES);
    expect(await readdir(path.join(parent, "ep02"))).toEqual(["ep02.md", "series.json"]);
    // Nothing is built.
    expect(await exists(path.join(parent, "ep01", "shotlist"))).toBe(false);
    expect(studio.env.events).toEqual([
      { type: "studio.episode", data: { ep: path.join(parent, "ep01") } },
      { type: "studio.episode", data: { ep: path.join(parent, "ep02") } },
    ]);
  });

  it("names the show from the body and puts that name on the starter config", async () => {
    const parent = await show();
    const { body } = await post({
      parent,
      show: "The Show",
      scripts: [{ name: "a.md", text: script("ep01", "riley", "street") }],
    });
    expect(body.show).toBe("The Show");
    const config = JSON.parse(await readFile(path.join(parent, "ep01", "series.json"), "utf8"));
    expect(config.series.title).toBe("The Show");
  });

  it("gives each episode the script's own series, else the body's", async () => {
    const parent = await show();
    const own = { ...seriesS(), series: { id: "own", title: "Own" } };
    const shared = `${JSON.stringify({ ...seriesS(), series: { id: "shared", title: "Shared" } }, null, 2)}\n`;
    const { body } = await post({
      parent,
      series: shared,
      scripts: [
        { name: "a.md", text: script("ep01"), series: own },
        { name: "b.md", text: script("ep02") },
      ],
    });
    expect(body.episodes.map((e: { own_config: boolean }) => e.own_config)).toEqual([true, true]);
    expect(JSON.parse(await readFile(path.join(parent, "ep01", "series.json"), "utf8")).series.id).toBe(
      "own",
    );
    expect(await readFile(path.join(parent, "ep02", "series.json"), "utf8")).toBe(shared);
    for (const e of body.episodes) expect(e.check.ok).toBe(true);
  });

  it("writes no config of its own when the parent already holds one", async () => {
    const parent = await show();
    await writeFile(path.join(parent, "series.json"), JSON.stringify(seriesS()));
    const { body } = await post({
      parent,
      scripts: [
        { name: "a.md", text: script("ep01") },
        { name: "b.md", text: script("ep02"), series: seriesS() },
      ],
    });
    expect(body.episodes.map((e: { name: string; own_config: boolean }) => [e.name, e.own_config])).toEqual([
      ["ep01", false],
      ["ep02", true],
    ]);
    expect(await readdir(path.join(parent, "ep01"))).toEqual(["ep01.md"]);
    // The check ran against the parent's config.
    expect(body.episodes[0].check).toMatchObject({ ok: true, errors: [] });
    const listed: { ep: string }[] = (await studio.call("GET", "/episodes")).body;
    expect(listed.map((e) => e.ep)).toEqual(
      expect.arrayContaining([path.join(parent, "ep01"), path.join(parent, "ep02")]),
    );
  });

  it("skips scripts without a header, existing folders and a second script for the same id", async () => {
    const parent = await show();
    await mkdir(path.join(parent, "ep01"));
    await writeFile(path.join(parent, "ep01", "keep.txt"), "mine");
    const { status, body } = await post({
      parent,
      scripts: [
        { name: "none.md", text: "# sq01 street\n## sh010\nNothing.\n" },
        { name: "old.md", text: script("ep01") },
        { name: "new.md", text: script("ep02", "riley", "street") },
        { name: "again.md", text: script("ep02") },
      ],
    });
    expect(status).toBe(200);
    expect(body.episodes.map((e: { name: string }) => e.name)).toEqual(["ep02"]);
    expect(body.skipped).toEqual([
      { name: "none.md", why: expect.stringMatching(/no episode header/) },
      { name: "old.md", why: expect.stringMatching(/"ep01" already exists/) },
      { name: "again.md", why: expect.stringMatching(/already makes "ep02"/) },
    ]);
    expect(body.errors).toEqual([]);
    expect(await readdir(path.join(parent, "ep01"))).toEqual(["keep.txt"]);
    expect(await readFile(path.join(parent, "ep02", "ep02.md"), "utf8")).toBe(
      script("ep02", "riley", "street"),
    );
    expect(studio.env.events).toHaveLength(1);
  });

  it("reports a bad own series and a header id that is no folder name as errors, writing nothing for them", async () => {
    const parent = await show();
    const { status, body } = await post({
      parent,
      scripts: [
        { name: "a.md", text: script("ep01"), series: { subjects: {} } },
        { name: "b.md", text: script("ep02"), series: "{ not json" },
        { name: "c.md", text: "= refs  Reserved\n" },
        { name: "d.md", text: "= ep:3  Colon\n" },
        { name: "e.md", text: script("ep05", "riley", "street") },
      ],
    });
    expect(status).toBe(200);
    expect(body.errors).toEqual([
      { file: "a.md", error: expect.stringMatching(/`series` block/) },
      { file: "b.md", error: expect.stringMatching(/not valid JSON/) },
      { file: "c.md", error: expect.stringMatching(/reserved/) },
      { file: "d.md", error: expect.stringMatching(/may only hold/) },
    ]);
    expect(body.episodes.map((e: { name: string }) => e.name)).toEqual(["ep05"]);
    expect(await readdir(parent)).toEqual(["ep05"]);
  });

  it("keeps a script that does not compile and reports it in its check", async () => {
    const parent = await show();
    const { body } = await post({
      parent,
      series: seriesS(),
      scripts: [{ name: "x.md", text: "= ep01\n# sq01 kitchen\n## sh010\nwho: zed\nx\n" }],
    });
    expect(body.episodes[0].check.ok).toBe(false);
    expect(body.episodes[0].check.errors[0]).toMatchObject({ file: "script", line: 4 });
    expect(await exists(path.join(parent, "ep01", "ep01.md"))).toBe(true);
  });

  it("refuses a bad parent, a body series without a series block and an empty script list", async () => {
    const scripts = [{ name: "a.md", text: script("ep01") }];
    refused(await post({ parent: studio.outside, scripts }), 403);
    expect(await readdir(studio.outside)).toEqual([]);
    refused(await post({ parent: path.join(studio.root, "nope"), scripts }), 404);
    refused(await post({ parent: "rel", scripts }), 400);
    const parent = await show();
    expect(refused(await post({ parent, series: { style: {} }, scripts }), 400)).toMatch(/`series` block/);
    refused(await post({ parent, scripts: [] }), 400);
    expect(refused(await post({ parent }), 400)).toBe("scripts: required");
    refused(await post({ parent, scripts: [{ name: "a.md" }] }), 400);
    expect(await readdir(parent)).toEqual([]);
    expect(studio.env.events).toEqual([]);
  });
});
