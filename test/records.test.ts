// The on-disk records read leniently and written back unchanged: full round trips byte for byte, unknown
// fields kept in their order, older files tolerated, a wrong-typed field read as null with the rest kept.
import { describe, expect, it } from "vitest";
import { configRecord } from "../lib/config/config.ts";
import { isPreSidecar } from "../lib/episode/staleness.ts";
import { upscaleRecord } from "../lib/episode/upscale-record.ts";
import { sidecarText } from "../lib/render/sidecar.ts";
import { parseSidecar } from "../lib/render/sidecar-record.ts";
import { parseJson } from "../lib/store/json-file.ts";

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
