// POST /studio/build, /studio/source/check and /studio/shot/preview called as the runtime calls them, on real folders.
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { seriesS } from "./support/series-s.ts";
import { useStudio } from "./support/studio-episode.ts";

const s = useStudio();

/** A fresh episode folder `<root>/show<n>/ep01` with the given files. */
const episode = (files: { series?: unknown; script?: string }) =>
  s.folder({ "series.json": files.series, "ep01.md": files.script });

const call = (route: string, body: Record<string, unknown>) => s.call("POST", route, body);

const script = (...shots: string[]) => ["= e01  T", "# sq01 kitchen", ...shots].join("\n");

describe("POST /studio/build", () => {
  it("builds both passes of the starter episode and writes the outputs", async () => {
    const ep = await episode({
      series: await readFile("lib/episode/starter/series.json", "utf8"),
      script: await readFile("lib/episode/starter/starter.md", "utf8"),
    });
    const { status, body } = await call("/build", { ep });
    expect(status).toBe(200);
    expect(body.ok).toBe(true);
    expect(body.passes.final).toMatchObject({
      ok: true,
      error: null,
      report: { target: "animatic", shots: 4 },
    });
    expect(body.passes.proxy.report.targets.animatic.resolution).toBe("448x256");
    expect((await readdir(path.join(ep, "shotlist"))).sort()).toEqual([
      "shotlist.json",
      "shotlist_proxy.json",
      "shots.json",
    ]);
    for (const f of ["refs_todo.md", "refs_todo.json", "refs_todo_proxy.md", "refs_todo_proxy.json"]) {
      expect((await stat(path.join(ep, f))).isFile()).toBe(true);
    }
    expect(s.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);
  });

  it("rebuilding an unchanged script leaves every seed and story unchanged", async () => {
    const ep = await episode({ series: seriesS(), script: script("## sh010", "dur: 3.04", "Ada waits.") });
    await call("/build", { ep });
    const first = await readFile(path.join(ep, "shotlist", "shotlist.json"), "utf8");
    const shots = await readFile(path.join(ep, "shotlist", "shots.json"), "utf8");
    await call("/build", { ep });
    expect(await readFile(path.join(ep, "shotlist", "shotlist.json"), "utf8")).toBe(first);
    expect(await readFile(path.join(ep, "shotlist", "shots.json"), "utf8")).toBe(shots);
    expect(first).toMatch(/"seed": \d{16,19},/);
  });

  it("follows the target grids: dur 3 on ltx2 is 73 frames, dur 0.9375 on H3 is 22", async () => {
    const s = seriesS();
    s.series.target = "ltx2";
    const ep = await episode({
      series: s,
      script: script(
        "## sh010",
        "dur: 3",
        "Ada waits.",
        "## sh020",
        "target: minimax_h3_ref2va",
        "dur: 0.9375",
        "Ada waits.",
      ),
    });
    const { body } = await call("/build", { ep });
    expect(body.ok).toBe(true);
    const ltx = JSON.parse(await readFile(path.join(ep, "shotlist", "shotlist.json"), "utf8"));
    const h3 = JSON.parse(
      await readFile(path.join(ep, "shotlist", "shotlist.minimax_h3_ref2va.json"), "utf8"),
    );
    expect(ltx.shots[0].length).toBe(73);
    expect(h3.shots[0].length).toBe(22);
  });

  it("uses the settings' default video target when nothing names one", async () => {
    await mkdir(path.join(s.env.home, "default", "studio"), { recursive: true });
    await writeFile(
      path.join(s.env.home, "default", "studio", "settings.json"),
      JSON.stringify({ default_targets: { video: "ltx2" } }),
    );
    try {
      const ep = await episode({ series: seriesS(), script: script("## sh010", "dur: 3", "Ada waits.") });
      const { body } = await call("/build", { ep });
      expect(body.passes.final.report.target).toBe("ltx2");
    } finally {
      await writeFile(path.join(s.env.home, "default", "studio", "settings.json"), "{}");
    }
  });

  it("answers 200 ok: false naming the line when the script does not compile", async () => {
    const parse = await episode({ series: seriesS(), script: script("## sh010", "who: dan", "Ada waits.") });
    const a = await call("/build", { ep: parse });
    expect(a.status).toBe(200);
    expect(a.body.ok).toBe(false);
    expect(a.body.error).toMatch(/line 4: .*dan/);
    expect(a.body.passes.final.ok).toBe(false);

    const build = await episode({
      series: seriesS(),
      script: script("## sh010", "dur: 3", "target: ltx_2_3", "Ada waits."),
    });
    const b = await call("/build", { ep: build });
    expect(b.body.ok).toBe(false);
    expect(b.body.passes.final.error).toMatch(/^script line 5: shot sh010: target 'ltx_2_3'/);
    await expect(stat(path.join(build, "shotlist"))).rejects.toThrow();
  });

  it("answers ok: false with empty passes without a series config or a script", async () => {
    const noSeries = await episode({ script: script("## sh010", "dur: 3", "Ada waits.") });
    expect((await call("/build", { ep: noSeries })).body).toEqual({
      ok: false,
      error: expect.stringContaining("no series.json"),
      passes: {},
      diagnostics: [
        { severity: "error", file: "series", line: null, message: expect.stringContaining("no series.json") },
      ],
    });
    const noScript = await episode({ series: seriesS() });
    expect((await call("/build", { ep: noScript })).body).toEqual({
      ok: false,
      error: expect.stringContaining("no script"),
      passes: {},
      diagnostics: [
        { severity: "error", file: "script", line: null, message: expect.stringContaining("no script") },
      ],
    });
  });

  it("refuses bad episode paths on every route that takes one", async () => {
    const cases: [unknown, number][] = [
      [path.join(s.env.dir, "elsewhere"), 403],
      ["relative/ep01", 400],
      [path.join(s.root, "missing", "ep01"), 404],
      [`${s.root}/show1/../../ep01`, 400],
      [`${s.root}/show1\u0000/ep01`, 400],
      [42, 400],
    ];
    const routes: [string, Record<string, unknown>][] = [
      ["/build", {}],
      ["/source/check", { file: "script", text: "" }],
      ["/shot/preview", { shot: "sh010", text: "" }],
    ];
    for (const [route, rest] of routes) {
      for (const [ep, status] of cases) {
        const res = await call(route, { ...rest, ep });
        expect(res.status, `${route} ${String(ep)}`).toBe(status);
        expect(Object.keys(res.body)).toEqual(["error"]);
      }
    }
    const missing = await call("/build", {});
    expect(missing).toEqual({ status: 400, body: { error: "ep: required" } });
  });
});

describe("POST /studio/source/check", () => {
  it("maps a build error to the key line and lists the shot spans (6.43)", async () => {
    const text = script("## sh010", "who: ada", "target: ltx_2_3", "dur: 3.04", "Ada waits.");
    const ep = await episode({ series: seriesS(), script: script("## sh010", "dur: 3", "Ada waits.") });
    const { status, body } = await call("/source/check", { ep, file: "script", text });
    expect(status).toBe(200);
    expect(body.ok).toBe(false);
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]).toMatchObject({ file: "script", line: 5 });
    expect(body.errors[0].message).toMatch(/^shot sh010: target 'ltx_2_3' is not a video target \(known: /);
    expect(body.shots).toEqual([{ id: "sh010", line: 3, end_line: 7 }]);
    expect(await readdir(ep)).toEqual(["ep01.md", "series.json"]);
  });

  it("gives a parse error its line without the prefix and no spans", async () => {
    const ep = await episode({ series: seriesS(), script: "" });
    const text = script("## sh010", "who: dan", "Ada waits.");
    const { body } = await call("/source/check", { ep, file: "script", text });
    expect(body.ok).toBe(false);
    expect(body.errors[0].line).toBe(4);
    expect(body.errors[0].message).not.toMatch(/^line/);
    expect(body.errors[0].message).toContain("dan");
    expect(body.shots).toEqual([]);
  });

  it("reports invalid series JSON with line and column, and a load error at its key's line", async () => {
    const ep = await episode({ series: seriesS(), script: script("## sh010", "dur: 3", "Ada waits.") });
    const bad = await call("/source/check", {
      ep,
      file: "series",
      text: '{\n  "series": {\n    "id": 1,,\n',
    });
    expect(bad.body.errors[0]).toMatchObject({ file: "series", line: 3 });
    expect(typeof bad.body.errors[0].col).toBe("number");

    const s = seriesS();
    s.subjects.ada.of = "nobody";
    const loadText = JSON.stringify(s, null, 2);
    const load = await call("/source/check", { ep, file: "series", text: loadText });
    const adaLine = loadText.split("\n").findIndex((l) => l.includes('"ada"')) + 1;
    expect(load.body.ok).toBe(false);
    expect(load.body.errors[0].file).toBe("series");
    expect(load.body.errors[0].line).toBeGreaterThanOrEqual(adaLine);
  });

  it("passes a good script with its warnings placed on lines", async () => {
    const ep = await episode({ series: seriesS(), script: "" });
    const text = script(
      "## sh020",
      "who: ada",
      "size: ms",
      "dur: 3.04",
      "Ada wipes.",
      "## sh030",
      "who: ada",
      "size: mcu",
      "dur: 3.04",
      "Ada looks up.",
    );
    const { body } = await call("/source/check", { ep, file: "script", text });
    expect(body.ok).toBe(true);
    expect(body.errors).toEqual([]);
    expect(body.warnings.some((w: { message: string }) => /sh020 -> sh030/.test(w.message))).toBe(true);
    expect(body.shots.map((s: { id: string }) => s.id)).toEqual(["sh020", "sh030"]);
  });

  it("refuses an unknown file kind", async () => {
    const ep = await episode({ series: seriesS(), script: "" });
    const res = await call("/source/check", { ep, file: "cut", text: "" });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^file: /);
  });
});

describe("POST /studio/shot/preview", () => {
  const disk = script(
    "## sh010",
    "who: ada",
    "dur: 3.04",
    "Ada waits.",
    "## sh020",
    "who: bo",
    "dur: 2",
    "Bo waits.",
  );

  it("compiles a whole edited script's shot with size, length and pacing", async () => {
    const ep = await episode({ series: seriesS(), script: disk });
    const text = disk.replace("Bo waits.", "BO: There's gold at the end of the path.");
    const { status, body } = await call("/shot/preview", { ep, pass: "proxy", shot: "sh020", text });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      ok: true,
      shot: "sh020",
      target: "animatic",
      frames: 48,
      fps: 24,
      seconds: 2,
    });
    expect(body.target_label).toBe("Animatic (timing preview, no model)");
    expect(body.width).toBe(448);
    expect(body.pacing).toMatchObject({
      held: 2,
      syllables: 9,
      rate: 6.667,
      verdict: "CRAMMED",
      pace: "normal",
      pace_rate: 4.4,
      ceiling: 5.8,
    });
    expect(await readdir(ep)).toEqual(["ep01.md", "series.json"]);
  });

  it("accepts the shot's block alone and previews it on another target", async () => {
    const ep = await episode({ series: seriesS(), script: disk });
    const { body } = await call("/shot/preview", {
      ep,
      pass: "final",
      shot: "sh010",
      text: "## sh010\nwho: ada\ndur: 3\nAda waits longer.",
      target: "ltx2",
    });
    expect(body).toMatchObject({ ok: true, target: "ltx2", frames: 73, width: 1344, height: 768 });
    expect(body.prompt).toContain("Ada waits longer.");
    expect(body.pacing).toBeNull();
  });

  it("answers a refused shot 200 ok: false with the line in the sent text", async () => {
    const ep = await episode({ series: seriesS(), script: disk });
    const { status, body } = await call("/shot/preview", {
      ep,
      shot: "sh010",
      text: "## sh010\nwho: dan\nAda waits.",
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: false, line: 2 });
    expect(body.error).toContain("dan");
  });

  it("refuses an unknown target with 400", async () => {
    const ep = await episode({ series: seriesS(), script: disk });
    const res = await call("/shot/preview", { ep, shot: "sh010", text: disk, target: "nope" });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^target: 'nope' is not a video target/);
  });
});
