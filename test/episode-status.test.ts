// GET /studio/episode called as the runtime calls it, on real episode folders: takes written as renders leave
// them, staleness for every reason, cut order, overrides, missing references and the ep/pass refusals.
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { functions } from "../functions/index.ts";
import { readBuild } from "../lib/episode/shotlists.ts";
import { presetHash, storyHash } from "../lib/script/canonical.ts";
import { writeFileAtomic } from "../lib/store/atomic.ts";
import { createCaches } from "../lib/store/caches.ts";
import { createApp } from "../runtime/app.ts";
import { seriesS } from "./support/series-s.ts";
import { useStudio } from "./support/studio-episode.ts";

const studio = useStudio();

const H3 = "minimax_h3_ref2va";

/** sh010–sh030 on H3 Ref2VA (the series target), sh030 continuing sh020 by latent, sh040 on LTX-2. */
const SCRIPT = [
  "= e01  T",
  "# sq01 kitchen",
  "## sh010",
  "who: ada",
  "dur: 3",
  "Ada waits by the door. She looks out.",
  "## sh020",
  "who: bo",
  "dur: 2",
  "Bo sits.",
  "## sh030",
  "continuous: latent",
  "who: ada",
  "dur: 2",
  "Ada stands up.",
  "## sh040",
  "target: ltx2",
  "who: cy",
  "dur: 2",
  "Cy runs.",
];

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

function h3Series(): Record<string, Any> {
  const s = seriesS();
  s.series.target = H3;
  return s;
}

async function build(ep: string): Promise<void> {
  const { body } = await studio.call("POST", "/build", { ep });
  expect(body.ok, body.error).toBe(true);
}

async function episode(script: string[] = SCRIPT, series: Record<string, Any> = h3Series()): Promise<string> {
  const ep = await studio.folder({ "series.json": series, "ep01.md": script.join("\n") });
  await build(ep);
  return ep;
}

const status = (ep: string, pass = "proxy") => studio.call("GET", "/episode", { ep, pass });

const shotOf = (body: Any, shot: string) => body.shots.find((s: Any) => s.shot === shot);
const takeOf = (body: Any, shot: string, take: number) =>
  shotOf(body, shot).takes.find((t: Any) => t.take === take);

/** The built entry of a shot and its document's defaults, as a render would hash them. */
async function built(ep: string, shot: string, pass: "final" | "proxy" = "proxy") {
  const b = await readBuild({ caches: createCaches() }, ep, pass);
  const s = b!.shots.get(shot)!;
  return { entry: s.entry, defaults: b!.docs[s.target].defaults, target: s.target };
}

/** A sidecar as the render writes it, current against the build (seed as a 63-bit integer literal). */
async function currentSidecar(ep: string, shot: string, extra: Record<string, unknown> = {}) {
  const b = await built(ep, shot);
  return {
    status: "ok",
    seed: String(b.entry.seed),
    seed_source: "stable",
    target: b.target,
    shot_hash: storyHash(b.entry),
    preset_hash: presetHash(b.defaults, b.entry),
    fps: 24,
    frames: b.entry.length,
    width: 512,
    height: 288,
    queued: "2025-01-01T10:00:00+00:00",
    finished: "2025-01-01T10:01:00+00:00",
    refs: [],
    ...extra,
  };
}

const seedLiteral = (json: string) => json.replace(/"seed": "(\d+)"/g, '"seed": $1');

interface TakeFiles {
  sidecar?: Record<string, unknown> | null;
  mp4?: boolean;
  jpg?: boolean;
  strip?: boolean;
  other?: Record<string, string>;
}

async function writeTake(ep: string, pass: "final" | "proxy", shot: string, take: number, f: TakeFiles) {
  const dir = path.join(ep, pass === "final" ? "renders" : "renders_proxy", shot);
  await mkdir(dir, { recursive: true });
  const stem = `${shot}_t${String(take).padStart(2, "0")}`;
  if (f.sidecar) {
    await writeFileAtomic(path.join(dir, `${stem}.json`), seedLiteral(JSON.stringify(f.sidecar, null, 2)));
  }
  if (f.mp4 ?? true) await writeFile(path.join(dir, `${stem}.mp4`), "mp4");
  if (f.jpg) await writeFile(path.join(dir, `${stem}.jpg`), "jpg");
  if (f.strip) await writeFile(path.join(dir, `${stem}_strip.jpg`), "strip");
  for (const [name, text] of Object.entries(f.other ?? {})) await writeFile(path.join(dir, name), text);
}

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

async function writeRef(ep: string, rel: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(ep, rel)), { recursive: true });
  await writeFile(path.join(ep, rel), text);
}

describe("GET /studio/episode refusals", () => {
  it("checks ep in order (relative 400, outside roots 403, missing 404) and an unbuilt pass is 404", async () => {
    expect((await status("relative/ep01")).status).toBe(400);
    expect((await status(path.join(studio.env.dir, "elsewhere", "ep01"))).status).toBe(403);
    expect((await status(path.join(studio.root, "nope", "ep01"))).status).toBe(404);
    const ep = await studio.folder();
    const unbuilt = await status(ep);
    expect(unbuilt.status).toBe(404);
    expect(unbuilt.body.error).toMatch(/not built/);
    const bad = await status(ep, "FINAL");
    expect(bad.status).toBe(400);
  });

  it("answers 404 for a pass whose shot list is gone while the other pass still answers", async () => {
    const ep = await episode();
    await rm(path.join(ep, "shotlist", "shotlist.json"));
    expect((await status(ep, "final")).status).toBe(404);
    expect((await status(ep, "proxy")).status).toBe(200);
  });
});

describe("GET /studio/episode top level and shots", () => {
  it("gives the pass, the series target's size, folder, targets and every shot field", async () => {
    const s = h3Series();
    s.audio.track = "audio/track.wav";
    const ep = await episode(SCRIPT, s);
    const { status: code, body } = await status(ep);
    expect(code).toBe(200);
    expect(body).toMatchObject({
      episode: "e01",
      title: "T",
      pass: "proxy",
      fps: 24,
      width: 512,
      height: 288,
      folder: "renders_proxy",
      target: H3,
      target_source: "series",
      series_target: H3,
      track: { path: "audio/track.wav", exists: false, seconds: null },
    });
    expect(body.shots.map((x: Any) => x.shot)).toEqual(["sh010", "sh020", "sh030", "sh040"]);
    const sh010 = shotOf(body, "sh010");
    expect(sh010).toMatchObject({
      orphan: false,
      sequence: "sq01",
      length_estimated: false,
      size: "medium",
      subjects: ["ada"],
      audio_policy: "generate",
      action: "Ada waits by the door.",
      target: H3,
      target_source: "series",
      built_target: H3,
      profile: null,
      audio_in: null,
      audio_out: null,
      takes: [],
      override: { fields: [], stale: false },
    });
    expect(sh010.seconds).toBeCloseTo(sh010.length / 24, 3);
    expect(sh010.cut).toMatchObject({
      take: null,
      picked: false,
      usable: false,
      frames: null,
      in_cut_file: false,
      order: 0,
      script_index: 0,
      out_of_order: false,
      fps: 24,
    });
    expect(shotOf(body, "sh040")).toMatchObject({ built_target: "ltx2", target_source: "script" });
    expect(shotOf(body, "sh040")).not.toHaveProperty("retarget_error");
  });

  it("lists takes with status, paths of the files present and pre-sidecar takes as unknown", async () => {
    const ep = await episode();
    const sheet = "refs/ada/ada_sheet_4panel.png";
    await writeRef(ep, sheet, "ada v1");
    // t01: from before sidecars (only the mp4).
    await writeTake(ep, "proxy", "sh010", 1, {});
    // t02: a current render with every file.
    await writeTake(ep, "proxy", "sh010", 2, {
      sidecar: await currentSidecar(ep, "sh010", {
        comfy_prompt_id: "p-2",
        note: "nice",
        overrides: ["steps"],
        save_notes: "saved",
        refs: [{ slot: "Picture 1", kind: "image", path: sheet, sha1: sha1("ada v1") }],
      }),
      jpg: true,
      strip: true,
      other: { "sh010_t02_h3.wav": "wav" },
    });
    // t03: finished but its mp4 and pictures are missing.
    await writeTake(ep, "proxy", "sh010", 3, { sidecar: await currentSidecar(ep, "sh010"), mp4: false });
    // t04: still queued.
    await writeTake(ep, "proxy", "sh010", 4, {
      sidecar: { ...(await currentSidecar(ep, "sh010")), status: "queued", backend_prompt_id: "job-4" },
      mp4: false,
    });
    const { body } = await status(ep);
    const t1 = takeOf(body, "sh010", 1);
    expect(t1).toMatchObject({
      status: "ok",
      has_video: true,
      seed: null,
      fps: null,
      frames: null,
      stale: ["unknown"],
      mp4: "renders_proxy/sh010/sh010_t01.mp4",
      thumb: null,
      strip: null,
      target: null,
      upscale: null,
      post: null,
      draft: null,
    });
    const t2 = takeOf(body, "sh010", 2);
    const b = await built(ep, "sh010");
    expect(t2).toMatchObject({
      status: "ok",
      has_video: true,
      seed: String(b.entry.seed),
      seed_source: "stable",
      fps: 24,
      frames: b.entry.length,
      width: 512,
      height: 288,
      note: "nice",
      overrides: ["steps"],
      stale: [],
      thumb: "renders_proxy/sh010/sh010_t02.jpg",
      strip: "renders_proxy/sh010/sh010_t02_strip.jpg",
      mp4: "renders_proxy/sh010/sh010_t02.mp4",
      audio: "renders_proxy/sh010/sh010_t02.mp4",
      backend_prompt_id: "p-2",
      save_notes: "saved",
      target: H3,
      queued: "2025-01-01T10:00:00+00:00",
      finished: "2025-01-01T10:01:00+00:00",
    });
    expect(typeof t2.seed).toBe("string");
    expect(t2.seed.length).toBeGreaterThan(15);
    expect(takeOf(body, "sh010", 3)).toMatchObject({
      status: "ok",
      has_video: false,
      mp4: null,
      thumb: null,
    });
    expect(takeOf(body, "sh010", 4)).toMatchObject({ status: "queued", backend_prompt_id: "job-4" });
    // The cut plays the newest usable take: t02 (t03 has no mp4, t04 is queued).
    expect(shotOf(body, "sh010").cut).toMatchObject({
      take: 2,
      picked: false,
      usable: true,
      frames: b.entry.length,
      fps: 24,
      audio_file: "renders_proxy/sh010/sh010_t02.mp4",
    });
  });

  it("sees a sidecar rewritten after the last listing", async () => {
    const ep = await episode();
    const sc = await currentSidecar(ep, "sh020");
    await writeTake(ep, "proxy", "sh020", 1, { sidecar: { ...sc, status: "queued" } });
    expect(takeOf((await status(ep)).body, "sh020", 1).status).toBe("queued");
    await writeTake(ep, "proxy", "sh020", 1, { sidecar: { ...sc, frames: 41 } });
    const again = (await status(ep)).body;
    expect(takeOf(again, "sh020", 1)).toMatchObject({ status: "ok", frames: 41 });
    expect(shotOf(again, "sh020").cut).toMatchObject({ take: 1, usable: true, frames: 41 });
    await writeTake(ep, "proxy", "sh020", 2, { sidecar: { ...sc, frames: 40 } });
    expect(shotOf((await status(ep)).body, "sh020").cut.take).toBe(2);
  });
});

describe("staleness", () => {
  it("script: a script edit after the take (and the override based on the old entry)", async () => {
    const ep = await episode();
    const before = await built(ep, "sh010");
    await writeTake(ep, "proxy", "sh010", 1, { sidecar: await currentSidecar(ep, "sh010") });
    await writeFile(
      path.join(ep, "overrides.json"),
      JSON.stringify({
        shots: { sh010: { [H3]: { proxy: { base_hash: storyHash(before.entry), steps: 6 } } } },
      }),
    );
    let body = (await status(ep)).body;
    expect(takeOf(body, "sh010", 1).stale).toEqual([]);
    expect(shotOf(body, "sh010").override).toEqual({ fields: ["steps"], stale: false });
    const edited = SCRIPT.map((l) =>
      l.startsWith("Ada waits") ? "Ada waits by the door for a long while." : l,
    );
    await writeFile(path.join(ep, "ep01.md"), edited.join("\n"));
    await build(ep);
    body = (await status(ep)).body;
    expect(takeOf(body, "sh010", 1).stale).toEqual(["script"]);
    expect(shotOf(body, "sh010").override).toEqual({ fields: ["steps"], stale: true });
    expect(shotOf(body, "sh010").action).toBe("Ada waits by the door for a long while.");
  });

  it("ref: a reference file whose content changed since the take", async () => {
    const ep = await episode();
    const sheet = "refs/ada/ada_sheet_4panel.png";
    await writeRef(ep, sheet, "ada v1");
    await writeTake(ep, "proxy", "sh010", 1, {
      sidecar: await currentSidecar(ep, "sh010", {
        refs: [{ slot: "Picture 1", kind: "image", path: sheet, sha1: sha1("ada v1") }],
      }),
    });
    expect(takeOf((await status(ep)).body, "sh010", 1).stale).toEqual([]);
    await writeRef(ep, sheet, "ada v2, redrawn");
    expect(takeOf((await status(ep)).body, "sh010", 1).stale).toEqual(["ref"]);
    await writeRef(ep, sheet, "ada v1");
    expect(takeOf((await status(ep)).body, "sh010", 1).stale).toEqual([]);
  });

  it("ref: an optional keyframe the take was rendered without now exists", async () => {
    const ep = await episode();
    // t01 recorded the optional first frame as missing; t02 did not record the keyframes at all.
    await writeTake(ep, "proxy", "sh040", 1, {
      sidecar: await currentSidecar(ep, "sh040", {
        refs: [
          {
            slot: "first frame",
            kind: "image",
            path: "refs/shots/sh040/first.png",
            optional: true,
            sha1: null,
          },
        ],
      }),
    });
    await writeTake(ep, "proxy", "sh040", 2, { sidecar: await currentSidecar(ep, "sh040") });
    let body = (await status(ep)).body;
    expect(takeOf(body, "sh040", 1).stale).toEqual([]);
    expect(takeOf(body, "sh040", 2).stale).toEqual([]);
    await writeRef(ep, "refs/shots/sh040/first.png", "a first frame");
    body = (await status(ep)).body;
    expect(takeOf(body, "sh040", 1).stale).toEqual(["ref"]);
    expect(takeOf(body, "sh040", 2).stale).toEqual(["ref"]);
  });

  it("target: a retargeted shot's takes on the old target", async () => {
    const ep = await episode();
    await writeTake(ep, "proxy", "sh010", 1, { sidecar: await currentSidecar(ep, "sh010") });
    await writeFile(
      path.join(ep, "overrides.json"),
      JSON.stringify({ shots: { sh010: { target: "ltx2" } } }),
    );
    const s = shotOf((await status(ep)).body, "sh010");
    expect(s).toMatchObject({ target: "ltx2", target_source: "override", built_target: H3 });
    expect(s.override.fields).toEqual(["target"]);
    expect(s.takes[0].stale).toEqual(["target"]);
    expect(s).not.toHaveProperty("retarget_error");
    // LTX-2 reads no subject sheets: the retargeted shot misses nothing the H3 build needed.
    expect(s.missing_refs).toEqual([]);
  });

  it("preset: the pass defaults changed under the take, the story did not", async () => {
    const ep = await episode();
    await writeTake(ep, "proxy", "sh020", 1, { sidecar: await currentSidecar(ep, "sh020") });
    expect(takeOf((await status(ep)).body, "sh020", 1).stale).toEqual([]);
    const s = h3Series();
    s.proxy = { steps: 6 };
    await writeFile(path.join(ep, "series.json"), JSON.stringify(s, null, 2));
    await build(ep);
    expect(takeOf((await status(ep)).body, "sh020", 1).stale).toEqual(["preset"]);
  });

  it("chain: the previous shot's take, its re-render and the cut order", async () => {
    const ep = await episode();
    const prev = await currentSidecar(ep, "sh020", { finished: "2025-01-01T10:01:00+00:00" });
    await writeTake(ep, "proxy", "sh020", 1, { sidecar: prev });
    await writeTake(ep, "proxy", "sh030", 1, {
      sidecar: await currentSidecar(ep, "sh030", {
        finished: "2025-01-01T10:05:00+00:00",
        continued_from: { shot: "sh020", take: 1, pass: "proxy", via: "latent", overlap: 39 },
      }),
    });
    expect(takeOf((await status(ep)).body, "sh030", 1).stale).toEqual([]);
    // A newer usable take of sh020: the cut now plays it.
    await writeTake(ep, "proxy", "sh020", 2, { sidecar: prev });
    expect(takeOf((await status(ep)).body, "sh030", 1).stale).toEqual(["chain"]);
    // Picking t01 again restores the chain.
    const cut = {
      proxy: [{ shot: "sh010" }, { shot: "sh020", take: 1 }, { shot: "sh030" }, { shot: "sh040" }],
    };
    await writeFile(path.join(ep, "cut.json"), JSON.stringify(cut));
    expect(takeOf((await status(ep)).body, "sh030", 1).stale).toEqual([]);
    // t01 of sh020 rendered again after sh030's take finished.
    await writeTake(ep, "proxy", "sh020", 1, { sidecar: { ...prev, finished: "2025-01-01T11:00:00+00:00" } });
    expect(takeOf((await status(ep)).body, "sh030", 1).stale).toEqual(["chain"]);
    await writeTake(ep, "proxy", "sh020", 1, { sidecar: prev });
    // Another shot placed before sh030.
    const moved = {
      proxy: [{ shot: "sh020", take: 1 }, { shot: "sh010" }, { shot: "sh030" }, { shot: "sh040" }],
    };
    await writeFile(path.join(ep, "cut.json"), JSON.stringify(moved));
    expect(takeOf((await status(ep)).body, "sh030", 1).stale).toEqual(["chain"]);
  });
});

describe("cut, overrides and missing references", () => {
  it("keeps the cut's order, inserts missing script shots, marks orphans and moved shots", async () => {
    const ep = await episode();
    await writeTake(ep, "proxy", "ghost", 1, {});
    const cut = {
      episode: "e01",
      proxy: [
        { shot: "sh030", locked: true, note: "keep", trim_in: 3, flag: true },
        { shot: "ghost", take: 1 },
        { shot: "sh010", out: true },
        { shot: "sh010" },
      ],
    };
    await writeFile(path.join(ep, "cut.json"), JSON.stringify(cut));
    const { body } = await status(ep);
    // sh020 goes after sh010 and sh040 after sh030: each after the nearest earlier script shot present.
    expect(body.shots.map((s: Any) => s.shot)).toEqual(["sh030", "sh040", "ghost", "sh010", "sh020"]);
    const rows = Object.fromEntries(body.shots.map((s: Any) => [s.shot, s]));
    expect(rows.sh030.cut).toMatchObject({
      order: 0,
      script_index: 2,
      out_of_order: true,
      in_cut_file: true,
      locked: true,
      note: "keep",
      trim_in: 3,
      trim_out: 0,
      flag: true,
    });
    expect(rows.sh040.cut).toMatchObject({
      order: 1,
      script_index: 3,
      out_of_order: true,
      in_cut_file: false,
    });
    expect(rows.ghost).toMatchObject({ orphan: true, sequence: null, length: null, target: null });
    expect(rows.ghost.cut).toMatchObject({
      take: 1,
      picked: true,
      usable: true,
      script_index: null,
      out_of_order: false,
    });
    expect(rows.ghost.takes.map((t: Any) => t.stale)).toEqual([["unknown"]]);
    // The duplicate sh010 entry is ignored (the first, marked out, wins).
    expect(rows.sh010.cut).toMatchObject({ order: 3, out: true, in_cut_file: true, out_of_order: false });
    expect(rows.sh020.cut).toMatchObject({ order: 4, in_cut_file: false, out_of_order: false });
    expect(rows.sh010.cut.note).toBeNull();
  });

  it("plays the other pass's take for a placeholder entry", async () => {
    const ep = await episode();
    await writeTake(ep, "proxy", "sh010", 1, {
      sidecar: await currentSidecar(ep, "sh010", { fps: 25, frames: 70 }),
    });
    await writeFile(
      path.join(ep, "cut.json"),
      JSON.stringify({ final: [{ shot: "sh010", pass: "proxy", take: 1 }] }),
    );
    const sh010 = shotOf((await status(ep, "final")).body, "sh010");
    expect(sh010.cut).toMatchObject({
      take: 1,
      picked: true,
      pass: "proxy",
      placeholder: true,
      usable: true,
      frames: 70,
      fps: 25,
    });
    expect(sh010.takes).toEqual([]);
  });

  it("lists override fields for the current target and pass, shared seed and note, and the retarget", async () => {
    const ep = await episode();
    const b = await built(ep, "sh020");
    const overrides = {
      shots: {
        sh020: {
          [H3]: {
            seed: 42,
            note: "warmer",
            proxy: { base_hash: storyHash(b.entry), model: "m.safetensors", steps: 5 },
            final: { prompt: "final only" },
          },
          ltx2: { proxy: { steps: 9 } },
        },
      },
    };
    await writeFile(path.join(ep, "overrides.json"), JSON.stringify(overrides));
    const sh020 = shotOf((await status(ep)).body, "sh020");
    expect(sh020.override).toEqual({ fields: ["model", "note", "seed", "steps"], stale: false });
    overrides.shots.sh020[H3].proxy.base_hash = "0".repeat(40);
    await writeFile(path.join(ep, "overrides.json"), JSON.stringify({ ...overrides, episode: "e01" }));
    expect(shotOf((await status(ep)).body, "sh020").override.stale).toBe(true);
  });

  it("names the missing pictures of H3 slots and the required Wan first frame", async () => {
    const ep = await episode([
      ...SCRIPT,
      "## sh050",
      "target: wan22_i2v",
      "who: bo",
      "dur: 2",
      "Bo leaves.",
      "## sh060",
      "policy: clone",
      "who: gina_towel",
      "dur: 3",
      "GINA_TOWEL: Who is there?",
    ]);
    let body = (await status(ep)).body;
    expect(shotOf(body, "sh010").missing_refs).toEqual([
      { slot: "Picture 1", kind: "image", path: "refs/ada/ada_sheet_4panel.png", subject: "ada" },
      { slot: "Picture 4", kind: "image", path: "refs/_bg/kitchen.png", location: "kitchen" },
    ]);
    expect(shotOf(body, "sh050").missing_refs).toEqual([
      {
        slot: "first frame",
        kind: "image",
        path: "refs/shots/sh050/first.png",
        anyway: false,
        why: expect.stringMatching(/first frame/),
      },
    ]);
    // A clone shot also reads each speaker's voice sample (a variant's is its own conventional path).
    expect(shotOf(body, "sh060").missing_refs).toEqual([
      {
        slot: "Picture 1",
        kind: "image",
        path: "refs/gina/gina_towel_sheet_4panel.png",
        subject: "gina_towel",
      },
      { slot: "Picture 4", kind: "image", path: "refs/_bg/kitchen.png", location: "kitchen" },
      { slot: "Audio 1", kind: "audio", path: "refs/voices/gina_towel.wav", subject: "gina_towel" },
    ]);
    await writeRef(ep, "refs/ada/ada_sheet_4panel.png", "ada");
    await writeRef(ep, "refs/shots/sh050/first.png", "frame");
    body = (await status(ep)).body;
    expect(shotOf(body, "sh010").missing_refs.map((m: Any) => m.slot)).toEqual(["Picture 4"]);
    expect(shotOf(body, "sh050").missing_refs).toEqual([]);
  });

  it("reports a retarget that does not compile", async () => {
    const ep = await episode([
      ...SCRIPT,
      "## sh060",
      "target: ltx2",
      "who: ada, bo, cy",
      "with: kettle",
      "dur: 2",
      "Everyone gathers.",
    ]);
    await writeFile(path.join(ep, "overrides.json"), JSON.stringify({ shots: { sh060: { target: H3 } } }));
    const sh060 = shotOf((await status(ep)).body, "sh060");
    expect(sh060.target).toBe(H3);
    expect(sh060.retarget_error).toMatch(/sh060.*4 subjects/);
    // The refs it reads stay the built entry's.
    expect(sh060.missing_refs).toEqual([]);
  });

  it("summarises a draft (expired after 7 days) and an upscale record", async () => {
    const ep = await episode();
    const made = new Date(Date.now() - 8 * 24 * 3600 * 1000).toISOString();
    await writeTake(ep, "proxy", "sh010", 1, {
      sidecar: await currentSidecar(ep, "sh010", { draft: { task: "t-1", made }, from_draft: null }),
      other: {
        "sh010_t01.up.json": JSON.stringify({
          status: "ok",
          seed: 7,
          width: 1024,
          height: 576,
          method: "latent",
        }),
        "sh010_t01.up.mp4": "up",
      },
    });
    const t1 = takeOf((await status(ep)).body, "sh010", 1);
    expect(t1.draft).toEqual({ task: "t-1", made, expired: true });
    expect(t1.upscale).toMatchObject({
      status: "ok",
      fresh: false,
      width: 1024,
      height: 576,
      method: "latent",
      mp4: "renders_proxy/sh010/sh010_t01.up.mp4",
    });
    expect(t1.post).toBeNull();
  });

  it("never sends a seed as a number", async () => {
    const ep = await episode();
    await writeTake(ep, "proxy", "sh010", 1, { sidecar: await currentSidecar(ep, "sh010") });
    // The text on the wire, as the app writes it.
    const app = createApp(studio.env.services, functions);
    const res = await app.request(`/studio/episode?ep=${encodeURIComponent(ep)}`);
    const text = await res.text();
    expect(text).toMatch(/"seed":"\d{10,}"/);
    expect(text).not.toMatch(/"seed":\d/);
    expect(JSON.parse(await readFile(path.join(ep, "shotlist", "shotlist_proxy.json"), "utf8"))).toBeTruthy();
  });

  it("answers 304 to a page holding the current answer, and 200 with a new tag once a take changes", async () => {
    const ep = await episode();
    await writeTake(ep, "proxy", "sh010", 1, { sidecar: await currentSidecar(ep, "sh010") });
    const app = createApp(studio.env.services, functions);
    const url = `/studio/episode?ep=${encodeURIComponent(ep)}&pass=proxy`;
    const first = await app.request(url);
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^W\/".+"$/);
    const body = await first.text();
    const same = await app.request(url, { headers: { "if-none-match": etag! } });
    expect(same.status).toBe(304);
    expect(same.headers.get("etag")).toBe(etag);
    expect(await same.text()).toBe("");
    // The other pass is another answer with another tag.
    expect(
      (await app.request(url.replace("proxy", "final"), { headers: { "if-none-match": etag! } })).status,
    ).toBe(200);
    await writeTake(ep, "proxy", "sh010", 2, { sidecar: await currentSidecar(ep, "sh010") });
    const changed = await app.request(url, { headers: { "if-none-match": etag! } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(await changed.text()).not.toBe(body);
  });
});
