// GET and POST /studio/episode/new called as the runtime calls them: suggestion, templates, naming rules,
// refusals, clean failures.
import { mkdir, readdir, readFile, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { functions } from "../functions/index.ts";
import { skeletonScript, writeEpisode } from "../lib/episode/new-episode.ts";
import { createApp } from "../runtime/app.ts";
import { makeTestEnv } from "./support/ctx.ts";
import { seriesS } from "./support/series-s.ts";
import { refused, useStudio } from "./support/studio-episode.ts";

const studio = useStudio({ outside: true });

const STARTER_SERIES = await readFile("lib/episode/starter/series.json", "utf8");
const STARTER_SCRIPT = await readFile("lib/episode/starter/starter.md", "utf8");

async function put(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

/** A fresh empty show folder under the root. */
const show = () => studio.show();

/** An episode `<parent>/<name>` with its own config (series S unless given) and a one-shot script. */
async function episode(parent: string, name: string, series: unknown = seriesS(), when?: number) {
  const dir = path.join(parent, name);
  await put(path.join(dir, "series.json"), JSON.stringify(series, null, 2));
  await put(path.join(dir, `${name}.md`), `= ${name}  Old\n# sq01 kitchen\n## sh010\nAda waits.\n`);
  if (when !== undefined) {
    const t = new Date(when);
    await utimes(path.join(dir, "series.json"), t, t);
    await utimes(path.join(dir, `${name}.md`), t, t);
  }
  return dir;
}

const get = (query: Record<string, string>) => studio.call("GET", "/episode/new", query);
const post = (body: Record<string, unknown>) => studio.call("POST", "/episode/new", body);

/** Every file and folder below `dir`, relative, sorted: to show that nothing changed. */
async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    out.push(path.relative(dir, path.join(e.parentPath, e.name)));
  }
  return out.sort();
}

describe("GET /studio/episode/new", () => {
  it("suggests ep01 in a folder without episodes", async () => {
    const parent = await show();
    const { status, body } = await get({ parent });
    expect(status).toBe(200);
    expect(body).toEqual({ parent, from: null, series: null, name: "ep01", episodes: [] });
  });

  it("suggests the epNN after the highest one, names the episodes and the newest with its config", async () => {
    const parent = await show();
    const now = Date.now();
    await episode(parent, "ep01", seriesS(), now - 60_000);
    const ep03 = await episode(parent, "ep03", { ...seriesS(), series: { id: "three" } }, now - 120_000);
    await episode(parent, "pilot", seriesS(), now - 180_000);
    await mkdir(path.join(parent, "ep07")); // not an episode, but the name is taken
    await mkdir(path.join(parent, "refs"));
    const { status, body } = await get({ parent, show: "Any Show" });
    expect(status).toBe(200);
    expect(body.name).toBe("ep08");
    expect(body.episodes).toEqual(["ep01", "ep03", "pilot"]);
    expect(body.from).toBe("ep01");
    expect(body.series).toBe(await readFile(path.join(parent, "ep01", "series.json"), "utf8"));

    // Touching ep03 makes it the newest.
    const later = new Date(now);
    await utimes(path.join(ep03, "ep03.md"), later, later);
    const again = await get({ parent });
    expect(again.body.from).toBe("ep03");
    expect(JSON.parse(again.body.series).series.id).toBe("three");
  });

  it("keeps the digit count of the highest number", async () => {
    const parent = await show();
    await mkdir(path.join(parent, "ep009"));
    await mkdir(path.join(parent, "ep2"));
    expect((await get({ parent })).body.name).toBe("ep010");
  });

  it("refuses a bad parent: relative 400, outside the roots 403, missing 404, a file 404", async () => {
    expect(refused(await get({ parent: "shows/x" }), 400)).toMatch(/absolute/);
    refused(await get({ parent: studio.outside }), 403);
    refused(await get({ parent: path.join(studio.outside, "missing") }), 403);
    refused(await get({ parent: path.join(studio.root, "missing") }), 404);
    const parent = await show();
    await writeFile(path.join(parent, "file.txt"), "x");
    refused(await get({ parent: path.join(parent, "file.txt") }), 404);
    expect(refused(await get({}), 400)).toBe("parent: required");
  });
});

describe("POST /studio/episode/new: templates", () => {
  it("uses the shipped starter pair in a folder without episodes, with series_id and show as the series", async () => {
    const parent = await show();
    const { status, body } = await post({
      parent,
      name: "ep01",
      title: "The Pilot",
      series_id: "my_show",
      show: "My Show",
    });
    expect(status).toBe(200);
    const ep = path.join(parent, "ep01");
    expect(body.ep).toBe(ep);
    expect(body.template).toBe("starter");
    expect(body.from).toBeNull();
    expect(body.files).toEqual(["ep01.md", "series.json"]);
    expect(body.refs).toEqual([
      "../refs/riley/riley_sheet_4panel.png",
      "../refs/props/backpack.png",
      "../refs/_bg/street.png",
      "../refs/_bg/kitchen.png",
    ]);
    expect(body.check.ok).toBe(true);
    expect(body.check).toMatchObject({ ok: true, errors: [] });
    expect(body.check.shots.map((s: { id: string }) => s.id)).toEqual(["sh010", "sh020", "sh030", "sh040"]);
    expect(body.episode).toMatchObject({ ep, name: "ep01", series: "My Show", title: "The Pilot", shots: 4 });

    const config = JSON.parse(await readFile(path.join(ep, "series.json"), "utf8"));
    const starter = JSON.parse(STARTER_SERIES);
    expect(config).toEqual({ ...starter, series: { ...starter.series, id: "my_show", title: "My Show" } });
    const script = await readFile(path.join(ep, "ep01.md"), "utf8");
    expect(script.split("\n")[0]).toBe("= ep01  The Pilot");
    expect(script.split("\n").slice(1)).toEqual(STARTER_SCRIPT.split("\n").slice(1));
    expect(studio.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);
  });

  it("copies the starter files unchanged apart from the header when nothing is named", async () => {
    const parent = await show();
    const { body } = await post({ parent, name: "first" });
    expect(body.template).toBe("starter");
    expect(await readFile(path.join(parent, "first", "series.json"), "utf8")).toBe(STARTER_SERIES);
    const script = await readFile(path.join(parent, "first", "first.md"), "utf8");
    expect(script.split("\n")[0]).toBe("= first  The Gold Path");
  });

  it("copies the newest episode's config, renames audio.track and writes a one-shot skeleton", async () => {
    const parent = await show();
    const s = seriesS();
    s.audio = { mode: "generate", track: "audio/ep01.wav" };
    const now = Date.now();
    await episode(parent, "ep01", s, now);
    await episode(parent, "ep00", seriesS(), now - 100_000);
    const { status, body } = await post({
      parent,
      name: "ep02",
      title: "Second",
      series_id: "ignored",
      show: "Ignored",
    });
    expect(status).toBe(200);
    expect(body.template).toBe("episode");
    expect(body.from).toBe("ep01");
    const ep = path.join(parent, "ep02");
    const config = JSON.parse(await readFile(path.join(ep, "series.json"), "utf8"));
    expect(config.audio.track).toBe("audio/ep02.wav");
    // Not the first episode: the series block is the template's.
    expect(config.series).toEqual(s.series);
    expect({ ...config, audio: s.audio }).toEqual(s);
    expect(await readFile(path.join(ep, "ep02.md"), "utf8")).toBe(
      "= ep02  Second\n\n# sq01  kitchen\n\n## sh010\nwho: ada\ndur: 3\nAda stands still, waiting.\n",
    );
    expect(body.refs).toContain("audio/ep02.wav");
    expect(body.refs).toContain("refs/_bg/kitchen.png");
    expect(body.check).toMatchObject({ ok: true, errors: [] });
    expect(body.check.shots).toEqual([{ id: "sh010", line: 5, end_line: 8 }]);
    expect(body.episode).toMatchObject({ name: "ep02", title: "Second", shots: 1 });
    expect(studio.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);
  });

  it("copies a config byte for byte when there is nothing to rename", async () => {
    const parent = await show();
    const text = `{\n    "series": {"id": "t", "title": "T"},\n${JSON.stringify(seriesS()).slice(1)}`;
    await put(path.join(parent, "ep01", "series.json"), text);
    await put(path.join(parent, "ep01", "ep01.md"), "= ep01\n# sq01 kitchen\n## sh010\nAda waits.\n");
    const { body } = await post({ parent, name: "ep02" });
    expect(body.template).toBe("episode");
    expect(await readFile(path.join(parent, "ep02", "series.json"), "utf8")).toBe(text);
    expect((await readFile(path.join(parent, "ep02", "ep02.md"), "utf8")).split("\n")[0]).toBe("= ep02");
  });

  it("gives the new episode its own copy of a show-folder config, its paths one folder lower", async () => {
    const parent = await show();
    const s = seriesS();
    s.audio = { mode: "generate", track: "audio/ep01.wav" };
    await put(path.join(parent, "series.json"), JSON.stringify(s));
    await put(path.join(parent, "ep01", "ep01.md"), "= ep01\n# sq01 kitchen\n## sh010\nAda waits.\n");
    const { body } = await post({ parent, name: "ep02" });
    expect(body.template).toBe("episode");
    expect(body.files).toEqual(["ep02.md", "series.json"]);
    const config = JSON.parse(await readFile(path.join(parent, "ep02", "series.json"), "utf8"));
    expect(config.audio.track).toBe("../audio/ep02.wav");
    expect(config.subjects.ada.sheet).toBe("../refs/ada/ada_sheet_4panel.png");
    expect(config.locations.kitchen.plate).toBe("../refs/_bg/kitchen.png");
    expect(body.refs).toContain("../refs/_bg/kitchen.png");
  });

  it("takes a series config from the form (object or text) and sets series_id only for the first episode", async () => {
    const parent = await show();
    const form = seriesS();
    const first = await post({ parent, name: "ep01", series: form, series_id: "formed", show: "Formed" });
    expect(first.status).toBe(200);
    expect(first.body.template).toBe("form");
    expect(first.body.from).toBeNull();
    const c1 = JSON.parse(await readFile(path.join(parent, "ep01", "series.json"), "utf8"));
    expect(c1.series).toEqual({ ...form.series, id: "formed", title: "Formed" });
    expect(first.body.check.ok).toBe(true);
    expect(await readFile(path.join(parent, "ep01", "ep01.md"), "utf8")).toBe(
      skeletonScript("ep01", undefined, form),
    );

    const text = `${JSON.stringify(seriesS(), null, 4)}\n`;
    const second = await post({ parent, name: "ep02", series: text, series_id: "again", show: "Again" });
    expect(second.body.template).toBe("form");
    // Not the first episode any more: the text is written as given.
    expect(await readFile(path.join(parent, "ep02", "series.json"), "utf8")).toBe(text);
  });

  it("writes a given script as is", async () => {
    const parent = await show();
    const script = "= mine  Mine\n# sq01 street\n## sh010\ndur: 2\nRiley runs.\n";
    const { body } = await post({ parent, name: "mine", script });
    expect(body.template).toBe("starter");
    expect(await readFile(path.join(parent, "mine", "mine.md"), "utf8")).toBe(script);
    expect(body.check).toMatchObject({ ok: true, errors: [] });
  });

  it("returns the check of what was written, errors included", async () => {
    const parent = await show();
    const { status, body } = await post({
      parent,
      name: "bad",
      script: "= bad\n# sq01 street\n## sh010\nwho: nobody\nx\n",
    });
    expect(status).toBe(200);
    expect(body.check.ok).toBe(false);
    expect(body.check.errors[0]).toMatchObject({ file: "script", line: 4 });
    expect((await stat(path.join(parent, "bad", "bad.md"))).isFile()).toBe(true);
  });

  it("skeleton: no character gives a shot without who, no location a placeholder", () => {
    expect(
      skeletonScript("e1", "T", {
        series: {},
        style: { look: "x" },
        subjects: { k: { kind: "prop", name: "K", design: "d" } },
      }),
    ).toBe("= e1  T\n\n# sq01  somewhere\n\n## sh010\ndur: 3\nNothing moves yet.\n");
  });
});

describe("POST /studio/episode/new: refusals", () => {
  it("refuses names that are not folder names with 400 and writes nothing", async () => {
    const parent = await show();
    const bad = [
      "..",
      "a/b",
      "a\\b",
      "refs",
      "renders_proxy",
      "Audio",
      "CON",
      "lpt1",
      "nul.txt",
      ".hidden",
      "x.",
      "",
      "a".repeat(65),
      "-x",
      "a b",
    ];
    for (const name of bad) {
      const a = await post({ parent, name });
      expect(refused(a, 400), name).toMatch(/^name/);
    }
    expect(await tree(parent)).toEqual([]);
    expect(studio.env.events).toEqual([]);
    // 64 characters is fine.
    expect((await post({ parent, name: "a".repeat(64) })).status).toBe(200);
  });

  it("answers 409 for an existing folder or file and changes nothing", async () => {
    const parent = await show();
    await episode(parent, "ep01");
    await put(path.join(parent, "ep01", "notes.txt"), "keep me");
    await put(path.join(parent, "taken"), "a file");
    const before = await tree(parent);
    const config = await readFile(path.join(parent, "ep01", "series.json"), "utf8");
    expect(refused(await post({ parent, name: "ep01", script: "= ep01\n" }), 409)).toMatch(/already exists/);
    refused(await post({ parent, name: "taken" }), 409);
    expect(await tree(parent)).toEqual(before);
    expect(await readFile(path.join(parent, "ep01", "series.json"), "utf8")).toBe(config);
    expect(await readFile(path.join(parent, "taken"), "utf8")).toBe("a file");
    expect(studio.env.events).toEqual([]);
  });

  it("refuses a parent outside the roots with 403, missing 404, relative 400", async () => {
    refused(await post({ parent: studio.outside, name: "ep01" }), 403);
    expect(await readdir(studio.outside)).toEqual([]);
    refused(await post({ parent: path.join(studio.root, "nope"), name: "ep01" }), 404);
    refused(await post({ parent: "nope", name: "ep01" }), 400);
    expect(refused(await post({ parent: studio.root }), 400)).toBe("name: required");
  });

  it("refuses a series config without a series block (400) and non-JSON text (400 with line and col)", async () => {
    const parent = await show();
    const noBlock = await post({ parent, name: "ep01", series: { subjects: {} } });
    expect(refused(noBlock, 400)).toMatch(/`series` block/);
    refused(await post({ parent, name: "ep01", series: '{"style": {}}' }), 400);
    refused(await post({ parent, name: "ep01", series: "[1, 2]" }), 400);
    const broken = await post({ parent, name: "ep01", series: '{\n  "series": {,\n}' });
    expect(broken.status).toBe(400);
    expect(broken.body).toEqual({
      error: expect.stringMatching(/^series: .*not valid JSON/),
      line: 2,
      col: 14,
    });
    expect(await tree(parent)).toEqual([]);
  });

  it("refuses a title on several lines", async () => {
    const parent = await show();
    expect(refused(await post({ parent, name: "ep01", title: "a\nb" }), 400)).toMatch(/^title/);
    expect(await tree(parent)).toEqual([]);
  });

  it("removes the folder again when anything fails after creating it", async () => {
    const broken = await makeTestEnv({ STUDIO_ROOTS: studio.root });
    try {
      // An unreadable settings file makes the check fail after both files are written.
      await put(path.join(broken.home, "default", "studio", "settings.json"), "[]");
      const parent = await show();
      await expect(writeEpisode(broken.services, parent, "ep01", "= ep01\n", "{}")).rejects.toThrow(
        /settings/,
      );
      expect(await tree(parent)).toEqual([]);
      const brokenApp = createApp(broken.services, functions);
      const res = await brokenApp.request("/studio/episode/new", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ parent, name: "ep01" }),
      });
      expect(res.status).toBe(500);
      expect(await tree(parent)).toEqual([]);
      expect(broken.events).toEqual([]);
    } finally {
      await broken.cleanup();
    }
  });
});
