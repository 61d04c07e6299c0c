// POST /studio/render planning and queueing through the app, without running any job: redo skips, seeds, the
// request's target, sizes, missing references, backends, continuity chains, the answer, sidecars and jobs.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { readBuild } from "../lib/episode/shotlists.ts";
import type { StudioJobStore } from "../lib/jobs/store.ts";
import { presetHash, storyHash } from "../lib/script/canonical.ts";
import { createCaches } from "../lib/store/caches.ts";
import { seriesS } from "./support/series-s.ts";
import { makeStudio, refusal, SCRIPT, type Studio } from "./support/studio-episode.ts";

let s: Studio;
let store: StudioJobStore;

beforeAll(async () => {
  s = await makeStudio();
  store = await s.env.services.jobs();
});
afterAll(async () => {
  await store.close();
  await s.cleanup();
});
beforeEach(() => {
  s.env.events.length = 0;
});

const render = (body: Record<string, unknown>) => s.call("POST", "/render", body);
const sidecarOf = (ep: string, shot: string, take: number) =>
  path.join(ep, "renders_proxy", shot, `${shot}_t${String(take).padStart(2, "0")}.json`);
const readSidecar = async (ep: string, shot: string, take: number) =>
  JSON.parse(await readFile(sidecarOf(ep, shot, take), "utf8"));
const H3 = "minimax_h3_ref2va";

function h3Series() {
  const series = seriesS();
  series.series.target = H3;
  return series;
}

describe("POST /studio/render: the answer, takes and jobs", () => {
  it("queues every shot in cut order with string seeds, reserved sidecars, frozen shot lists and jobs", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await render({ ep });
    expect(res.status).toBe(200);
    const build = await readBuild({ caches: createCaches() }, ep, "proxy");
    const seedOf = (shot: string) => String(build!.shots.get(shot)!.entry.seed);
    expect(res.body).toEqual({
      queued: ["sh010", "sh020", "sh030"].map((shot) => ({
        shot,
        take: 1,
        prompt_id: expect.any(String),
        seed: seedOf(shot),
        seed_source: "stable",
        target: "animatic",
      })),
      skipped: [],
      errors: [],
    });

    const first = res.body.queued[0];
    const job = await store.get(first.prompt_id);
    expect(job).toMatchObject({
      kind: "render",
      lane: "builtin",
      title: "sh010 t01 (proxy)",
      status: "queued",
      after: null,
      info: { ep, pass: "proxy", shot: "sh010", take: 1, target: "animatic", backend: "builtin" },
      payload: {
        ep,
        pass: "proxy",
        shot: "sh010",
        take: 1,
        stem: "sh010_t01",
        target: "animatic",
        chain: null,
      },
    });

    const text = await readFile(sidecarOf(ep, "sh010", 1), "utf8");
    expect(text).toMatch(new RegExp(`"seed": ${seedOf("sh010")},`));
    const sc = JSON.parse(text);
    const entry = build!.shots.get("sh010")!.entry;
    expect(sc).toMatchObject({
      version: 1,
      shot: "sh010",
      take: 1,
      pass: "proxy",
      queue: "studio",
      backend: "builtin",
      job: first.prompt_id,
      status: "queued",
      backend_prompt_id: null,
      target: "animatic",
      seed_source: "stable",
      model: "animatic",
      loras: [],
      steps: 1,
      width: 448,
      height: 256,
      length: 72,
      fps: 24,
      length_source: "script",
      shot_hash: storyHash(entry),
      preset_hash: presetHash(build!.docs.animatic.defaults, entry),
      overrides: [],
      override_stale: false,
      parent_take: null,
      note: "",
      missing_refs: [],
      inputs: {},
      save_latent: false,
    });
    expect(sc.queued).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
    expect(sc).not.toHaveProperty("built_target");
    expect(sc.refs).toEqual([
      // The animatic draws Ada's sheet when there is one: recorded without a SHA-1 while it is missing.
      {
        slot: "sheet panel 1",
        kind: "image",
        path: "refs/ada/ada_sheet_4panel.png",
        role: "subject",
        subject: "ada",
        optional: true,
        sha1: null,
      },
      {
        slot: "first frame",
        kind: "image",
        path: "refs/shots/sh010/first.png",
        role: "first",
        optional: true,
        sha1: null,
      },
      {
        slot: "plate",
        kind: "image",
        path: "refs/_bg/kitchen.png",
        role: "plate",
        location: "kitchen",
        optional: true,
        sha1: null,
      },
    ]);

    const frozen = await readFile(path.join(ep, "renders_proxy", "sh010", "sh010_t01.shotlist.json"), "utf8");
    expect(frozen).toMatch(new RegExp(`"seed": ${seedOf("sh010")},`));
    const doc = JSON.parse(frozen);
    expect(doc).toMatchObject({ episode: "e01", target: "animatic", defaults: { width: 448, height: 256 } });
    expect(doc.shots).toHaveLength(1);
    expect(doc.shots[0]).toMatchObject({
      id: "sh010",
      length: 72,
      width: 448,
      height: 256,
      missing_refs: [],
    });

    expect(s.env.events.map((e) => e.type)).toEqual([
      "studio.take",
      "studio.take",
      "studio.take",
      "studio.episode",
    ]);
    expect(s.env.events[0].data).toEqual({
      ep,
      pass: "proxy",
      shot: "sh010",
      take: 1,
      status: "queued",
      thumb: null,
    });
  });

  it("never reuses a take number (trash counts) and queues the other shots when one is unknown", async () => {
    const ep = await s.episode(SCRIPT);
    await s.take(ep, "proxy", "sh010", 1);
    const trash = path.join(ep, "renders_proxy", "_trash", "sh010");
    await mkdir(trash, { recursive: true });
    await writeFile(path.join(trash, "sh010_t04.json"), "{}");
    const res = await render({ ep, shots: ["sh999", "sh010"], redo: true });
    expect(res.status).toBe(200);
    expect(res.body.queued.map((q: { shot: string; take: number }) => [q.shot, q.take])).toEqual([
      ["sh010", 5],
    ]);
    expect(res.body.errors).toEqual([
      { shot: "sh999", error: "sh999 is not in the proxy build of this episode" },
    ]);
  });

  it("queues nothing for an empty shot list and emits no episode event", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await render({ ep, shots: [] });
    expect(res.body).toEqual({ queued: [], skipped: [], errors: [] });
    expect(s.env.events).toEqual([]);
  });
});

describe("redo: false skips queued and usable takes, not takes on an old target", () => {
  it("skips queued and usable takes on the shot's target, not takes on an old target", async () => {
    const ep = await s.episode(SCRIPT);
    await s.take(ep, "proxy", "sh010", 3, { status: "queued", sidecar: { target: "animatic" } });
    await s.take(ep, "proxy", "sh020", 1, { sidecar: { target: "animatic" } });
    await s.take(ep, "proxy", "sh030", 1, { sidecar: { target: "ltx2" } });
    const res = await render({ ep, redo: false });
    expect(res.body.skipped).toEqual([
      { shot: "sh010", reason: "t03 is still queued", take: 3 },
      { shot: "sh020", reason: "has a usable take (pass redo: true)", take: 1 },
    ]);
    expect(res.body.queued).toEqual([
      expect.objectContaining({ shot: "sh030", take: 2, target: "animatic" }),
    ]);

    const again = await render({ ep, shots: ["sh020"], redo: true });
    expect(again.body.queued).toEqual([expect.objectContaining({ shot: "sh020", take: 2 })]);
  });
});

describe("seeds: a typed digit string, then the override pin, same or new, else the built seed", () => {
  it("takes a typed seed as trimmed digits or a safe number, refusing anything else with a 400", async () => {
    const ep = await s.episode(SCRIPT);
    const typed = await render({ ep, shots: ["sh010"], seed: " 42 " });
    expect(typed.body.queued[0]).toMatchObject({ seed: "42", seed_source: "typed" });
    const number = await render({ ep, shots: ["sh020"], seed: 42 });
    expect(number.body.queued[0]).toMatchObject({ seed: "42", seed_source: "typed" });
    const big = await render({ ep, shots: ["sh030"], seed: "18446744073709551615" });
    expect(big.body.queued[0]).toMatchObject({ seed: "18446744073709551615", seed_source: "typed" });
    expect(await readFile(sidecarOf(ep, "sh030", 1), "utf8")).toMatch(/"seed": 18446744073709551615,/);

    refusal(await render({ ep, seed: true }), 400, "seed: must be a string of digits (got true)");
    refusal(await render({ ep, seed: "-1" }), 400, /^seed: must be a string of digits/);
    refusal(await render({ ep, seed: "18446744073709551616" }), 400, /between 0 and 2\^64-1/);
    refusal(await render({ ep, seed: 1.5 }), 400, /^seed: must be a string of digits/);
    refusal(await render({ ep, seed_mode: "random" }), 400, /^seed_mode: /);
  });

  it("follows the precedence: override pin, same, new in auto on a redo, else the built seed", async () => {
    const ep = await s.episode(SCRIPT);
    const built = String(
      (await readBuild({ caches: createCaches() }, ep, "proxy"))!.shots.get("sh010")!.entry.seed,
    );

    const stable = await render({ ep, shots: ["sh010"] });
    expect(stable.body.queued[0]).toMatchObject({ seed: built, seed_source: "stable" });

    await s.take(ep, "proxy", "sh020", 1, { seed: "777", sidecar: { target: "animatic" } });
    const redo = await render({ ep, shots: ["sh020"], redo: true });
    expect(redo.body.queued[0].seed_source).toBe("new");
    expect(BigInt(redo.body.queued[0].seed)).toBeLessThan(2n ** 53n);
    const same = await render({ ep, shots: ["sh020"], redo: true, seed_mode: "same", parent_take: 1 });
    expect(same.body.queued[0]).toMatchObject({ seed: "777", seed_source: "take:1" });
    const sameBuilt = await render({ ep, shots: ["sh020"], redo: true, seed_mode: "same" });
    expect(sameBuilt.body.queued[0].seed_source).toBe("stable");
    const fresh = await render({ ep, shots: ["sh030"], seed_mode: "new" });
    expect(fresh.body.queued[0].seed_source).toBe("new");

    const pin = await s.call("PUT", "/override", {
      ep,
      pass: "proxy",
      shot: "sh030",
      fields: { seed: "99" },
    });
    expect(pin.status).toBe(200);
    const pinned = await render({ ep, shots: ["sh030"], redo: true });
    expect(pinned.body.queued[0]).toMatchObject({ seed: "99", seed_source: "override" });
    const overNew = await render({ ep, shots: ["sh030"], redo: true, seed_mode: "new" });
    expect(overNew.body.queued[0].seed_source).toBe("new");
    const overTyped = await render({ ep, shots: ["sh030"], redo: true, seed: "5" });
    expect(overTyped.body.queued[0]).toMatchObject({ seed: "5", seed_source: "typed" });
    expect((await readSidecar(ep, "sh030", 2)).overrides).toEqual(["seed"]);
    expect((await readSidecar(ep, "sh030", 4)).overrides).toEqual([]);
  });
});

describe("settings, targets and sizes", () => {
  it("renders with GET /studio/shot's effective settings, the request on top", async () => {
    const ep = await s.episode(SCRIPT);
    const put = await s.call("PUT", "/override", {
      ep,
      pass: "proxy",
      shot: "sh010",
      fields: { prompt: "A red door.", steps: 3, note: "try" },
    });
    expect(put.status).toBe(200);
    const shot = await s.call("GET", "/shot", { ep, pass: "proxy", shot: "sh010" });
    const res = await render({ ep, shots: ["sh010", "sh020"], note: "n1", prompt: null });
    expect(res.body.queued).toHaveLength(2);
    const sc = await readSidecar(ep, "sh010", 1);
    expect(sc).toMatchObject({
      steps: shot.body.effective.steps,
      note: "n1",
      overrides: ["prompt", "steps"],
    });
    expect(await readSidecar(ep, "sh020", 1)).toMatchObject({ note: "n1", overrides: [] });
    const frozen = JSON.parse(
      await readFile(path.join(ep, "renders_proxy", "sh010", "sh010_t01.shotlist.json"), "utf8"),
    );
    expect(frozen.shots[0].prompt).toBe(shot.body.effective.prompt);
    expect(frozen.shots[0].prompt).toBe("A red door.");

    const req = await render({ ep, shots: ["sh010"], redo: true, prompt: "A blue door.", steps: 2 });
    expect(req.body.queued).toHaveLength(1);
    const sc2 = await readSidecar(ep, "sh010", 2);
    expect(sc2).toMatchObject({ steps: 2, note: "try", overrides: ["note"] });
    const frozen2 = JSON.parse(
      await readFile(path.join(ep, "renders_proxy", "sh010", "sh010_t02.shotlist.json"), "utf8"),
    );
    expect(frozen2.shots[0].prompt).toBe("A blue door.");
  });

  it("refuses an unknown one-off target, and records the built target of a retargeted render", async () => {
    const ep = await s.episode(SCRIPT, { series: h3Series() });
    refusal(
      await render({ ep, target: "nope" }),
      400,
      /^target: 'nope' is not a video target \(known: .*animatic/,
    );
    const res = await render({ ep, shots: ["sh030"], target: "animatic" });
    expect(res.body.queued).toEqual([expect.objectContaining({ shot: "sh030", target: "animatic" })]);
    const sc = await readSidecar(ep, "sh030", 1);
    expect(sc).toMatchObject({ target: "animatic", built_target: H3, backend: "builtin", model: "animatic" });
  });

  it("snaps a size off a snapping grid with a note, and is that shot's error on a strict grid", async () => {
    const ep = await s.episode(SCRIPT);
    const snapped = await render({ ep, shots: ["sh010"], size: "449x257" });
    expect(snapped.body.queued).toHaveLength(1);
    const sc = await readSidecar(ep, "sh010", 1);
    expect(sc).toMatchObject({ width: 448, height: 256 });
    expect(sc.notes).toContain("size 449x257 snapped to 448x256 for Animatic");
    const pair = await render({ ep, shots: ["sh020"], size: [640, 360] });
    expect(await readSidecar(ep, "sh020", 1)).toMatchObject({ width: 640, height: 360 });
    expect(pair.body.queued).toHaveLength(1);

    const strict = await render({ ep, shots: ["sh030"], target: H3, size: "500x300" });
    expect(strict.body.queued).toEqual([]);
    expect(strict.body.errors).toEqual([
      {
        shot: "sh030",
        error: expect.stringMatching(/^size 500x300 does not fit .*: width=500 is not a multiple of 32/),
      },
    ]);
    refusal(await render({ ep, size: "big" }), 400, /^size must be WxH/);
  });

  it("refuses bad flags and draft finals with a 400 naming the field", async () => {
    const ep = await s.episode(SCRIPT);
    refusal(await render({ ep, allow_model_mismatch: "yes" }), 400, /^allow_model_mismatch: /);
    refusal(await render({ ep, redo: 1 }), 400, /^redo: /);
    refusal(await render({ ep, steps: 0 }), 400, /^steps: /);
    refusal(await render({ ep, loras: 5 }), 400, /^loras: /);
    refusal(await render({ ep, pass: "FINAL" }), 400, /^pass: /);
    refusal(
      await render({ ep, pass: "final", from_draft: { sh010: 2 } }),
      400,
      /^from_draft: sh010 t02 is not a proxy take of sh010/,
    );
    expect(s.env.events).toEqual([]);
  });

  it("notes a latent asked for on the animatic and ignores it; the animatic renders without a model", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await render({
      ep,
      shots: ["sh010"],
      save_latent: true,
      model: "other.safetensors",
      loras: "detail:0.5",
      allow_model_mismatch: true,
    });
    expect(res.body.queued).toHaveLength(1);
    const sc = await readSidecar(ep, "sh010", 1);
    expect(sc.save_latent).toBe(false);
    expect(sc.model).toBe("animatic");
    expect(sc.loras).toEqual([{ name: "detail", strength: 0.5 }]);
    expect(sc.notes).toEqual(
      expect.arrayContaining([
        "save_latent is ignored: Animatic cannot keep a latent",
        "Animatic renders without a model: the request's model and LoRAs are not used",
      ]),
    );
  });
});

describe("references and backends", () => {
  it("skips shots with missing references, and with allow_missing_refs goes on to the backend", async () => {
    const ep = await s.episode(SCRIPT, { series: h3Series() });
    const res = await render({ ep, shots: ["sh010"] });
    expect(res.body.queued).toEqual([]);
    expect(res.body.skipped).toEqual([
      {
        shot: "sh010",
        reason: expect.stringMatching(/^missing references: .*refs\/ada\/ada_sheet_4panel\.png/),
        missing_refs: expect.arrayContaining([
          expect.objectContaining({ kind: "image", path: "refs/ada/ada_sheet_4panel.png", subject: "ada" }),
        ]),
      },
    ]);
    const allowed = await render({ ep, shots: ["sh010"], allow_missing_refs: true });
    expect(allowed.body.skipped).toEqual([]);
    expect(allowed.body.errors).toEqual([
      // Nothing listens at the default local address in tests: the shot's error names it.
      { shot: "sh010", error: expect.stringMatching(/^the local backend at http:\/\/127\.0\.0\.1:8188 /) },
    ]);
    expect(allowed.body.queued).toEqual([]);
  });

  it("skips a required keyframe even with allow_missing_refs (anyway: false)", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await render({ ep, shots: ["sh030"], target: "wan22_i2v", allow_missing_refs: true });
    expect(res.body.queued).toEqual([]);
    expect(res.body.skipped).toEqual([
      {
        shot: "sh030",
        reason: expect.stringMatching(
          /^cannot render without first frame \(refs\/shots\/sh030\/first\.png\)/,
        ),
        missing_refs: [expect.objectContaining({ slot: "first frame", anyway: false })],
      },
    ]);
  });

  it("reports a backend that cannot take the jobs per shot and reserves no take", async () => {
    const ep = await s.episode(SCRIPT);
    const res = await render({ ep, backend: "cloud" });
    expect(res.body.queued).toEqual([]);
    expect(res.body.errors).toHaveLength(3);
    for (const e of res.body.errors) expect(e.error).toMatch(/^backend 'cloud' needs an API key/);
    const router = await render({ ep, backend: "router" });
    for (const e of router.body.errors) expect(e.error).toMatch(/^the router backend needs an API key/);
    expect(await readFile(sidecarOf(ep, "sh010", 1), "utf8").catch(() => null)).toBeNull();
    expect(s.env.events).toEqual([]);
  });
});

describe("paid backends", () => {
  it("counts runs sent to a paid lane and refuses past paid_limit until the count is reset", async () => {
    const ep = await s.episode(SCRIPT);
    const file = path.join(s.env.home, "default", "studio", "settings.json");
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify({ api_key: "k", cloud_url: "http://127.0.0.1:9", paid_limit: 2 }));
    try {
      await store.paidReset();
      const res = await render({ ep, backend: "cloud", shots: ["sh010", "sh020", "sh030"] });
      expect(res.body.queued.map((q: { shot: string }) => q.shot)).toEqual(["sh010", "sh020"]);
      expect(res.body.errors).toEqual([
        { shot: "sh030", error: expect.stringMatching(/^the paid-run limit is reached \(2 of 2 runs/) },
      ]);
      expect((await s.call("GET", "/jobs", {})).body.paid).toEqual({ count: 2, limit: 2 });
      await s.call("POST", "/jobs/paid-reset", {});
      const again = await render({ ep, backend: "cloud", shots: ["sh030"] });
      expect(again.body.queued.map((q: { shot: string }) => q.shot)).toEqual(["sh030"]);
      // The built-in lane is free: it never counts.
      await render({ ep, shots: ["sh010"], redo: true });
      expect((await store.paid()).count).toBe(1);
    } finally {
      await writeFile(file, "{}");
      for (const j of (await store.list()).jobs) if (j.status === "queued") await store.cancel(j.id);
    }
  });
});

describe("continuity chains: first frames cut at job start, latent chains queued in cut order", () => {
  const CHAIN = [
    "= e01  T",
    "# sq01 kitchen",
    "## sh010",
    "dur: 2",
    "Ada waits.",
    "## sh020",
    "continuous: first",
    "dur: 2",
    "Bo waits.",
    "## sh030",
    "continuous: latent",
    "dur: 2",
    "Cy runs.",
  ].join("\n");

  it("queues chains in cut order, each job after the one it continues", async () => {
    const ep = await s.episode(CHAIN);
    const cut = await s.call("PUT", "/cut", {
      ep,
      pass: "proxy",
      entries: [{ shot: "sh010" }, { shot: "sh030" }, { shot: "sh020" }],
    });
    expect(cut.status).toBe(200);
    const res = await render({ ep, shots: ["sh020", "sh030", "sh010"] });
    expect(res.body.queued.map((q: { shot: string }) => q.shot)).toEqual(["sh010", "sh030", "sh020"]);
    const id = (shot: string) => res.body.queued.find((q: { shot: string }) => q.shot === shot).prompt_id;
    expect((await store.get(id("sh010")))?.after).toBeNull();
    expect((await store.get(id("sh030")))?.after).toBe(id("sh010"));
    expect((await store.get(id("sh020")))?.after).toBe(id("sh030"));
    expect((await store.get(id("sh020")))?.payload).toMatchObject({
      chain: "first",
      first_frame: path.join(ep, "refs", "shots", "sh020", "first.png"),
    });
    expect(res.body.continuity_at_start).toEqual([
      { shot: "sh030", after: "it holds the end of sh010's new take in this run when its render starts" },
      {
        shot: "sh020",
        after: "its first frame is cut from sh030's new take in this run when its render starts",
      },
    ]);
    expect(res.body).not.toHaveProperty("continuity");
    expect((await readSidecar(ep, "sh020", 1)).continuity_after).toEqual({ shot: "sh030" });

    // A later request waits for the take still rendering before it.
    const next = await render({ ep, shots: ["sh020"], redo: true });
    expect((await store.get(next.body.queued[0].prompt_id))?.after).toBe(id("sh030"));
    expect(next.body.continuity_at_start).toEqual([
      {
        shot: "sh020",
        after: "its first frame is cut from sh030 t01, still rendering when its render starts",
      },
    ]);
  });

  it("is an error for a first-frame shot with nothing to start from, now or coming", async () => {
    const ep = await s.episode(CHAIN);
    const res = await render({ ep, shots: ["sh020"] });
    expect(res.body.queued).toEqual([]);
    expect(res.body.errors).toEqual([
      {
        shot: "sh020",
        error:
          "sh020 continues sh010 (continuous: first) but sh010 has no usable take and none is queued: render sh010 first, or both in one request",
      },
    ]);
    // A latent shot with nothing to hold still renders (the animatic holds nothing anyway).
    const latent = await render({ ep, shots: ["sh030"] });
    expect(latent.body.queued).toHaveLength(1);
  });
});
