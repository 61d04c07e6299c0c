// The on-disk records read leniently and written back unchanged: full round trips byte for byte, unknown
// fields kept in their order, older files tolerated, a wrong-typed field read as null with the rest kept.

import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { configRecord } from "../lib/config/config.ts";
import { readSettingsFile, settingsFile } from "../lib/config/settings.ts";
import { settingsRecord } from "../lib/config/settings-record.ts";
import { writeSettings } from "../lib/config/settings-store.ts";
import { compactEntry, cutText, cutToWrite } from "../lib/episode/cut.ts";
import { cutEntryRecord, cutRecord } from "../lib/episode/cut-record.ts";
import { issueRecord, issuesFileRecord, issuesText } from "../lib/episode/issues-record.ts";
import { overridesText, targetBlock } from "../lib/episode/overrides-file.ts";
import { parseOverrides } from "../lib/episode/overrides-record.ts";
import { isPreSidecar } from "../lib/episode/staleness.ts";
import { upscaleRecord } from "../lib/episode/upscale-record.ts";
import { sidecarText } from "../lib/render/sidecar.ts";
import { parseSidecar } from "../lib/render/sidecar-record.ts";
import { createCaches } from "../lib/store/caches.ts";
import { parseJson } from "../lib/store/json-file.ts";
import { createLocks } from "../lib/store/lock.ts";

const FULL_SIDECAR = {
  version: 1,
  shot: "sh010",
  take: 3,
  pass: "proxy",
  queue: "studio",
  backend: "builtin",
  job: "j-1",
  status: "ok",
  queued: "2024-05-01T10:00:00+02:00",
  backend_prompt_id: null,
  target: "animatic",
  built_target: "ltx2",
  seed: 9007199254740993n,
  seed_source: "stable",
  model: "animatic (timing card)",
  loras: [{ name: "style.safetensors", strength: 0.8 }],
  steps: 20,
  width: 640,
  height: 360,
  length: 49,
  fps: 24,
  length_source: "script",
  shot_hash: "abc123",
  preset_hash: "def456",
  overrides: ["seed"],
  override_stale: false,
  parent_take: 2,
  note: "closer",
  refs: [{ slot: "first", kind: "image", path: "refs/a.png", role: "keyframe", optional: false, sha1: null }],
  missing_refs: [],
  missing_mode: "blank",
  missing_note: "no picture",
  resolved: { model: { want: "a", using: "a", how: "exact", tier: "base" } },
  base: true,
  inputs: { first: "sh010_t03_first.png" },
  continuity_after: { shot: "sh005" },
  hold: 4,
  notes: ["one sentence."],
  negative_source: "series",
  save_latent: false,
  finished: "2024-05-01T10:01:00+02:00",
  frames: 49,
  mp4: "sh010_t03.mp4",
  thumb: "sh010_t03.jpg",
  strip: "sh010_t03_strip.jpg",
  save_notes: "",
  save_ms: { mp4: 120, thumb: 5, strip: 9, total: 140 },
  latent: "sh010_t03.latent.safetensors",
  latent_pruned: "2024-05-02T10:00:00+02:00",
  continued_from: { shot: "sh005", take: 1, pass: "proxy", via: "latent", overlap: 8 },
  continuity: { shot: "sh005", take: 1, pass: "proxy" },
  draft: { made: "2024-05-01T09:00:00+02:00", seed: 5n },
  from_draft: null,
  prompt: "a shot",
  error: "",
};

const roundTrip = (text: string) => sidecarText(parseSidecar(parseJson(text)));

describe("take sidecar record", () => {
  it("a full sidecar round-trips byte for byte", () => {
    const text = sidecarText(FULL_SIDECAR);
    const read = parseSidecar(parseJson(text));
    expect(read.seed).toBe(9007199254740993n);
    expect(read.fps).toBe(24);
    expect(read.status).toBe("ok");
    expect(roundTrip(text)).toBe(text);
  });

  it("keeps unknown fields in their order, at top level and inside known ones", () => {
    const text = sidecarText({
      zz_first: 1,
      version: 1,
      hand_note: { kept: true },
      shot: "sh010",
      refs: [{ slot: "first", extra: "kept" }],
      status: "queued",
      last: [1, 2],
    });
    const read = parseSidecar(parseJson(text));
    expect(Object.keys(read)).toEqual(["zz_first", "version", "hand_note", "shot", "refs", "status", "last"]);
    expect(read.hand_note).toEqual({ kept: true });
    expect(roundTrip(text)).toBe(text);
  });

  it("reads an old sidecar without fps, frames and target as nulls and cannot judge its staleness", () => {
    const text = sidecarText({ shot: "sh010", take: 1, status: "ok", seed: 7, mp4: "sh010_t01.mp4" });
    const read = parseSidecar(parseJson(text));
    expect(read.fps ?? null).toBeNull();
    expect(read.frames ?? null).toBeNull();
    expect(read.target ?? null).toBeNull();
    expect(isPreSidecar(read)).toBe(true);
    expect(roundTrip(text)).toBe(text);
  });

  it("reads a wrong-typed field as null and keeps the rest", () => {
    const read = parseSidecar(
      parseJson('{"shot": "sh010", "fps": "fast", "status": "done", "width": 640, "overrides": [1], "x": 2}'),
    );
    expect(read.fps).toBeNull();
    expect(read.status).toBeNull();
    expect(read.overrides).toBeNull();
    expect(read.width).toBe(640);
    expect(read.shot).toBe("sh010");
    expect(read.x).toBe(2);
    expect(Object.keys(read)).toEqual(["shot", "fps", "status", "width", "overrides", "x"]);
  });

  it("reads something that is not an object as an unreadable queued take", () => {
    expect(parseSidecar([1, 2])).toEqual({ status: "queued", unreadable: true });
  });

  it("checks a cached value once: the same raw object gives the same record", () => {
    const raw = parseJson('{"shot": "sh010", "fps": 24}');
    expect(parseSidecar(raw)).toBe(parseSidecar(raw));
  });
});

describe("config and upscale records", () => {
  it("config.json keeps unknown fields and reads wrong-typed roots as null", () => {
    const read = configRecord.parse(
      JSON.parse('{"version": 1, "roots": "nope", "mine": true, "review_copy": true}'),
    );
    expect(read).toEqual({ version: 1, roots: null, mine: true, review_copy: true });
    expect(Object.keys(read ?? {})).toEqual(["version", "roots", "mine", "review_copy"]);
  });

  it("an upscale record round-trips, a wrong-typed route is null", () => {
    const text = sidecarText({
      shot: "sh010",
      take: 2,
      status: "ok",
      route: "latent",
      scale: 2,
      then_pixel: { model: "4x.pth", scale: 2, from: [640, 360] },
      source_mtime_ns: 1714550400123456,
      later_field: 1,
    });
    const read = upscaleRecord.parse(parseJson(text));
    expect(read?.then_pixel?.from).toEqual([640, 360]);
    expect(sidecarText(read)).toBe(text);
    expect(upscaleRecord.parse({ shot: "sh010", route: "sideways", width: 1280 })).toEqual({
      shot: "sh010",
      route: null,
      width: 1280,
    });
  });
});

// cut.json as the service writes it: episode, both lists in compact form, hand-edited keys after the known ones.
const CUT_TEXT = `${JSON.stringify(
  {
    episode: "ep01",
    final: [
      { shot: "sh010", take: 2, trim_in: 3, locked: true, note: "keep", hand: "kept" },
      { shot: "sh020", take: 1, pass: "proxy", out: true, flag: true },
      { shot: "sh030", audio: { source: "take", shot: "sh010", take: 2, pass: "final", gain: 0.5 } },
    ],
    proxy: [{ shot: "sh010", trim_out: 4 }],
    later_field: { kept: true },
  },
  null,
  2,
)}\n`;

describe("cut.json record", () => {
  it("a full cut round-trips byte for byte through the writer's form", async () => {
    const read = cutRecord.parse(parseJson(CUT_TEXT));
    expect(read?.episode).toBe("ep01");
    // The episode is named, so the writer needs no build to find it.
    expect(cutText(await cutToWrite({ caches: createCaches() }, "/no/such/episode", read ?? {}))).toBe(
      CUT_TEXT,
    );
  });

  it("keeps unknown fields in their order, in the file and in an entry", () => {
    const read = cutRecord.parse(parseJson('{"z": 1, "episode": "ep01", "mine": [1], "final": [], "a": 2}'));
    expect(Object.keys(read ?? {})).toEqual(["z", "episode", "mine", "final", "a"]);
    const entry = compactEntry({ shot: "sh010", zz: 1, take: 2, aa: { x: 1 }, note: "n" }, "final");
    expect(entry).toEqual({ shot: "sh010", take: 2, note: "n", zz: 1, aa: { x: 1 } });
    expect(Object.keys(entry ?? {})).toEqual(["shot", "take", "note", "zz", "aa"]);
  });

  it("reads a wrong-typed field as null and keeps the rest; the compact entry drops it", () => {
    const raw = { shot: "sh010", take: "2", trim_in: 1.5, locked: "yes", note: "n", x: 1 };
    expect(cutEntryRecord.parse(raw)).toEqual({
      shot: "sh010",
      take: null,
      trim_in: null,
      locked: null,
      note: "n",
      x: 1,
    });
    expect(compactEntry(raw, "final")).toEqual({ shot: "sh010", note: "n", x: 1 });
    expect(cutRecord.parse({ episode: 3, final: "all", proxy: [] })).toEqual({
      episode: null,
      final: null,
      proxy: [],
    });
  });

  it("an entry without a shot id is no entry", () => {
    expect(compactEntry({ take: 1 }, "final")).toBeNull();
    expect(compactEntry("sh010", "final")).toBeNull();
  });
});

// overrides.json as the service writes it: seeds as integer literals, every level in its order.
const OVERRIDES_TEXT = sidecarText({
  episode: { id: "ep01", target: "ltx2", refs_target: "flux2_klein" },
  shots: {
    sh010: {
      target: "ltx2",
      ltx2: {
        seed: 9007199254740993n,
        note: "closer",
        final: {
          base_hash: "abc",
          prompt: "a shot",
          loras: [{ name: "style.safetensors", strength: 0.8 }],
          steps: 20,
          negative: "",
          size: "1344x768",
          hand: "kept",
        },
        proxy: { base_hash: "def", model: "m.safetensors" },
      },
    },
  },
  upscale: { sh010: { scale: 2, route: "latent" } },
  post: { sh010: { enhance: true } },
  audio: { mode_before_track: "auto" },
});

describe("overrides.json record", () => {
  it("a full file round-trips byte for byte", () => {
    const read = parseOverrides(parseJson(OVERRIDES_TEXT));
    expect(read).not.toBeNull();
    const block = targetBlock(read ?? {}, "sh010", "ltx2");
    expect(block?.seed).toBe(9007199254740993n);
    expect(block?.final?.steps).toBe(20);
    expect(overridesText(structuredClone(read ?? {}))).toBe(OVERRIDES_TEXT);
  });

  it("keeps unknown fields in their order at every level", () => {
    const text = sidecarText({
      zz: 1,
      shots: { sh010: { mine: { x: 1 }, animatic: { later: 1, seed: 5n, final: { z: 1, prompt: "p" } } } },
      episode: "ep01",
      aa: [2],
    });
    const read = parseOverrides(parseJson(text));
    expect(Object.keys(read ?? {})).toEqual(["zz", "shots", "episode", "aa"]);
    expect(Object.keys(targetBlock(read ?? {}, "sh010", "animatic") ?? {})).toEqual([
      "later",
      "seed",
      "final",
    ]);
    expect(Object.keys(targetBlock(read ?? {}, "sh010", "animatic")?.final ?? {})).toEqual(["z", "prompt"]);
    expect(overridesText(structuredClone(read ?? {}))).toBe(text);
  });

  it("reads a wrong-typed field as null at its level and keeps the rest", () => {
    const read = parseOverrides(
      parseJson(
        '{"episode": 7, "shots": {"sh010": {"target": 5, "ltx2": {"seed": "12", "note": "n", ' +
          '"final": {"steps": "many", "prompt": "p"}, "proxy": 3}, "odd": "text"}}, "upscale": [1]}',
      ),
    );
    expect(read?.episode).toBeNull();
    expect(read?.upscale).toBeNull();
    expect(read?.shots?.sh010?.target).toBeNull();
    expect(read?.shots?.sh010?.odd).toBeNull();
    const block = targetBlock(read ?? {}, "sh010", "ltx2");
    expect(block).toEqual({ seed: null, note: "n", final: { steps: null, prompt: "p" }, proxy: {} });
  });

  it("is not an object: no record", () => {
    expect(parseOverrides([1])).toBeNull();
  });
});

const ISSUE = {
  id: "0a1b2c3d",
  shot: "sh010",
  pass: "proxy",
  take: 2,
  shot_hash: "abc",
  target: "animatic",
  script: "SH010\nA shot.",
  prompt: "a shot",
  seed: 9007199254740993n,
  refs: [{ role: "subject", id: "gina", path: "refs/gina.png" }],
  take_file: "renders_proxy/sh010/sh010_t02.mp4",
  note: "too dark",
  when: "2024-05-01T10:00:00.000Z",
};

describe("_issues.json record", () => {
  it("a full file round-trips byte for byte", () => {
    const text = sidecarText({
      version: 1,
      items: [ISSUE, { ...ISSUE, id: "ffff0000", take: null, seed: null }],
    });
    const file = issuesFileRecord.parse(parseJson(text));
    const items = (file?.items ?? []).map((i) => issueRecord.parse(i)).filter((i) => i !== null);
    expect(items[0].seed).toBe(9007199254740993n);
    expect(items[1].take).toBeNull();
    expect(issuesText(file ?? {}, items)).toBe(text);
  });

  it("keeps unknown fields in their order, in the file and in a note", () => {
    const text = sidecarText({ mine: 1, version: 1, items: [{ extra: true, ...ISSUE, tail: [1] }], z: "z" });
    const file = issuesFileRecord.parse(parseJson(text));
    const items = (file?.items ?? []).map((i) => issueRecord.parse(i)).filter((i) => i !== null);
    expect(Object.keys(file ?? {})).toEqual(["mine", "version", "items", "z"]);
    expect(Object.keys(items[0])).toEqual(["extra", ...Object.keys(ISSUE), "tail"]);
    expect(issuesText(file ?? {}, items)).toBe(text);
  });

  it("reads a wrong-typed field as null and keeps the rest", () => {
    const read = issueRecord.parse({ ...ISSUE, take: "2", pass: "both", refs: "none", seed: 1.5 });
    expect(read).toEqual({ ...ISSUE, take: null, pass: null, refs: null, seed: null });
    expect(issuesFileRecord.parse({ version: "2", items: [] })).toEqual({ version: null, items: [] });
  });
});

describe("settings.json record", () => {
  it("reads a wrong-typed field as null and keeps the rest in order", () => {
    const read = settingsRecord.parse({
      mine: 1,
      local_url: 8188,
      paid_limit: 3,
      default_targets: "ltx2",
      z: 2,
    });
    expect(read).toEqual({ mine: 1, local_url: null, paid_limit: 3, default_targets: null, z: 2 });
    expect(Object.keys(read ?? {})).toEqual(["mine", "local_url", "paid_limit", "default_targets", "z"]);
  });

  it("a write keeps the file's unknown fields in their order and round-trips the rest byte for byte", async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), "records-settings-"));
    try {
      const services = { home, env: {}, caches: createCaches(), locks: createLocks() };
      const file = settingsFile(services);
      await mkdir(path.dirname(file), { recursive: true });
      const before = {
        hand_note: "kept",
        local_url: "http://127.0.0.1:8188",
        paid_limit: 5,
        default_targets: { video: "animatic", extra: 1 },
        last: [1, 2],
      };
      await writeFile(file, `${JSON.stringify(before, null, 2)}\n`);
      expect(await readSettingsFile(services)).toEqual(before);
      await writeSettings(services, { paid_limit: 9 });
      expect(await readFile(file, "utf8")).toBe(`${JSON.stringify({ ...before, paid_limit: 9 }, null, 2)}\n`);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
