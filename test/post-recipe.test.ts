// Post settings and planning without files: tiers, methods and enhance objects, the blur range, the recipe merge
// and its hash, SeedVR2's "fit" chunk, each per-take decision, the built-in blur's ffmpeg arguments, and the
// build's check of the series post recipe.
import { describe, expect, it } from "vitest";
import { checkPost } from "../lib/compile/master-check.ts";
import { blurArgs, blurFilter, blurWeights } from "../lib/post/blur.ts";
import { graphEnhance } from "../lib/post/comfy.ts";
import { planPost, type TakeVersions } from "../lib/post/plan.ts";
import {
  fitChunk,
  mergedRecipe,
  type PostSettings,
  parseBlur,
  parseEnhance,
  postRecipe,
  recipeSettings,
  recipeText,
} from "../lib/post/recipe.ts";
import { derivedSeed } from "../lib/upscale/comfy.ts";
import { recipeHash } from "../lib/upscale/recipe-hash.ts";

const ok = <T>(p: { ok: true; value: T } | { ok: false; error: string }): T => {
  if (!p.ok) throw new Error(p.error);
  return p.value;
};
const err = (p: { ok: boolean; error?: string }) => (p.ok ? null : p.error);

describe("enhance values", () => {
  it("expands tiers into their method and fields, with the method's defaults", () => {
    expect(ok(parseEnhance("draft"))).toEqual({ method: "pixel", pixel_model: "RealESRGAN_x2.pth" });
    expect(ok(parseEnhance("production"))).toEqual({
      method: "seedvr2",
      seedvr2_model: "7b",
      chunk: "fit",
      overlap: 6,
    });
    expect(ok(parseEnhance("cinematic"))).toEqual({
      method: "supir",
      strength: 0.2,
      supir_model: "SUPIR-v0F_fp16.safetensors",
      checkpoint: "sd_xl_base_1.0_0.9vae.safetensors",
      steps: 10,
      cfg: 4,
      batch: 2,
      restore_cfg: 4,
    });
    expect(ok(parseEnhance("seedvr2"))).toEqual({
      method: "seedvr2",
      seedvr2_model: "7b",
      chunk: 0,
      overlap: 2,
    });
  });

  it("reads none, off, null and {} as no enhance step", () => {
    for (const v of ["none", "off", "OFF", null, undefined, {}]) expect(ok(parseEnhance(v))).toBeNull();
  });

  it("takes an object with a tier or a method plus fields, the fields over the tier's", () => {
    expect(ok(parseEnhance({ tier: "production", overlap: 3, chunk: 9 }))).toMatchObject({
      method: "seedvr2",
      overlap: 3,
      chunk: 9,
    });
    expect(ok(parseEnhance({ method: "supir", strength: 0.1 }))).toMatchObject({
      method: "supir",
      strength: 0.1,
    });
    // A method other than the tier's does not inherit the tier's fields.
    expect(ok(parseEnhance({ tier: "production", method: "pixel" }))).toEqual({
      method: "pixel",
      pixel_model: "RealESRGAN_x2.pth",
    });
  });

  it("refuses what is not a tier, method or field, and values out of range, saying which", () => {
    expect(err(parseEnhance("sharpen"))).toMatch(/"sharpen" is not a tier/);
    expect(err(parseEnhance(3))).toMatch(/must be a tier, a method, an object or none/);
    expect(err(parseEnhance({ method: "supir", strength: 0.6 }))).toMatch(
      /strength must be from 0.05 to 0.5/,
    );
    expect(err(parseEnhance({ method: "supir", strength: 0.04 }))).toMatch(/strength/);
    expect(err(parseEnhance({ method: "seedvr2", chunk: 6 }))).toMatch(/4n\+1/);
    expect(err(parseEnhance({ method: "seedvr2", chunk: 1 }))).toMatch(/4n\+1/);
    expect(err(parseEnhance({ method: "seedvr2", overlap: 17 }))).toMatch(/overlap/);
    expect(err(parseEnhance({ method: "pixel", grain: 0.3 }))).toMatch(/grain/);
    expect(err(parseEnhance({ method: "pixel", foo: 1 }))).toMatch(/unknown field\(s\) foo/);
    expect(err(parseEnhance({ overlap: 2 }))).toMatch(/needs a tier or a method/);
    expect(err(parseEnhance({ tier: "epic" }))).toMatch(/tier must be/);
    expect(err(parseEnhance({ method: "gan" }))).toMatch(/method must be/);
  });
});

describe("motion blur and recipes", () => {
  it("takes 0 to 1 of the frame interval; null is none", () => {
    expect(ok(parseBlur(0.5))).toBe(0.5);
    expect(ok(parseBlur(null))).toBe(0);
    expect(ok(parseBlur(1))).toBe(1);
    expect(err(parseBlur(1.5))).toMatch(/from 0 to 1/);
    expect(err(parseBlur(-0.1))).toMatch(/from 0 to 1/);
    expect(err(parseBlur("0.5"))).toMatch(/from 0 to 1/);
  });

  it("merges a shot's own entry over the series recipe, key by key", () => {
    const merged = mergedRecipe(
      { enhance: "production", motion_blur: 0.3, _note: "x" },
      { motion_blur: 0.5 },
    );
    expect(merged).toEqual({ enhance: "production", motion_blur: 0.5 });
    const s = ok(recipeSettings(merged));
    expect(s.motion_blur).toBe(0.5);
    expect(s.enhance?.method).toBe("seedvr2");
    expect(err(recipeSettings({ quality: "best" }))).toMatch(/quality must be review or master/);
    expect(err(recipeSettings({ encoder: "vp9" }))).toMatch(/encoder/);
    expect(err(recipeSettings({ motion_blur: 2 }))).toMatch(/motion blur/);
  });

  it("hashes the normalised recipe with sorted keys: the same settings the same hash, any change another", () => {
    const s: PostSettings = { enhance: null, motion_blur: 0.5, quality: null, encoder: null };
    const a = postRecipe(s, [1920, 1080], "review");
    expect(a).toEqual({ size: [1920, 1080], motion_blur: 0.5 });
    expect(recipeHash(a)).toMatch(/^[0-9a-f]{12}$/);
    expect(recipeHash({ motion_blur: 0.5, size: [1920, 1080] })).toBe(recipeHash(a));
    expect(recipeHash(postRecipe(s, [1920, 1080], "master"))).not.toBe(recipeHash(a));
    expect(recipeHash(postRecipe({ ...s, motion_blur: 0.4 }, [1920, 1080], "review"))).not.toBe(
      recipeHash(a),
    );
    expect(recipeHash(postRecipe(s, [2560, 1440], "review"))).not.toBe(recipeHash(a));
    // A tier and its fields spelled out are the same settings.
    const tier = ok(parseEnhance("cinematic"));
    const spelled = ok(parseEnhance({ method: "supir", strength: 0.2 }));
    expect(recipeHash(postRecipe({ ...s, enhance: tier }, [8, 8], "review"))).toBe(
      recipeHash(postRecipe({ ...s, enhance: spelled }, [8, 8], "review")),
    );
  });

  it("says the settings in words", () => {
    expect(
      recipeText({ enhance: ok(parseEnhance("production")), motion_blur: 0.5, quality: null, encoder: null }),
    ).toBe("enhance production (SeedVR2 7B restoration), motion blur 0.5 (180° shutter)");
    expect(recipeText({ enhance: null, motion_blur: 0, quality: null, encoder: null })).toMatch(/^nothing/);
  });

  it("sizes SeedVR2's fit chunk by pixel count: 61 at 1080p, 33 at 1440p, 13 at 4K, never under 5", () => {
    expect(fitChunk(1920, 1080)).toBe(61);
    expect(fitChunk(2560, 1440)).toBe(33);
    expect(fitChunk(3840, 2160)).toBe(13);
    expect(fitChunk(8192, 8192)).toBe(5);
  });

  it("gives the graph the resolved chunk and the take's seed mod 2^50", () => {
    expect(derivedSeed("18446744073709551615")).toBe(Number(18446744073709551615n % (1n << 50n)));
    expect(derivedSeed(null)).toBe(0);
    expect(graphEnhance(ok(parseEnhance("production")), "7", 2560, 1440)).toEqual({
      method: "seedvr2",
      model: "7b",
      seed: 7,
      chunk: 33,
      overlap: 6,
    });
  });
});

const fresh = (over: Partial<NonNullable<TakeVersions["upscale"]>> = {}): TakeVersions["upscale"] => ({
  status: "ok",
  fresh: true,
  takeExists: true,
  mp4: true,
  width: 1920,
  height: 1080,
  quality: "review",
  ...over,
});
const take = (over: Partial<TakeVersions> = {}): TakeVersions => ({
  shot: "sh010",
  take: 1,
  lane: "local",
  upscale: fresh(),
  post: null,
  ...over,
});
const blur = (amount: number) =>
  ({ ok: true, value: { enhance: null, motion_blur: amount, quality: null, encoder: null } }) as const;
const ask = { redo: false, quality: null };

describe("per-take planning", () => {
  it("refuses a post that does nothing", () => {
    expect(planPost(take(), blur(0), ask)).toEqual({
      error: { shot: "sh010", take: 1, error: "nothing to do (no enhance, no motion blur)" },
    });
  });

  it("refuses a take with no upscale, or one stale or unfinished, saying which", () => {
    expect(planPost(take({ upscale: null }), blur(0.5), ask)).toMatchObject({
      error: { error: expect.stringMatching(/^no upscale yet \(.*upscale first\)$/) },
    });
    const cases: [Partial<NonNullable<TakeVersions["upscale"]>>, RegExp][] = [
      [{ fresh: false }, /made from an older take/],
      [{ status: "queued", fresh: false }, /still being made/],
      [{ status: "failed", fresh: false }, /last upscale failed/],
      [{ mp4: false, fresh: false }, /\.up\.mp4 is missing/],
    ];
    for (const [over, why] of cases) {
      const d = planPost(take({ upscale: fresh(over) }), blur(0.5), ask);
      expect("error" in d && d.error.error).toMatch(/^its upscale is stale or unfinished \(/);
      expect("error" in d && d.error.error).toMatch(why);
    }
  });

  it("passes on bad settings as the take's error", () => {
    expect(planPost(take(), { ok: false, error: "enhance method must be …" }, ask)).toMatchObject({
      error: { error: "enhance method must be …" },
    });
  });

  it("queues at the upscale's size, with the quality asked, else the recipe's, else the upscale's", () => {
    const d = planPost(take({ upscale: fresh({ quality: "master" }) }), blur(0.5), ask);
    expect(d).toMatchObject({
      queue: {
        width: 1920,
        height: 1080,
        quality: "master",
        recipe: { size: [1920, 1080], motion_blur: 0.5, quality: "master" },
      },
    });
    const asked = planPost(take({ upscale: fresh({ quality: "master" }) }), blur(0.5), {
      redo: false,
      quality: "review",
    });
    expect("queue" in asked && asked.queue.quality).toBe("review");
    const recipe = planPost(
      take(),
      { ok: true, value: { enhance: null, motion_blur: 0.5, quality: "master", encoder: "x264" } },
      ask,
    );
    expect("queue" in recipe && [recipe.queue.quality, recipe.queue.encoder_asked]).toEqual([
      "master",
      "x264",
    ]);
  });

  it("skips a fresh post with the same settings unless redo, and redoes one with other settings", () => {
    const first = planPost(take(), blur(0.5), ask);
    if (!("queue" in first)) throw new Error("expected a queue");
    const hash = first.queue.recipe_hash;
    const done = take({ post: { status: "ok", fresh: true, recipe_hash: hash } });
    expect(planPost(done, blur(0.5), ask)).toEqual({
      skip: { shot: "sh010", take: 1, reason: "a fresh post with these settings" },
    });
    expect("queue" in planPost(done, blur(0.5), { redo: true, quality: null })).toBe(true);
    expect("queue" in planPost(done, blur(0.4), ask)).toBe(true);
    const stale = take({ post: { status: "ok", fresh: false, recipe_hash: hash } });
    expect("queue" in planPost(stale, blur(0.5), ask)).toBe(true);
    const coming = take({ post: { status: "queued", fresh: false, recipe_hash: hash } });
    expect(planPost(coming, blur(0.5), ask)).toMatchObject({
      skip: { reason: "a post with these settings is on its way" },
    });
  });

  it("says per take that the built-in engine has no enhance step, and posts only on builtin or local", () => {
    const withEnhance = {
      ok: true,
      value: { enhance: ok(parseEnhance("draft")), motion_blur: 0.5, quality: null, encoder: null },
    } as const;
    expect(planPost(take({ lane: "builtin" }), withEnhance, ask)).toMatchObject({
      error: {
        error: expect.stringMatching(/built-in engine has no enhance step \(pixel runs on ComfyUI\)/),
      },
    });
    expect("queue" in planPost(take({ lane: "builtin" }), blur(0.5), ask)).toBe(true);
    expect(planPost(take({ lane: "router" }), blur(0.5), ask)).toMatchObject({
      error: { error: expect.stringMatching(/rendered on router/) },
    });
  });
});

describe("the built-in blur's arguments", () => {
  it("mixes each frame with the previous one by half the shutter fraction", () => {
    expect(blurWeights(0.5)).toEqual([0.25, 0.75]);
    expect(blurWeights(1)).toEqual([0.5, 0.5]);
    expect(blurFilter(0.3)).toBe(
      "[0:v:0]split[cur][p];[p]tpad=start=1:start_mode=clone[prev];[prev][cur]blend=all_mode=normal:all_opacity=0.15:shortest=1[v]",
    );
    expect(() => blurFilter(0)).toThrow();
  });

  it("copies the audio stream and encodes the picture by quality", () => {
    const args = blurArgs({ input: "/a/up.mp4", output: "/a/out.mp4", amount: 0.5, quality: "master" });
    expect(args.join(" ")).toContain("-map 0:a? ");
    expect(args.join(" ")).toContain("-c:a copy");
    expect(args.join(" ")).toContain("-preset slow -crf 14");
    expect(args.at(-1)).toBe("/a/out.mp4");
    expect(blurArgs({ input: "i", output: "o", amount: 0.5, quality: "review" }).join(" ")).toContain(
      "-crf 20",
    );
  });
});

describe("the build's check of series post.master", () => {
  const warnings = (master: Record<string, unknown>) => checkPost({ post: { master } });

  it("accepts the delivery settings a post recipe may carry (encoder, quality) with good values", () => {
    expect(warnings({ enhance: "production", motion_blur: 0.5, encoder: "x264", quality: "master" })).toEqual(
      [],
    );
    expect(
      warnings({ motion_blur: 0.25, encoder: "auto", quality: "review", _note: "comments pass" }),
    ).toEqual([]);
    // What the build accepts, a post reads as it is.
    expect(ok(recipeSettings({ motion_blur: 0.25, encoder: "x264", quality: "master" }))).toMatchObject({
      encoder: "x264",
      quality: "master",
    });
  });

  it("warns on bad values in the words a post would refuse them with, and on unknown keys", () => {
    expect(warnings({ motion_blur: 0.5, encoder: "hevc", quality: "best", speed: 2 })).toEqual([
      "series.json post.master has an unknown key 'speed'",
      'series.json post.master.quality must be review or master, not "best"',
      'series.json post.master.encoder must be auto, nvenc or x264, not "hevc"',
    ]);
    expect(err(recipeSettings({ motion_blur: 0.5, encoder: "hevc" }))).toBe(
      'encoder must be auto, nvenc or x264, not "hevc"',
    );
    expect(warnings({ enhance: { method: "supir", strength: 2 }, motion_blur: 2 })).toEqual([
      "series.json post.master.enhance strength must be from 0.05 to 0.5, not 2",
      "series.json post.master.motion_blur must be a number from 0 to 1 (a fraction of the frame interval), not 2",
    ]);
  });
});
