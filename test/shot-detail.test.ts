// GET /studio/shot called as the runtime calls it: built entry, override view, effective settings and their precedence
// (negative sources included), built_values, refs used, takes with full sidecars, and the one-off target.
import { mkdir, readdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { functions } from "../functions/index.ts";
import { readBuild } from "../lib/episode/shotlists.ts";
import { storyHash } from "../lib/script/canonical.ts";
import { writeFileAtomic } from "../lib/store/atomic.ts";
import { createCaches } from "../lib/store/caches.ts";
import { createApp } from "../runtime/app.ts";
import { seriesS } from "./support/series-s.ts";
import { useStudio } from "./support/studio-episode.ts";

const studio = useStudio();

const H3 = "minimax_h3_ref2va";
const LTX_NEGATIVE = /^worst quality/;

/** sh010 on H3 Ref2VA (the series target), sh020 on LTX-2 (takes a negative), sh030 on Wan I2V (cfg 1). */
const SCRIPT = [
  "= e01  T",
  "# sq01 kitchen",
  "## sh010",
  "who: ada",
  "dur: 3",
  "Ada waits by the door.",
  "## sh020",
  "target: ltx2",
  "who: bo",
  "dur: 2",
  "Bo sits.",
  "## sh030",
  "target: wan22_i2v",
  "who: cy",
  "dur: 2",
  "Cy runs.",
  "## sh040",
  "target: ltx2",
  "who: ada, bo, cy",
  "with: kettle",
  "dur: 2",
  "Everyone gathers.",
].join("\n");

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

function series(extra: Record<string, unknown> = {}): Record<string, Any> {
  const s = seriesS();
  s.series.target = H3;
  return { ...s, ...extra };
}

async function episode(s: Record<string, Any> = series()): Promise<string> {
  const ep = await studio.folder({ "series.json": s, "ep01.md": SCRIPT });
  expect((await studio.call("POST", "/build", { ep })).body.ok).toBe(true);
  return ep;
}

const shot = (ep: string, id: string, extra: Record<string, string> = {}) =>
  studio.call("GET", "/shot", { ep, shot: id, ...extra });

const writeOverrides = (ep: string, value: unknown) =>
  writeFileAtomic(
    path.join(ep, "overrides.json"),
    JSON.stringify(value, null, 2).replace(/"seed": "(\d+)"/g, '"seed": $1'),
  );

async function entryOf(ep: string, id: string) {
  const b = await readBuild({ caches: createCaches() }, ep, "proxy");
  return b!.shots.get(id)!.entry;
}

describe("GET /studio/shot refusals", () => {
  it("checks ep (400, 403, 404), an unbuilt pass, an unknown shot and an unknown target", async () => {
    expect((await shot("relative/ep01", "sh010")).status).toBe(400);
    expect((await shot(path.join(studio.env.dir, "elsewhere"), "sh010")).status).toBe(403);
    expect((await shot(path.join(studio.root, "missing"), "sh010")).status).toBe(404);
    const empty = await studio.folder();
    expect((await shot(empty, "sh010")).status).toBe(404);
    const ep = await episode();
    const unknown = await shot(ep, "sh999");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/sh999/);
    const bad = await shot(ep, "sh010", { target: "krea2" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/not a video target/);
    expect((await shot(ep, "sh010", { target: "nope" })).status).toBe(400);
  });
});

describe("GET /studio/shot answers", () => {
  it("gives the built entry with its seed as a string, targets and the refs the render reads", async () => {
    const ep = await episode();
    await mkdir(path.join(ep, "refs", "ada"), { recursive: true });
    await writeFile(path.join(ep, "refs", "ada", "ada_sheet_4panel.png"), "png");
    const { status, body } = await shot(ep, "sh010");
    expect(status).toBe(200);
    const entry = await entryOf(ep, "sh010");
    expect(body).toMatchObject({
      shot: "sh010",
      pass: "proxy",
      built_target: H3,
      target: H3,
      target_source: "series",
      profile: null,
      override: {},
      override_stale: false,
    });
    expect(body.built.seed).toBe(String(entry.seed));
    expect(body.built.id).toBe("sh010");
    expect(body.built_prompt).toBe((entry.prompt as string[]).join("\n\n"));
    expect(body).not.toHaveProperty("built_values");
    expect(body.effective).toMatchObject({
      prompt: body.built_prompt,
      seed: String(entry.seed),
      seed_source: "stable",
      steps: 4,
      negative: null,
      negative_source: "none",
      target: H3,
      width: 512,
      height: 288,
      length: entry.length,
      loras: [{ name: expect.stringMatching(/^minimax_h3_ref2v_lightx2v/), strength: 1 }],
    });
    expect(body.refs_used).toEqual([
      {
        id: "subject:ada",
        kind: "image",
        role: "subject",
        slot: "Picture 1",
        path: "refs/ada/ada_sheet_4panel.png",
        exists: true,
        need: "required",
        thumb: "refs/ada/ada_sheet_4panel.png",
      },
      {
        id: "location:kitchen",
        kind: "image",
        role: "plate",
        slot: "Picture 4",
        path: "refs/_bg/kitchen.png",
        exists: false,
        need: "required",
        thumb: null,
      },
    ]);
    expect(body.takes).toEqual([]);
  });

  it("layers the override over the built values and keeps those in built_values", async () => {
    const ep = await episode();
    const entry = await entryOf(ep, "sh010");
    await writeOverrides(ep, {
      episode: "e01",
      shots: {
        sh010: {
          [H3]: {
            seed: "1234567890123456789",
            note: "slower",
            proxy: {
              base_hash: storyHash(entry),
              prompt: "An override prompt.",
              model: "other.safetensors",
              loras: [{ name: "x.safetensors", strength: 0.5 }],
              steps: 6,
              size: "640x384",
            },
          },
        },
      },
    });
    const { body } = await shot(ep, "sh010");
    expect(body.override).toEqual({
      seed: "1234567890123456789",
      note: "slower",
      prompt: "An override prompt.",
      model: "other.safetensors",
      loras: [{ name: "x.safetensors", strength: 0.5 }],
      steps: 6,
      size: "640x384",
    });
    expect(body.override_stale).toBe(false);
    expect(body.effective).toMatchObject({
      prompt: "An override prompt.",
      seed: "1234567890123456789",
      seed_source: "override",
      model: "other.safetensors",
      loras: [{ name: "x.safetensors", strength: 0.5 }],
      steps: 6,
      width: 640,
      height: 384,
      target: H3,
    });
    expect(body.built_values).toMatchObject({
      prompt: body.built_prompt,
      seed: String(entry.seed),
      seed_source: "stable",
      model: "minimax_h3_ref2va_pruned_int8_convrot.safetensors",
      steps: 4,
      width: 512,
      height: 288,
      target: H3,
    });
  });

  it("answers a one-off target without writing anything and without built_values", async () => {
    const ep = await episode();
    await writeOverrides(ep, { shots: { sh010: { [H3]: { proxy: { steps: 6 } } } } });
    const before = await readdir(path.join(ep, "shotlist"));
    const mtime = (await stat(path.join(ep, "overrides.json"))).mtimeMs;
    const { status, body } = await shot(ep, "sh010", { target: "ltx2" });
    expect(status).toBe(200);
    expect(body).toMatchObject({ target: "ltx2", target_source: "request", built_target: H3 });
    expect(body).not.toHaveProperty("built_values");
    expect(body.effective).toMatchObject({
      target: "ltx2",
      width: 448,
      height: 256,
      negative_source: "preset",
      model: expect.stringMatching(/^ltx-2\.5/),
    });
    expect(body.effective.negative).toMatch(LTX_NEGATIVE);
    expect(typeof body.effective.prompt).toBe("string");
    expect(body.effective.prompt).not.toBe(body.built_prompt);
    // LTX-2 reads the keyframes and, when it can, a sheet composed at queue time (none kept yet).
    expect(body.refs_used.map((r: Any) => `${r.role}:${r.need}`)).toEqual([
      "subject:optional",
      "first:optional",
      "last:optional",
      "reference_sheet:optional",
    ]);
    expect(body.refs_used[3]).toMatchObject({ path: null, exists: false, thumb: null });
    expect(await readdir(path.join(ep, "shotlist"))).toEqual(before);
    expect((await stat(path.join(ep, "overrides.json"))).mtimeMs).toBe(mtime);
  });

  it("takes the negative from the override, negative.txt, the series config, then the preset", async () => {
    const ep = await episode(series({ negative: "  series negative  " }));
    let e = (await shot(ep, "sh020")).body.effective;
    expect(e).toMatchObject({ negative: "series negative", negative_source: "series" });
    await writeFile(path.join(ep, "negative.txt"), "\uFEFF  episode negative\n");
    e = (await shot(ep, "sh020")).body.effective;
    expect(e).toMatchObject({ negative: "episode negative", negative_source: "negative.txt" });
    await writeOverrides(ep, { shots: { sh020: { ltx2: { proxy: { negative: "" } } } } });
    const both = (await shot(ep, "sh020")).body;
    expect(both.effective).toMatchObject({ negative: "", negative_source: "override" });
    expect(both.built_values).toMatchObject({
      negative: "episode negative",
      negative_source: "negative.txt",
    });
    // An empty negative.txt counts as absent; without a series negative the preset's applies.
    const plain = await episode();
    await writeFile(path.join(plain, "negative.txt"), "   \n");
    e = (await shot(plain, "sh020")).body.effective;
    expect(e.negative_source).toBe("preset");
    expect(e.negative).toMatch(LTX_NEGATIVE);
    // H3 takes no negative at all.
    expect((await shot(plain, "sh010")).body.effective).toMatchObject({
      negative: null,
      negative_source: "none",
    });
  });

  it("notes that a negative has no effect at cfg 1 (Wan I2V) and shows the second model", async () => {
    const ep = await episode(series({ negative: "blurry" }));
    const e = (await shot(ep, "sh030")).body.effective;
    expect(e).toMatchObject({
      negative: "blurry",
      negative_source: "series",
      model_low: expect.stringMatching(/low_noise/),
    });
    expect(e.notes.join(" ")).toMatch(/no effect at cfg 1/);
    expect(e.loras).toHaveLength(2);
  });

  it("ignores a prompt override on a retargeted shot and reports a retarget that cannot compile", async () => {
    const ep = await episode();
    await writeOverrides(ep, {
      shots: { sh010: { target: "ltx2", ltx2: { proxy: { prompt: "ignored", steps: 9 } } } },
    });
    const { body } = await shot(ep, "sh010");
    expect(body).toMatchObject({ target: "ltx2", target_source: "override", built_target: H3 });
    expect(body.override).toMatchObject({ target: "ltx2", prompt: "ignored", steps: 9 });
    expect(body.effective.prompt).not.toBe("ignored");
    expect(body.effective.steps).toBe(9);
    expect(body.effective.notes.join(" ")).toMatch(/prompt override is ignored/);
    expect(body.built_values).toMatchObject({ target: H3, steps: 4 });
    expect(body.effective).not.toHaveProperty("error");
    // Four subjects do not fit H3's three picture slots: the answer says so and keeps the built values.
    const failed = (await shot(ep, "sh040", { target: H3 })).body;
    expect(failed).toMatchObject({ target: H3, target_source: "request", built_target: "ltx2" });
    expect(failed.effective.error).toMatch(/can't compile sh040 for minimax_h3_ref2va: .*4 subjects/);
    expect(failed.effective.length).toBe((await entryOf(ep, "sh040")).length);
  });

  it("lists every take with its full sidecar (seeds as strings), files, staleness and reference image", async () => {
    const ep = await episode();
    const entry = await entryOf(ep, "sh030");
    const dir = path.join(ep, "renders_proxy", "sh030");
    await mkdir(dir, { recursive: true });
    const sidecar = {
      status: "ok",
      seed: "4611686018427387905",
      seed_source: "typed",
      target: "wan22_i2v",
      shot_hash: storyHash(entry),
      fps: 24,
      frames: 49,
      resolved: { model: { want: "a", using: "a", how: "exact", tier: "fp8" } },
      continued_from: { shot: "sh020", take: 1, seed: "12" },
      refs: [
        {
          slot: "reference",
          role: "reference",
          path: "renders_proxy/sh030/sh030_t01_reference.png",
          sha1: "x",
        },
      ],
    };
    await writeFile(
      path.join(dir, "sh030_t01.json"),
      JSON.stringify(sidecar).replace(/"seed":"(\d+)"/g, '"seed":$1'),
    );
    await writeFile(path.join(dir, "sh030_t01.mp4"), "mp4");
    await writeFile(path.join(dir, "sh030_t01_reference.png"), "png");
    await writeFile(path.join(dir, "sh030_t01_h3.wav"), "wav");
    const { body } = await shot(ep, "sh030");
    expect(body.takes).toHaveLength(1);
    const t = body.takes[0];
    expect(t).toMatchObject({
      take: 1,
      status: "ok",
      seed: "4611686018427387905",
      seed_source: "typed",
      reference_image: "renders_proxy/sh030/sh030_t01_reference.png",
      // Wan renders silent: the sound is the take's wav.
      audio: "renders_proxy/sh030/sh030_t01_h3.wav",
    });
    expect(t.sidecar.seed).toBe("4611686018427387905");
    expect(t.sidecar.continued_from.seed).toBe("12");
    expect(t.sidecar.resolved).toEqual(sidecar.resolved);
    expect(t.files).toEqual([
      "renders_proxy/sh030/sh030_t01.json",
      "renders_proxy/sh030/sh030_t01.mp4",
      "renders_proxy/sh030/sh030_t01_h3.wav",
      "renders_proxy/sh030/sh030_t01_reference.png",
    ]);
    // Continued from sh020 t01, but the cut plays no take of sh020.
    expect(t.stale).toEqual(["chain"]);
    // The text on the wire, as the app writes it.
    const app = createApp(studio.env.services, functions);
    const text = await (await app.request(`/studio/shot?ep=${encodeURIComponent(ep)}&shot=sh030`)).text();
    expect(text).not.toMatch(/"seed":\d/);
  });
});
