// GET and POST /studio/promote, handlers called as the runtime calls them: which overrides move into the
// authored files, verification by compiling in memory, and test case 6.44 (script format 5.5; api extras 1.17).
import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { seriesS } from "./support/series-s.ts";
import { useStudio } from "./support/studio-episode.ts";

const studio = useStudio();

const sha1 = (text: string | Uint8Array) => createHash("sha1").update(text).digest("hex");

const SCRIPT = `${[
  "= e01  T",
  "# sq01 kitchen",
  "## sh010",
  "who: ada",
  "dur: 3.04",
  "Ada waits.",
  "## sh020",
  "who: bo",
  "dur: 2",
  "Bo waits.",
  "## sh030",
  "who: ada",
  "dur: 3.04",
  "Ada looks up.",
].join("\n")}\n`;

/** A fresh episode with series S (animatic is the machine default target), the script and overrides.json. */
async function episode(
  files: { overrides?: unknown; series?: unknown; script?: string | Uint8Array; refs?: unknown } = {},
): Promise<string> {
  return studio.folder({
    "series.json": files.series ?? seriesS(),
    "ep01.md": files.script ?? SCRIPT,
    "overrides.json": files.overrides,
    "refs/_overrides.json": files.refs,
  });
}

const plan = (ep: string, shot?: string) => studio.call("GET", "/promote", { ep, shot });
const promote = (body: Record<string, unknown>) => studio.call("POST", "/promote", body);

const both = (fields: Record<string, unknown>) => ({
  final: { base_hash: "b1", ...fields },
  proxy: { base_hash: "b2", ...fields },
});
const shots = (blocks: Record<string, unknown>) => ({ episode: "e01", shots: blocks });
const readJson = async (file: string) => JSON.parse(await readFile(file, "utf8"));
const entryOf = async (ep: string, file: string, id: string) =>
  (await readJson(path.join(ep, "shotlist", file))).shots.find((e: { id: string }) => e.id === id);

describe("shot overrides", () => {
  it("writes a two-pass LoRA as a new line after the shot's opening key lines and removes it (6.44)", async () => {
    const lora = [{ name: "x.safetensors", strength: 0.5 }];
    const ep = await episode({ overrides: shots({ sh030: { animatic: both({ loras: lora }) } }) });
    const p = await plan(ep);
    expect(p.status).toBe(200);
    expect(p.body).toEqual({
      items: [
        {
          id: "shot:sh030:loras",
          scope: "shot",
          shot: "sh030",
          field: "loras",
          value: lora,
          dest: "script",
          line: 14,
          summary: "sh030: lora: x.safetensors:0.5",
        },
      ],
      left: [],
      diffs: {
        script: [
          "--- a/ep01.md",
          "+++ b/ep01.md",
          "@@ -11,4 +11,5 @@",
          " ## sh030",
          " who: ada",
          " dur: 3.04",
          "+lora: x.safetensors:0.5",
          " Ada looks up.",
          "",
        ].join("\n"),
        series: "",
      },
      hashes: { script: sha1(SCRIPT), series: sha1(JSON.stringify(seriesS(), null, 2)) },
    });
    expect(await readdir(ep)).not.toContain("_history");

    const res = await promote({ ep, items: ["shot:sh030:loras"], hashes: p.body.hashes });
    expect(res.status).toBe(200);
    expect(res.body.promoted).toEqual(p.body.items);
    expect(res.body.left).toEqual([]);
    const text = await readFile(path.join(ep, "ep01.md"), "utf8");
    expect(text.split("\n").slice(10, 15)).toEqual([
      "## sh030",
      "who: ada",
      "dur: 3.04",
      "lora: x.safetensors:0.5",
      "Ada looks up.",
    ]);
    expect(res.body.hashes).toEqual({ script: sha1(text), series: p.body.hashes.series });
    expect(await readJson(path.join(ep, "overrides.json"))).toEqual({ episode: "e01" });
    const copies = await readdir(path.join(ep, "_history"));
    expect(copies).toEqual([expect.stringMatching(/^ep01\.md\.\d{8}-\d{6}$/)]);
    expect(await readFile(path.join(ep, "_history", copies[0]), "utf8")).toBe(SCRIPT);
    // The rebuild carries the line into both passes.
    expect(res.body.build).toMatchObject({ ok: true, passes: { final: { ok: true }, proxy: { ok: true } } });
    expect((await entryOf(ep, "shotlist.json", "sh030")).lora).toBe("x.safetensors:0.5");
    expect((await entryOf(ep, "shotlist_proxy.json", "sh030")).lora).toBe("x.safetensors:0.5");
    expect(studio.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);
  });

  it("leaves a list of two LoRAs with a reason and promotes nothing", async () => {
    const loras = [
      { name: "x.safetensors", strength: 0.5 },
      { name: "y.safetensors", strength: 1 },
    ];
    const overrides = shots({ sh030: { animatic: both({ loras }) } });
    const ep = await episode({ overrides });
    const p = await plan(ep);
    expect(p.body.items).toEqual([]);
    const reason = "two or more LoRAs cannot be one script line (put them in a profile)";
    expect(p.body.left).toEqual([
      { scope: "shot", shot: "sh030", pass: "final", field: "loras", reason },
      { scope: "shot", shot: "sh030", pass: "proxy", field: "loras", reason },
    ]);
    expect(p.body.diffs).toEqual({ script: "", series: "" });
    const res = await promote({ ep, items: "all", hashes: p.body.hashes });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ promoted: [], left: p.body.left, hashes: p.body.hashes, build: null });
    expect(await readJson(path.join(ep, "overrides.json"))).toEqual(overrides);
    expect(await readFile(path.join(ep, "ep01.md"), "utf8")).toBe(SCRIPT);
    expect(studio.env.events).toEqual([]);
  });

  it("replaces the shot's last steps line in place, and writes an empty list as lora: none", async () => {
    const script = SCRIPT.replace("Bo waits.\n", "steps: 4\nBo waits.\nsteps: 6\n");
    const ep = await episode({
      script,
      overrides: shots({
        sh020: { animatic: both({ steps: 12 }) },
        sh010: { animatic: both({ loras: [] }) },
      }),
    });
    const p = await plan(ep);
    // Lines are those of the edited script: the lora line above moves the steps line down by one.
    expect(p.body.items.map((i: { id: string; line: number }) => [i.id, i.line])).toEqual([
      ["shot:sh020:steps", 13],
      ["shot:sh010:loras", 6],
    ]);
    const res = await promote({ ep, items: "all", hashes: p.body.hashes });
    expect(res.status).toBe(200);
    const lines = (await readFile(path.join(ep, "ep01.md"), "utf8")).split("\n");
    expect(lines.slice(2, 13)).toEqual([
      "## sh010",
      "who: ada",
      "dur: 3.04",
      "lora: none",
      "Ada waits.",
      "## sh020",
      "who: bo",
      "dur: 2",
      "steps: 4",
      "Bo waits.",
      "steps: 12",
    ]);
    expect((await entryOf(ep, "shotlist_proxy.json", "sh020")).steps).toBe(12);
    expect(await readJson(path.join(ep, "overrides.json"))).toEqual({ episode: "e01" });
  });

  it("leaves a model only one pass overrides, since a line would set both", async () => {
    const ep = await episode({
      overrides: shots({ sh010: { animatic: { final: { base_hash: "b", model: "m.safetensors" } } } }),
    });
    const p = await plan(ep);
    expect(p.body.items).toEqual([]);
    expect(p.body.left).toEqual([
      {
        scope: "shot",
        shot: "sh010",
        pass: "final",
        field: "model",
        reason:
          "the final pass renders m.safetensors and the proxy pass nothing: a script line would set both",
      },
    ]);
  });

  it("promotes a retarget as a target: line with the overrides written for it, leaving the old target's", async () => {
    const ep = await episode({
      overrides: shots({
        sh020: { target: "ltx2", ltx2: both({ steps: 12 }), animatic: { note: "old take" } },
      }),
    });
    const p = await plan(ep);
    const summary = (i: { id: string; line: number; value: unknown }) => [i.id, i.line, i.value];
    expect(p.body.items.map(summary)).toEqual([
      ["shot:sh020:target", 10, "ltx2"],
      ["shot:sh020:steps", 11, 12],
    ]);
    expect(p.body.left).toEqual([
      {
        scope: "shot",
        shot: "sh020",
        field: "note",
        reason: "written for animatic; the shot renders on ltx2 now",
      },
    ]);
    const res = await promote({ ep, items: "all", hashes: p.body.hashes });
    expect(res.status).toBe(200);
    const text = await readFile(path.join(ep, "ep01.md"), "utf8");
    expect(text).toContain("## sh020\nwho: bo\ndur: 2\ntarget: ltx2\nsteps: 12\nBo waits.\n");
    expect(await readJson(path.join(ep, "overrides.json"))).toEqual(
      shots({ sh020: { animatic: { note: "old take" } } }),
    );
    expect(res.body.build.passes.final.report.shot_targets.sh020).toBe("ltx2");
    expect((await entryOf(ep, "shotlist.ltx2.json", "sh020")).steps).toBe(12);
  });

  it("always leaves prompt, seed, note, negative, model_low and shots not in the script", async () => {
    const ep = await episode({
      overrides: shots({
        sh010: {
          animatic: {
            seed: 42,
            note: "keep",
            final: {
              base_hash: "b",
              prompt: "A new prompt.",
              negative: "blur",
              model_low: "low.safetensors",
            },
          },
        },
        sh999: { animatic: both({ steps: 5 }) },
      }),
    });
    const p = await plan(ep);
    expect(p.body.items).toEqual([]);
    expect(p.body.left).toEqual([
      { scope: "shot", shot: "sh010", field: "seed", reason: expect.stringContaining("seed") },
      { scope: "shot", shot: "sh010", field: "note", reason: expect.stringContaining("note") },
      {
        scope: "shot",
        shot: "sh010",
        pass: "final",
        field: "prompt",
        reason: expect.stringContaining("prompt"),
      },
      { scope: "shot", shot: "sh010", pass: "final", field: "negative", reason: expect.any(String) },
      { scope: "shot", shot: "sh010", pass: "final", field: "model_low", reason: expect.any(String) },
      { scope: "shot", shot: "sh999", pass: "final", field: "steps", reason: "sh999 is not in the script" },
      { scope: "shot", shot: "sh999", pass: "proxy", field: "steps", reason: "sh999 is not in the script" },
    ]);
  });

  it("leaves an override whose line would change how the shot renders (verified in memory)", async () => {
    // ltx2_ingredients always keeps its IC-LoRA first, so a one-LoRA line would render two.
    const ep = await episode({
      overrides: shots({
        sh020: {
          target: "ltx2_ingredients",
          ltx2_ingredients: both({ loras: [{ name: "x.safetensors", strength: 1 }] }),
        },
      }),
    });
    const p = await plan(ep);
    expect(p.status).toBe(200);
    expect(p.body.items.map((i: { id: string }) => i.id)).toEqual(["shot:sh020:target"]);
    expect(p.body.left).toEqual([
      {
        scope: "shot",
        shot: "sh020",
        field: "loras",
        reason: expect.stringMatching(/^sh020 would render differently: final loras x\.safetensors → /),
      },
    ]);
    expect(p.body.diffs.script).not.toContain("lora:");
  });

  it("narrows the plan to one shot and answers 404 for a shot that is nowhere", async () => {
    const ep = await episode({
      overrides: {
        episode: { id: "e01", target: "ltx2" },
        shots: { sh010: { ltx2: both({ steps: 9 }) }, sh030: { ltx2: both({ steps: 12 }) } },
      },
    });
    const p = await plan(ep, "sh030");
    expect(p.status).toBe(200);
    expect(p.body.items.map((i: { id: string }) => i.id)).toEqual(["shot:sh030:steps"]);
    expect(p.body.diffs.series).toBe("");
    const missing = await plan(ep, "sh999");
    expect(missing).toEqual({ status: 404, body: { error: "shot: sh999 is not in the script" } });
  });

  it("keeps a CRLF script with a BOM in its conventions", async () => {
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(SCRIPT.replace(/\n/g, "\r\n"))]);
    const ep = await episode({ script: raw, overrides: shots({ sh010: { animatic: both({ steps: 3 }) } }) });
    const p = await plan(ep);
    expect(p.body.hashes.script).toBe(sha1(raw));
    const res = await promote({ ep, items: "all", hashes: p.body.hashes });
    expect(res.status).toBe(200);
    const bytes = await readFile(path.join(ep, "ep01.md"));
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(bytes.subarray(3).toString()).toBe(
      SCRIPT.replace("dur: 3.04\nAda waits.", "dur: 3.04\nsteps: 3\nAda waits.").replace(/\n/g, "\r\n"),
    );
    expect(res.body.hashes.script).toBe(sha1(bytes));
  });
});

describe("episode overrides", () => {
  it("moves the episode target to series.target and the episode back to its plain name", async () => {
    const ep = await episode({ overrides: { episode: { id: "e01", target: "ltx2" } } });
    const p = await plan(ep);
    expect(p.body.items).toEqual([
      {
        id: "episode:target",
        scope: "episode",
        field: "target",
        value: "ltx2",
        dest: "series",
        line: 8,
        summary: 'series.target: "ltx2"',
      },
    ]);
    expect(p.body.diffs.script).toBe("");
    expect(p.body.diffs.series).toContain('-    "height": 768\n+    "height": 768,\n+    "target": "ltx2"\n');
    const res = await promote({ ep, items: ["episode:target"], hashes: p.body.hashes });
    expect(res.status).toBe(200);
    const s = seriesS();
    s.series.target = "ltx2";
    expect(await readFile(path.join(ep, "series.json"), "utf8")).toBe(JSON.stringify(s, null, 2));
    expect(await readJson(path.join(ep, "overrides.json"))).toEqual({ episode: "e01" });
    expect(res.body.build.passes.final.report.target).toBe("ltx2");
    expect((await readdir(path.join(ep, "_history")))[0]).toMatch(/^series\.json\./);
  });

  it("leaves the episode target while the series blocks set steps or a model", async () => {
    const s = seriesS();
    s.series.steps = 8;
    s.proxy = { model: "p.safetensors" };
    const ep = await episode({ series: s, overrides: { episode: { id: "e01", target: "ltx2" } } });
    const p = await plan(ep);
    expect(p.body.items).toEqual([]);
    expect(p.body.left).toEqual([
      {
        scope: "episode",
        field: "target",
        reason:
          "the series config sets series.steps, proxy.model: as series.target they would apply to ltx2 too",
      },
    ]);
  });

  it("moves refs_target and keyframe_target to refs, flagging a series.json that gets reformatted", async () => {
    const s = seriesS();
    const ep = await episode({
      series: `${JSON.stringify(s)}\n`,
      overrides: { episode: { id: "e01", refs_target: "krea2", keyframe_target: "flux" } },
    });
    const p = await plan(ep);
    expect(p.body.items.map((i: { id: string; summary: string }) => [i.id, i.summary])).toEqual([
      ["episode:refs_target", 'refs.target: "krea2"'],
      ["episode:keyframe_target", 'refs.keyframe_target: "flux"'],
    ]);
    expect(p.body.diffs.series.split("\n")[0]).toBe("# note: series.json will be reformatted");
    const res = await promote({ ep, items: "all", hashes: p.body.hashes });
    expect(res.status).toBe(200);
    s.refs = { target: "krea2", keyframe_target: "flux" };
    expect(await readFile(path.join(ep, "series.json"), "utf8")).toBe(`${JSON.stringify(s, null, 2)}\n`);
    expect(await readJson(path.join(ep, "overrides.json"))).toEqual({ episode: "e01" });
  });
});

describe("reference prompt overrides", () => {
  const plate = (desc: string) =>
    `An empty establishing view of ${desc}. A flat 2D cartoon. No characters, props or figures; ` +
    "a wide framing that shows the layout of the place. Output 1344x768.";
  const view = (v: string, design: string) =>
    `A single character reference view, ${v}, on a plain background. ${design} Output 1024x1024.`;

  it("writes a location's new description when only that text changed, and keeps its other fields", async () => {
    const ep = await episode({
      refs: {
        refs: {
          "location:kitchen": {
            prompt: plate("a cramped kitchen at dawn"),
            base_hash: sha1(plate("a cramped kitchen at night")),
            seed: 7,
          },
        },
      },
    });
    const p = await plan(ep);
    expect(p.body.items).toEqual([
      {
        id: "ref:location:kitchen:prompt",
        scope: "ref",
        ref: "location:kitchen",
        field: "prompt",
        value: "a cramped kitchen at dawn",
        dest: "series",
        line: expect.any(Number),
        summary:
          'locations.kitchen.description: "a cramped kitchen at dawn" (was "a cramped kitchen at night")',
      },
    ]);
    expect(p.body.left).toEqual([
      {
        scope: "ref",
        ref: "location:kitchen",
        field: "seed",
        reason: "the series config has no per-reference seed",
      },
    ]);
    const res = await promote({ ep, items: "all", hashes: p.body.hashes });
    expect(res.status).toBe(200);
    expect((await readJson(path.join(ep, "series.json"))).locations.kitchen.description).toBe(
      "a cramped kitchen at dawn",
    );
    expect(await readJson(path.join(ep, "refs", "_overrides.json"))).toEqual({
      refs: { "location:kitchen": { seed: 7 } },
    });
    expect(studio.env.events).toEqual([
      {
        type: "studio.ref",
        data: { ep, ref: "location:kitchen", view: null, take: null, status: "promoted" },
      },
      { type: "studio.episode", data: { ep } },
    ]);
  });

  it("changes a character's design only when all four views agree", async () => {
    const views = ["01_threequarter", "02_side", "03_back", "04_face"];
    const over = (vs: string[]) => ({
      refs: {
        "subject:ada": {
          views: Object.fromEntries(
            vs.map((v) => [
              v,
              {
                prompt: view(v, "A tall woman in a red raincoat."),
                base_hash: sha1(view(v, "A tall woman in a green raincoat.")),
              },
            ]),
          ),
        },
      },
    });
    const two = await episode({ refs: over(views.slice(0, 2)) });
    const p2 = await plan(two);
    expect(p2.body.items).toEqual([]);
    expect(p2.body.left).toHaveLength(2);
    expect(p2.body.left[0]).toEqual({
      scope: "ref",
      ref: "subject:ada",
      view: "01_threequarter",
      field: "prompt",
      reason:
        "a character's design changes only when all four views agree (no prompt override on 03_back, 04_face)",
    });

    const four = await episode({ refs: over(views) });
    const p4 = await plan(four);
    expect(p4.body.items.map((i: { id: string; value: string }) => [i.id, i.value])).toEqual([
      ["ref:subject:ada:prompt", "a tall woman in a red raincoat"],
    ]);
    const res = await promote({ ep: four, items: "all", hashes: p4.body.hashes });
    expect(res.status).toBe(200);
    expect((await readJson(path.join(four, "series.json"))).subjects.ada.design).toBe(
      "a tall woman in a red raincoat",
    );
    expect(await readJson(path.join(four, "refs", "_overrides.json"))).toEqual({ refs: {} });
  });

  it("leaves a prompt written over an older built prompt, and keyframe prompts", async () => {
    const ep = await episode({
      refs: {
        refs: {
          "location:street": {
            prompt: plate("a dry street at noon"),
            base_hash: sha1(plate("an old street")),
          },
          "shot:sh010:first": { prompt: "Ada at the door." },
        },
      },
    });
    const p = await plan(ep);
    expect(p.body.items).toEqual([]);
    expect(p.body.left).toEqual([
      {
        scope: "ref",
        ref: "location:street",
        field: "prompt",
        reason: expect.stringContaining("not the built prompt with only the description changed"),
      },
      {
        scope: "ref",
        ref: "shot:sh010:first",
        field: "prompt",
        reason: "a keyframe's prompt is written from its shot",
      },
    ]);
  });
});

describe("refusals", () => {
  it("answers 409 with the current file when either file changed since the plan", async () => {
    const ep = await episode({ overrides: shots({ sh010: { animatic: both({ steps: 3 }) } }) });
    const p = await plan(ep);
    const edited = SCRIPT.replace("Ada waits.", "Ada waits a while.");
    await writeFile(path.join(ep, "ep01.md"), edited);
    const a = await promote({ ep, items: "all", hashes: p.body.hashes });
    expect(a.status).toBe(409);
    expect(a.body).toEqual({
      error: expect.stringContaining("changed"),
      hash: sha1(edited),
      text: edited,
      file: "script",
    });

    const series = `${JSON.stringify(seriesS(), null, 2)}\n`;
    await writeFile(path.join(ep, "series.json"), series);
    const b = await promote({ ep, items: "all", hashes: { ...p.body.hashes, script: sha1(edited) } });
    expect(b.status).toBe(409);
    expect(b.body).toEqual({ error: expect.any(String), hash: sha1(series), text: series, file: "series" });
    expect(await readFile(path.join(ep, "ep01.md"), "utf8")).toBe(edited);
    expect(studio.env.events).toEqual([]);
  });

  it("answers 400 for an item id that is not in the plan", async () => {
    const ep = await episode({ overrides: shots({ sh010: { animatic: both({ steps: 3 }) } }) });
    const p = await plan(ep);
    const res = await promote({
      ep,
      items: ["shot:sh010:steps", "shot:sh010:prompt"],
      hashes: p.body.hashes,
    });
    expect(res).toEqual({
      status: 400,
      body: { error: "items: 'shot:sh010:prompt' is not a promotable override now; ask for the plan again" },
    });
    expect(await readFile(path.join(ep, "ep01.md"), "utf8")).toBe(SCRIPT);
  });

  it("answers 400 when the episode does not parse, load or build", async () => {
    const bad = await episode({ script: SCRIPT.replace("who: bo", "who: dan") });
    const a = await plan(bad);
    expect(a.status).toBe(400);
    expect(a.body).toEqual({ error: expect.stringMatching(/does not build.*script line 8: .*dan/) });

    const target = await episode({ script: SCRIPT.replace("who: bo", "who: bo\ntarget: nope") });
    const b = await plan(target);
    expect(b.status).toBe(400);
    expect(b.body.error).toMatch(/script line 9: shot sh020: target 'nope'/);
  });

  it("validates the body", async () => {
    const ep = await episode();
    const res = await promote({ ep, items: "some", hashes: { script: "a", series: "b" } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(/^items: /) });
    const noHashes = await promote({ ep, items: "all" });
    expect(noHashes).toEqual({ status: 400, body: { error: "hashes: required" } });
  });
});
