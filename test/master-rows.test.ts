// The master plan's row rules, one case per rule of the table (and the post modes), and the assemble gate.
import { describe, expect, it } from "vitest";
import {
  assembleRefusal,
  type MasterRow,
  masterRow,
  masterRows,
  type PlanOptions,
  type RowFacts,
  rowPlays,
} from "../lib/master/rows.ts";

const SIZE = { width: 2560, height: 1440 };
const OPTS: PlanOptions = { size: SIZE, conform: false, post: "off" };
const HASH = "abcdef012345";

const facts = (over: Partial<RowFacts> = {}): RowFacts => ({
  shot: "sh010",
  take: 1,
  target: "animatic",
  gap: null,
  recipe: { text: "pixel 2x", hash: HASH, error: null },
  upscale: null,
  post: null,
  ...over,
});

const up = (over: Partial<NonNullable<RowFacts["upscale"]>> = {}): RowFacts["upscale"] => ({
  status: "ok",
  fresh: true,
  keep: false,
  recipeHash: HASH,
  width: 2560,
  height: 1440,
  ...over,
});

const row = (f: Partial<RowFacts>, o: Partial<PlanOptions> = {}) => {
  const r = masterRow(facts(f), { ...OPTS, ...o });
  return [r.status, r.why];
};

describe("master plan rows", () => {
  it("a shot the cut cannot play is a gap with the cut's reason", () => {
    expect(row({ gap: "not rendered yet" })).toEqual(["gap", "not rendered yet"]);
    expect(row({ gap: "the cut uses its proxy take", upscale: up() })).toEqual([
      "gap",
      "the cut uses its proxy take",
    ]);
  });

  it("a take no recipe section covers is a gap naming its target", () => {
    expect(row({ recipe: null, target: "ltx2" })).toEqual(["gap", "upscale.master has no section for ltx2"]);
  });

  it("a queued record is on its way", () => {
    expect(row({ upscale: up({ status: "queued", fresh: false }) })).toEqual([
      "queued",
      "its upscale is on its way",
    ]);
  });

  it("a fresh upscale marked Keep is kept, even with conform and other settings", () => {
    expect(row({ upscale: up({ keep: true, recipeHash: "other" }) })).toEqual(["kept", "marked Keep"]);
    expect(row({ upscale: up({ keep: true, recipeHash: "other" }) }, { conform: true })).toEqual([
      "kept",
      "marked Keep",
    ]);
  });

  it("a fresh upscale made with the recipe's settings is ok", () => {
    expect(row({ upscale: up() })).toEqual(["ok", ""]);
  });

  it("other or unrecorded settings are kept, or redone with conform", () => {
    expect(row({ upscale: up({ recipeHash: "other" }) })).toEqual([
      "kept",
      "made with other settings than the recipe's",
    ]);
    expect(row({ upscale: up({ recipeHash: null }) })).toEqual([
      "kept",
      "made before upscales recorded their settings",
    ]);
    expect(row({ upscale: up({ recipeHash: "other" }) }, { conform: true })[0]).toBe("upscale");
    expect(row({ upscale: up({ recipeHash: null }) }, { conform: true })[0]).toBe("upscale");
  });

  it("an ok or kept upscale of another size than the master's is a gap", () => {
    expect(row({ upscale: up({ width: 2688, height: 1536 }) })).toEqual([
      "gap",
      "its upscale is 2688x1536, not the master's 2560x1440: conform redoes it",
    ]);
    expect(row({ upscale: up({ keep: true, width: 1920, height: 1080 }) })).toEqual([
      "gap",
      "its upscale is 1920x1080, not the master's 2560x1440: unkeep it, or redo it",
    ]);
    expect(row({ upscale: up({ recipeHash: "x", width: 1920, height: 1080 }) })).toEqual([
      "gap",
      "its upscale is 1920x1080, not the master's 2560x1440: conform redoes it",
    ]);
  });

  it("a stale, failed or missing upscale is to upscale", () => {
    expect(row({ upscale: up({ fresh: false }) })).toEqual(["upscale", "made from an older take"]);
    expect(row({ upscale: up({ status: "failed", fresh: false }) })).toEqual([
      "upscale",
      "its last upscale failed: trying again",
    ]);
    expect(row({ upscale: null })).toEqual(["upscale", "not upscaled yet"]);
  });

  it("an upscale row whose planning fails is a gap with the error", () => {
    const recipe = { text: "latent", hash: HASH, error: "has no latent upscale: use the pixel method" };
    expect(row({ recipe })).toEqual(["gap", "has no latent upscale: use the pixel method"]);
    // An ok row never plans, so its error does not matter.
    expect(row({ recipe, upscale: up() })).toEqual(["ok", ""]);
  });

  it("the row carries the take, target, recipe text and the upscale summary", () => {
    const r = masterRow(facts({ upscale: up({ keep: true }) }), OPTS);
    expect(r).toEqual({
      shot: "sh010",
      take: 1,
      target: "animatic",
      status: "kept",
      why: "marked Keep",
      recipe: "pixel 2x",
      upscale: { width: 2560, height: 1440, status: "ok", keep: true },
      post: null,
    });
  });
});

describe("master plan rows with posts", () => {
  const P = { text: "motion blur 0.5", hash: "p1", none: false, error: null };
  const post = (over: Partial<NonNullable<RowFacts["post"]>> = {}): RowFacts["post"] => ({
    status: "ok",
    fresh: true,
    recipeHash: "p1",
    ...over,
  });
  const rp = (f: Partial<RowFacts>, o: Partial<PlanOptions> = {}) =>
    row({ postRecipe: P, ...f }, { post: "recipe", ...o });

  it("recipe: an upscale row queues its post behind it (status stays upscale)", () => {
    const r = masterRow(facts({ postRecipe: P }), { ...OPTS, post: "recipe" });
    expect([r.status, r.recipe]).toEqual(["upscale", "pixel 2x; then motion blur 0.5"]);
    expect(r.post).toEqual({ status: null, fresh: false, recipe: "motion blur 0.5" });
  });

  it("recipe: an ok upscale whose post is missing, stale or failed is to post", () => {
    expect(rp({ upscale: up() })).toEqual(["post", "not post-processed yet"]);
    expect(rp({ upscale: up(), post: post({ fresh: false }) })).toEqual([
      "post",
      "its post is stale (made from an older upscale)",
    ]);
    expect(rp({ upscale: up(), post: post({ status: "failed", fresh: false }) })).toEqual([
      "post",
      "its last post failed: trying again",
    ]);
    expect(rp({ upscale: up({ keep: true }) })[0]).toBe("post");
  });

  it("recipe: a fresh post with the recipe's settings keeps the row ok; other settings keep it unless conform", () => {
    expect(rp({ upscale: up(), post: post() })).toEqual(["ok", ""]);
    expect(rp({ upscale: up(), post: post({ recipeHash: "p0" }) })).toEqual([
      "kept",
      "post made with other settings than the recipe's",
    ]);
    expect(rp({ upscale: up(), post: post({ recipeHash: "p0" }) }, { conform: true })[0]).toBe("post");
    expect(rp({ upscale: up(), post: post({ status: "queued", fresh: false }) })).toEqual([
      "queued",
      "its post is on its way",
    ]);
  });

  it("recipe none: the upscale plays; a fresh post under a none recipe is a gap", () => {
    const none = { text: "none", hash: null, none: true, error: null };
    const r = masterRow(facts({ upscale: up(), postRecipe: none }), { ...OPTS, post: "recipe" });
    expect([r.status, r.recipe]).toEqual(["ok", "pixel 2x; no post"]);
    expect(rp({ upscale: up(), post: post(), postRecipe: none })).toEqual([
      "gap",
      "it has a fresh post but the post recipe is none: delete the post",
    ]);
  });

  it("recipe: a post recipe that cannot run on this take is a gap", () => {
    expect(rp({ upscale: up(), postRecipe: { ...P, error: "bad enhance" } })).toEqual(["gap", "bad enhance"]);
  });

  it("present: nothing planned, the recipe text says what plays", () => {
    const text = (f: Partial<RowFacts>) => masterRow(facts(f), { ...OPTS, post: "present" }).recipe;
    expect(text({ upscale: up(), post: post() })).toBe("pixel 2x; its post");
    expect(text({ upscale: up(), post: post({ fresh: false }) })).toBe(
      "pixel 2x; its upscale (its post is stale)",
    );
    expect(text({ upscale: up(), post: post({ status: "queued", fresh: false }) })).toBe(
      "pixel 2x; its upscale (a post is on its way: master again after)",
    );
    expect(text({ upscale: up() })).toBe("pixel 2x; its upscale");
    expect(masterRow(facts({ upscale: up(), post: post() }), { ...OPTS, post: "present" }).status).toBe("ok");
  });

  it("what each row plays", () => {
    const play = (f: Partial<RowFacts>, mode: PlanOptions["post"]) => {
      const all = facts(f);
      return rowPlays(masterRow(all, { ...OPTS, post: mode }), all, mode);
    };
    expect(play({ upscale: up(), post: post() }, "off")).toBe("upscale");
    expect(play({ upscale: up(), post: post() }, "present")).toBe("post");
    expect(play({ upscale: up(), post: post({ fresh: false }) }, "present")).toBe("upscale");
    expect(play({ upscale: up(), post: post(), postRecipe: P }, "recipe")).toBe("post");
    expect(play({ upscale: up({ width: 100, height: 100 }) }, "off")).toBe("take");
    expect(play({}, "off")).toBe("take");
  });
});

describe("counts, readiness and the assemble gate", () => {
  const list = (rows: Partial<RowFacts>[], o: Partial<PlanOptions> = {}) =>
    masterRows(
      rows.map((r, i) => facts({ shot: `sh0${i + 1}0`, ...r })),
      { ...OPTS, ...o },
    );

  it("counts each status; ready only when every row is ok or kept", () => {
    const all = list([
      { upscale: up() },
      { upscale: up({ keep: true }) },
      { upscale: null },
      { gap: "not rendered yet" },
    ]);
    expect(all.counts).toEqual({ upscale: 1, post: 0, ok: 1, kept: 1, queued: 0, gap: 1 });
    expect(all.ready).toBe(false);
    expect(list([{ upscale: up() }, { upscale: up({ keep: true }) }]).ready).toBe(true);
    expect(list([]).ready).toBe(false);
  });

  it("refuses while shots are to upscale or post, and with gaps unless allowed", () => {
    const todo = list([{ upscale: null }, { upscale: up({ fresh: false }) }, { upscale: up() }]);
    expect(assembleRefusal(todo.rows, false)).toBe("2 shot(s) still to upscale: sh010, sh020");
    const posts = list([{ upscale: up(), postRecipe: { text: "p", hash: "p", none: false, error: null } }], {
      post: "recipe",
    });
    expect(assembleRefusal(posts.rows, false)).toBe("1 shot(s) still to upscale or post-process: sh010");
    const gaps: MasterRow[] = list([{ upscale: up() }, { gap: "not rendered yet" }]).rows;
    expect(assembleRefusal(gaps, false)).toMatch(/^1 gap\(s\): sh020 \(not rendered yet\)/);
    expect(assembleRefusal(gaps, true)).toBeNull();
  });
});
