// The master recipe and its maths: delivery sizes and their fit, auto scale, start steps, section look-up, the
// shot's recipe merged over it, a shot recipe's refusals, the settings hash and recipe_match.
// biome-ignore-all lint/suspicious/noThenProperty: `then` is a recipe field (the step after a re-sample), not a thenable.
import { describe, expect, it } from "vitest";
import {
  autoScale,
  fitSize,
  masterRecipe,
  parseDeliver,
  recipeHash,
  recipeMatch,
  recipeText,
  reduceShotRecipe,
  scaledSize,
  sectionKey,
  shotOwnRecipe,
  startStep,
  takeRecipe,
} from "../lib/upscale/recipe.ts";

describe("delivery", () => {
  it("names and WxH, refusing odd, tiny and huge sizes", () => {
    expect(parseDeliver("1080p")).toEqual({ width: 1920, height: 1080 });
    expect(parseDeliver("4K")).toEqual({ width: 3840, height: 2160 });
    expect(parseDeliver("1280x720")).toEqual({ width: 1280, height: 720 });
    expect(parseDeliver("1281x720")).toMatch(/even/);
    expect(parseDeliver("32x32")).toMatch(/64 to 8192/);
    expect(parseDeliver("8194x720")).toMatch(/64 to 8192/);
    expect(parseDeliver("big")).toMatch(/not 1080p/);
    expect(parseDeliver(1080)).toMatch(/must be/);
  });

  it("crop covers and pad fits inside, even sides (1344x768 to 4K)", () => {
    expect(fitSize(1344, 768, { width: 3840, height: 2160 }, "crop")).toEqual({ width: 3840, height: 2196 });
    expect(fitSize(1344, 768, { width: 3840, height: 2160 }, "pad")).toEqual({ width: 3780, height: 2160 });
  });

  it("auto scale is the smallest k/8 on the grid covering the fitted size", () => {
    expect(autoScale(960, 544, { width: 1920, height: 1080 }, "crop", 32)).toBe(2);
    expect(autoScale(1344, 768, { width: 1920, height: 1080 }, "crop", 32)).toBe(1.5);
    expect(autoScale(1344, 768, null, "crop", 32)).toBe(2);
  });

  it("a scale off the grid says so", () => {
    expect(scaledSize(1344, 768, 2, 32)).toEqual({ width: 2688, height: 1536 });
    expect(scaledSize(1000, 768, 1.5, 32)).toBe("1000x768 at 1.5x is 1500x1152, not a multiple of 32");
  });

  it("start steps: 0.875 of 8 is 7, detail starts earlier, halves round to even", () => {
    expect(startStep(8, 0.875)).toBe(7);
    expect(startStep(8, 0.875, 2)).toBe(5);
    expect(startStep(4, 0.875)).toBe(3);
    expect(startStep(4, 0.625)).toBe(2);
    expect(startStep(1, 0.875)).toBe(0);
  });
});

const SERIES = {
  upscale: {
    master: {
      deliver: "1440p",
      quality: "master",
      finish: { grain: 0.05 },
      targets: {
        "minimax_h3_*": { method: "latent", then: "RealESRGAN_x2.pth" },
        "minimax_*": { method: "pixel" },
        "*": { method: "pixel", pixel_model: "4x.pth" },
        ltx2: { method: "latent", scale: 2 },
      },
    },
  },
};

describe("master recipe", () => {
  it("reads the globals and defaults", () => {
    const m = masterRecipe(SERIES);
    expect(m?.deliver).toEqual({ width: 2560, height: 1440 });
    expect(m?.fit).toBe("crop");
    expect(m?.quality).toBe("master");
    expect(m?.encoder).toBe("auto");
    expect(m?.problems).toEqual([]);
    expect(masterRecipe({})).toBeNull();
    expect(masterRecipe({ upscale: { master: { targets: { "*": {} } } } })?.deliverProblem).toMatch(
      /no deliver/,
    );
    expect(
      masterRecipe({ upscale: { master: { deliver: "9x9", targets: { "*": {} } } } })?.deliver,
    ).toBeNull();
  });

  it("section: exact id, else the glob with the most non-star characters", () => {
    const t = masterRecipe(SERIES)!.targets;
    expect(sectionKey(t, "ltx2")).toBe("ltx2");
    expect(sectionKey(t, "minimax_h3_ref2va")).toBe("minimax_h3_*");
    expect(sectionKey(t, "minimax_x")).toBe("minimax_*");
    expect(sectionKey(t, "animatic")).toBe("*");
    expect(sectionKey({ ltx2: {} }, "animatic")).toBeNull();
  });

  it("finish < section < the shot's own recipe", () => {
    const m = masterRecipe(SERIES)!;
    const own = shotOwnRecipe({ upscale: { sh020: { detail: 1, grain: 0, junk: 3 } } }, "sh020");
    expect(own).toEqual({ detail: 1, grain: 0 });
    expect(takeRecipe(m, "minimax_h3_ref2va", own)).toEqual({
      key: "minimax_h3_*",
      fields: { method: "latent", then: "RealESRGAN_x2.pth", detail: 1, grain: 0 },
    });
    expect(takeRecipe(m, "animatic", null)?.fields).toEqual({
      method: "pixel",
      pixel_model: "4x.pth",
      grain: 0.05,
    });
    expect(shotOwnRecipe({}, "sh020")).toBeNull();
  });
});

describe("a shot's recipe (PUT /upscale/recipe)", () => {
  it("keeps the contract's fields, reads then_method and then_pixel_model as then", () => {
    expect(reduceShotRecipe({ method: "pixel", quality: "master" })).toEqual({
      fields: { method: "pixel", quality: "master" },
    });
    expect(reduceShotRecipe({ method: "latent", then_method: "seedvr2" })).toEqual({
      fields: { method: "latent", then: "seedvr2" },
    });
    expect(reduceShotRecipe({ then_pixel_model: "2x.pth" })).toEqual({ fields: { then: "2x.pth" } });
    expect(reduceShotRecipe({})).toEqual({ fields: {} });
  });

  it("refuses unknown fields and bad values, every problem named", () => {
    expect(reduceShotRecipe({ method: "pixel", foo: 1 })).toEqual({
      problems: [expect.stringMatching(/unknown recipe field\(s\) foo/)],
    });
    const bad = reduceShotRecipe({ scale: 5, detail: 3, method: "pixel", then: "x.pth", quality: "best" });
    expect("problems" in bad && bad.problems).toEqual([
      expect.stringMatching(/scale 5 must be in \(1, 4\]/),
      expect.stringMatching(/detail must be 0, 1 or 2/),
      expect.stringMatching(/then only follows method latent/),
      expect.stringMatching(/quality must be review or master/),
    ]);
    expect(reduceShotRecipe({ method: "pixel", scale: "auto" })).toHaveProperty("problems");
  });

  it("says a recipe in words", () => {
    expect(recipeText({ method: "latent", scale: 2, detail: 1, then: "RealESRGAN_x2.pth" })).toBe(
      "latent re-sample at 2x, 1 step earlier, then RealESRGAN_x2.pth at 2x",
    );
    expect(recipeText({ method: "pixel", pixel_model: "4x.pth", quality: "master" })).toBe(
      "pixel upscale with 4x.pth, master quality",
    );
  });
});

describe("settings hash", () => {
  it("ignores key order, nulls and review quality; any setting changes it", () => {
    const a = recipeHash({ method: "pixel", scale: 2, size: [2560, 1440], quality: "review", window: null });
    expect(a).toMatch(/^[0-9a-f]{12}$/);
    expect(recipeHash({ size: [2560, 1440], scale: 2, method: "pixel" })).toBe(a);
    expect(recipeHash({ method: "pixel", scale: 2, size: [2560, 1440], quality: "master" })).not.toBe(a);
    expect(recipeHash({ method: "pixel", scale: 1.5, size: [2560, 1440] })).not.toBe(a);
  });

  it("recipe_match: null without a recipe or before ok, unknown before hashes, else same or different", () => {
    expect(recipeMatch({ status: "ok", recipe_hash: "abc" }, null)).toBeNull();
    expect(recipeMatch({ status: "queued", recipe_hash: "abc" }, "abc")).toBeNull();
    expect(recipeMatch({ status: "ok" }, "abc")).toBe("unknown");
    expect(recipeMatch({ status: "ok", recipe_hash: "abc" }, "abc")).toBe("same");
    expect(recipeMatch({ status: "ok", recipe_hash: "abd" }, "abc")).toBe("different");
  });
});
