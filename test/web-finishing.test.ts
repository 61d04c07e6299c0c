// The Finishing view's mapping: cut-order rows with upscale/post badges by freshness, the master plan beside them,
// counts and hints, the master job's stage in words, and a shot's recipe form to the body PUT /upscale/recipe takes.
import { describe, expect, it } from "vitest";
import { parseRoute, routeSearch } from "../web/src/route.ts";
import type { MasterJob, MasterPlan, ShotEntry, TakeSummary } from "../web/src/types.ts";
import {
  clock,
  countsText,
  finishRows,
  jobFraction,
  jobLine,
  planHint,
  postBadge,
  queuedText,
  sameEpisode,
  stepShot,
  upscaleBadge,
} from "../web/src/views/finishing/finishing-model.ts";
import {
  EMPTY_FORM,
  formChanged,
  formFromRecipe,
  recipeFromForm,
} from "../web/src/views/finishing/recipe-form.ts";

function take(n: number, over: Partial<TakeSummary> = {}): TakeSummary {
  return {
    take: n,
    status: "ok",
    has_video: true,
    seed: "1",
    frames: 48,
    fps: 24,
    width: 448,
    height: 256,
    note: null,
    overrides: [],
    stale: [],
    thumb: null,
    strip: null,
    mp4: `renders/s/s_t0${n}.mp4`,
    queued: null,
    finished: null,
    save_notes: null,
    target: "animatic",
    ...over,
  };
}

function shot(
  id: string,
  order: number,
  takes: TakeSummary[],
  cut: Partial<ShotEntry["cut"]> = {},
): ShotEntry {
  return {
    shot: id,
    orphan: false,
    sequence: "A",
    length: 48,
    seconds: 2,
    size: null,
    subjects: [],
    audio_policy: null,
    cut: {
      take: takes[0]?.take ?? null,
      picked: true,
      pass: "final",
      placeholder: false,
      usable: true,
      trim_in: null,
      trim_out: null,
      locked: false,
      note: null,
      in_cut_file: true,
      frames: 48,
      out: false,
      flag: false,
      fps: 24,
      order,
      script_index: order,
      out_of_order: false,
      audio: null,
      audio_file: null,
      audio_why: null,
      ...cut,
    },
    override: null,
    target: "animatic",
    target_source: "series",
    built_target: "animatic",
    profile: null,
    missing_refs: [],
    takes,
  };
}

const up = (over: Record<string, unknown> = {}) =>
  ({
    status: "ok",
    fresh: true,
    width: 1920,
    height: 1080,
    mp4: "x.up.mp4",
    keep: null,
    ...over,
  }) as TakeSummary["upscale"];

function plan(over: Partial<MasterPlan> = {}): MasterPlan {
  return {
    pass: "final",
    post: false,
    post_mode: "off",
    size: [1920, 1080],
    fit: "crop",
    quality: "master",
    counts: { upscale: 0, post: 0, ok: 0, kept: 0, queued: 0, gap: 0 },
    ready: true,
    rows: [],
    ...over,
  };
}

function job(over: Partial<MasterJob> = {}): MasterJob {
  return {
    ep: "/shows/ep01",
    pass: "final",
    state: "running",
    elsewhere: false,
    by: "the editor",
    started: "2026-01-01T10:05:00",
    finished: null,
    step: "assemble",
    stage: "clips",
    done: 3,
    total: 12,
    text: "",
    output: null,
    mov: null,
    report: null,
    titles: null,
    error: "",
    ...over,
  };
}

describe("upscale and post badges", () => {
  it("says none, queued, failed (with the saver's note), stale and fresh with the size", () => {
    expect(upscaleBadge(null)).toMatchObject({ text: "none", tone: "muted" });
    expect(upscaleBadge(up({ status: "queued", fresh: false }))).toMatchObject({
      text: "queued",
      tone: "busy",
    });
    expect(
      upscaleBadge(up({ status: "failed", fresh: false, save_notes: "x.up.mp4: failed: no ffmpeg" })),
    ).toEqual({
      text: "failed",
      tone: "bad",
      title: "x.up.mp4: failed: no ffmpeg",
    });
    expect(upscaleBadge(up({ fresh: false }))).toMatchObject({ text: "stale 1920×1080", tone: "warn" });
    expect(upscaleBadge(up())).toMatchObject({ text: "1920×1080", tone: "ok", title: "fresh" });
    expect(upscaleBadge(up({ keep: true }))).toMatchObject({
      text: "1920×1080 · keep",
      title: "fresh, marked Keep",
    });
    expect(upscaleBadge(up({ recipe_match: "different" }))).toMatchObject({ tone: "warn" });
  });

  it("a post is stale when its upscale moved on", () => {
    const post = {
      status: "ok" as const,
      fresh: false,
      recipe: null,
      width: 1920,
      height: 1080,
      mp4: "p",
      save_notes: "",
    };
    expect(postBadge(post)).toMatchObject({ text: "stale 1920×1080", tone: "warn" });
    expect(postBadge({ ...post, fresh: true })).toMatchObject({ text: "1920×1080", tone: "ok" });
    expect(postBadge(null)).toMatchObject({ text: "none" });
  });
});

describe("finishRows", () => {
  it("orders by the cut, keeps shots left out (marked), and joins the plan's rows by shot", () => {
    const shots = [
      shot("s2", 1, [take(1, { upscale: up() })]),
      shot("s1", 0, [take(1), take(2, { upscale: up({ fresh: false }), thumb: "renders/s1/s1_t02.jpg" })], {
        take: 2,
      }),
      shot("s3", 2, [take(1)], { out: true }),
    ];
    const p = plan({
      rows: [
        {
          shot: "s1",
          take: 2,
          target: "animatic",
          status: "upscale",
          why: "made from an older take",
          recipe: "resample",
          upscale: null,
          post: null,
        },
        {
          shot: "s2",
          take: 1,
          target: "animatic",
          status: "ok",
          why: "",
          recipe: "resample",
          upscale: null,
          post: null,
        },
      ],
    });
    const rows = finishRows(shots, "final", p);
    expect(rows[0].thumb).toBe("renders/s1/s1_t02.jpg");
    expect(rows.map((r) => [r.shot, r.take, r.out, r.upscale.tone, r.master?.status ?? null])).toEqual([
      ["s1", 2, false, "warn", "upscale"],
      ["s2", 1, false, "ok", "ok"],
      ["s3", 1, true, "muted", null],
    ]);
  });

  it("a cut playing the other pass's take has no version on this pass and says whose take it plays", () => {
    const rows = finishRows(
      [shot("s1", 0, [], { take: 3, pass: "proxy", placeholder: true })],
      "final",
      null,
    );
    expect(rows[0]).toMatchObject({ take: null, placeholderPass: "proxy" });
    expect(rows[0].upscale.text).toBe("proxy take");
    const none = finishRows([shot("s1", 0, [], { take: null, usable: false })], "final", null);
    expect(none[0].upscale.text).toBe("no take");
  });
});

describe("plan words", () => {
  it("counts without zeros, gaps plural", () => {
    expect(countsText(plan({ counts: { upscale: 2, post: 0, ok: 5, kept: 0, queued: 0, gap: 2 } }))).toBe(
      "5 ok · 2 to upscale · 2 gaps",
    );
    expect(countsText(plan())).toBe("no shots");
  });

  it("hints at what stands before an assembly", () => {
    const rows = [
      {
        shot: "s1",
        take: 1,
        target: null,
        status: "ok" as const,
        why: "",
        recipe: null,
        upscale: null,
        post: null,
      },
    ];
    expect(
      planHint(plan({ counts: { upscale: 1, post: 0, ok: 0, kept: 0, queued: 1, gap: 0 }, rows }), false),
    ).toEqual({
      text: "2 shots still to finish (1 on the way): queue them, then assemble",
      tone: "warn",
    });
    const gaps = plan({ counts: { upscale: 0, post: 0, ok: 1, kept: 0, queued: 0, gap: 1 }, rows });
    expect(planHint(gaps, false).tone).toBe("bad");
    expect(planHint(gaps, true)).toEqual({ text: "ready to assemble at 1920×1080", tone: "ok" });
    expect(planHint(plan(), false).text).toBe("the cut is empty");
  });
});

describe("the master job in words", () => {
  it("names the step, the stage and its count, and how it ended", () => {
    expect(jobLine(job())).toEqual({ text: "Assembling · preparing clips 3/12", tone: "busy" });
    expect(
      jobLine(job({ step: "titles", stage: "titles", done: null, total: null, text: "intro" })).text,
    ).toBe("Titles · drawing titles · intro");
    expect(jobLine(job({ state: "failed", error: "ffmpeg: no space left" }))).toEqual({
      text: "failed: ffmpeg: no space left",
      tone: "bad",
    });
    expect(jobLine(job({ state: "done", finished: "2026-01-01T10:07:00" })).text).toBe(
      "master made at 10:07",
    );
    expect(jobLine(job({ elsewhere: true, by: "cli on host2", step: null, stage: null })).text).toBe(
      "being assembled by cli on host2 since 10:05",
    );
  });

  it("a fraction only while a counted stage runs", () => {
    expect(jobFraction(job())).toBe(0.25);
    expect(jobFraction(job({ total: 0 }))).toBeNull();
    expect(jobFraction(job({ done: null }))).toBeNull();
    expect(jobFraction(job({ state: "done" }))).toBeNull();
    expect(clock("not a time")).toBe("");
  });
});

describe("small helpers", () => {
  it("the address opens the Finishing view and keeps it", () => {
    const r = parseRoute("?ep=%2Fshows%2Fep01&view=finishing&shot=sh020&pass=final");
    expect(r).toEqual({ ep: "/shows/ep01", shot: "sh020", view: "finishing", pass: "final" });
    expect(parseRoute(routeSearch(r))).toEqual(r);
  });

  it("episode paths match with either slash", () => {
    expect(sameEpisode("C:\\shows\\ep01", "C:/shows/ep01/")).toBe(true);
    expect(sameEpisode("/shows/ep01", "/shows/ep02")).toBe(false);
    expect(sameEpisode(null, "/x")).toBe(false);
  });

  it("J/K step through the rows and stop at the ends", () => {
    const rows = finishRows([shot("a", 0, [take(1)]), shot("b", 1, [take(1)])], "final", null);
    expect(stepShot(rows, null, 1)).toBe("a");
    expect(stepShot(rows, "a", 1)).toBe("b");
    expect(stepShot(rows, "b", 1)).toBe("b");
    expect(stepShot(rows, "b", -1)).toBe("a");
    expect(stepShot([], "a", 1)).toBeNull();
  });

  it("a queue answer in one line", () => {
    expect(queuedText({ queued: [1, 2], skipped: [1], errors: [1, 2] })).toBe(
      "2 queued · 1 skipped · 2 errors",
    );
  });
});

describe("a shot's recipe form", () => {
  it("sends only what is set, numbers as numbers, the follow-up step as the route names it", () => {
    expect(recipeFromForm(EMPTY_FORM)).toBeNull();
    expect(
      recipeFromForm({
        ...EMPTY_FORM,
        method: "latent",
        scale: "auto",
        detail: "1",
        follow: "seedvr2",
        grain: " 0.05 ",
      }),
    ).toEqual({ method: "latent", scale: "auto", detail: 1, grain: 0.05, then_method: "seedvr2" });
    expect(recipeFromForm({ ...EMPTY_FORM, method: "pixel", scale: "2", follow: "4x_foo.pth" })).toEqual({
      method: "pixel",
      scale: 2,
      then_pixel_model: "4x_foo.pth",
    });
  });

  it("a value that is not a number goes as typed, so the service's check names it", () => {
    expect(recipeFromForm({ ...EMPTY_FORM, scale: "big" })).toEqual({ scale: "big" });
  });

  it("reads a stored recipe back and knows when the form differs", () => {
    // As the service answers it: the follow-up step is named `then`.
    const stored = JSON.parse(
      '{"method": "pixel", "scale": 2, "pixel_model": "RealESRGAN_x2.pth", "then": "seedvr2"}',
    );
    const form = formFromRecipe(stored);
    expect(form).toMatchObject({
      method: "pixel",
      scale: "2",
      pixel_model: "RealESRGAN_x2.pth",
      follow: "seedvr2",
    });
    expect(formChanged(form, stored)).toBe(false);
    expect(formChanged({ ...form, scale: "3" }, stored)).toBe(true);
    expect(formFromRecipe(null)).toEqual(EMPTY_FORM);
  });
});
