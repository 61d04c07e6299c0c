// The master's queue with posts by the recipe on the built-in engine: one call queues each upscale and its post, the
// post a job that waits for its upscale's job, right behind it in cut order (after all upscales with order
// target); everything runs to ok and the master plays the posts. A canceled upscale's post ends failed saying so,
// and a plain POST /studio/post still refuses a take whose upscale is being made.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { StudioJobStore } from "../lib/jobs/store.ts";
import type { Job } from "../lib/jobs/types.ts";
import { masterRow, postBehindUpscale, type RowFacts, recipeWords } from "../lib/master/rows.ts";
import { planPost, type TakeVersions } from "../lib/post/plan.ts";
import { awaitedProblem } from "../lib/post/run.ts";
import { masterJob } from "../workers/jobs/master.ts";
import { postJob } from "../workers/jobs/post.ts";
import { upscaleJob } from "../workers/jobs/upscale.ts";
import { jobsEnded } from "./support/jobs.ts";
import { realTake, SHORT, takeDir, useMediaStudio } from "./support/media.ts";
import { seriesS } from "./support/series-s.ts";
import type { Studio } from "./support/studio-episode.ts";

const media = useMediaStudio({ upscale: upscaleJob, master: masterJob, post: postJob });
let s: Studio;
let ffmpeg: string;
let store: StudioJobStore;
beforeAll(() => {
  ({ s, ffmpeg, store } = media);
});

const SERIES = {
  upscale: { master: { deliver: "896x512", fit: "crop", targets: { "*": { method: "pixel" } } } },
  post: { master: { motion_blur: 0.5 } },
};
const SHOTS = ["sh010", "sh020", "sh030"];

async function episode(): Promise<string> {
  const ep = await s.episode(SHORT, { series: { ...seriesS(), ...SERIES } });
  for (const shot of SHOTS)
    await realTake(s, ffmpeg, ep, "final", shot, 1, { target: "animatic", backend: "builtin" });
  return ep;
}

const ofEpisode = (ep: string) => (j: Job) => (j.kind === "upscale" || j.kind === "post") && j.info.ep === ep;
const epJobs = async (ep: string): Promise<Job[]> => (await store.list()).jobs.filter(ofEpisode(ep));

/** Every upscale and post job of `ep` once none is left to run. */
async function allEnded(ep: string): Promise<Job[]> {
  await jobsEnded(store, ofEpisode(ep));
  return epJobs(ep);
}

/** The built-in lane's waiting jobs of `ep` as `kind shot`, in the order they will run. */
async function waitingOrder(ep: string): Promise<string[]> {
  const { jobs, lanes } = await store.list();
  const byId = new Map(jobs.map((j) => [j.id, j]));
  return (lanes.builtin?.waiting ?? [])
    .map((id) => byId.get(id))
    .filter((j): j is Job => j?.info.ep === ep)
    .map((j) => `${j.kind} ${j.info.shot}`);
}

const record = async (ep: string, shot: string, ext: "up" | "post") =>
  JSON.parse(await readFile(path.join(takeDir(ep, "final", shot), `${shot}_t01.${ext}.json`), "utf8"));

const statuses = (body: { plan: { rows: { status: string }[] } }) => body.plan.rows.map((r) => r.status);

describe("the master queues each post behind its upscale", () => {
  it("in cut order: one queue call, each post right behind its upscale, all ok, the master plays the posts", {
    timeout: 300_000,
  }, async () => {
    const ep = await episode();
    // Paused so the places in the lane are looked at before anything runs.
    await store.pause("builtin", true);
    try {
      const queued = await s.call("POST", "/master", { ep, action: "queue", post: true });
      expect(queued.status, JSON.stringify(queued.body)).toBe(200);
      expect(queued.body.queued).toEqual(SHOTS);
      expect(queued.body.errors).toEqual([]);
      expect(statuses(queued.body)).toEqual(["queued", "queued", "queued"]);
      expect(await waitingOrder(ep)).toEqual(SHOTS.flatMap((shot) => [`upscale ${shot}`, `post ${shot}`]));
      const jobs = await epJobs(ep);
      for (const shot of SHOTS) {
        const up = jobs.find((j) => j.kind === "upscale" && j.info.shot === shot);
        const post = jobs.find((j) => j.kind === "post" && j.info.shot === shot);
        expect(post?.after).toBe(up?.id);
        // The post's record is written queued at queue time, naming its own job.
        expect(await record(ep, shot, "post")).toMatchObject({ status: "queued", job: post?.id });
      }
      const events = s.env.events.filter((e) => e.type === "studio.post").map((e) => e.data);
      expect(events).toEqual(SHOTS.map((shot) => ({ ep, shot, take: 1, status: "queued" })));
    } finally {
      await store.pause("builtin", false);
      s.env.services.jobSignals.jobAdded();
    }
    const ended = await allEnded(ep);
    expect(ended.map((j) => `${j.kind} ${j.info.shot} ${j.status} ${j.error ?? ""}`.trim()).sort()).toEqual(
      SHOTS.flatMap((shot) => [`post ${shot} succeeded`, `upscale ${shot} succeeded`]).sort(),
    );
    for (const shot of SHOTS) {
      const up = ended.find((j) => j.kind === "upscale" && j.info.shot === shot) as Job;
      const post = ended.find((j) => j.kind === "post" && j.info.shot === shot) as Job;
      expect(Date.parse(post.started ?? "")).toBeGreaterThanOrEqual(Date.parse(up.finished ?? ""));
      expect(await record(ep, shot, "post")).toMatchObject({ status: "ok", width: 896, height: 512 });
    }
    const ready = await s.call("POST", "/master", { ep, post: "recipe" });
    expect(ready.body.plan.ready, JSON.stringify(ready.body.plan.rows)).toBe(true);
    expect(statuses(ready.body)).toEqual(["ok", "ok", "ok"]);
    expect(ready.body.plan.rows.map((r: { post: { status: string } }) => r.post.status)).toEqual([
      "ok",
      "ok",
      "ok",
    ]);
    // The rows' words say what the built-in engine made, as the upscale records do.
    expect(ready.body.plan.rows.map((r: { recipe: string }) => r.recipe)).toEqual(
      SHOTS.map(() =>
        expect.stringMatching(/^pixel upscale \(built-in: lanczos resample, light sharpen\); then /),
      ),
    );
    expect(await record(ep, "sh010", "up")).toMatchObject({ method: "resample", upscaler: "ffmpeg lanczos" });
    const present = await s.call("POST", "/master", { ep, post: "present" });
    expect(present.body.plan.rows.map((r: { recipe: string }) => r.recipe)).toEqual(
      SHOTS.map(() => expect.stringMatching(/; its post$/)),
    );
    const made = await s.call("POST", "/master", { ep, action: "assemble", post: true });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const report = JSON.parse(await readFile(path.join(ep, "master", "e01_master.json"), "utf8"));
    expect(report.played).toEqual({ sh010: "post", sh020: "post", sh030: "post" });
  });

  it("in target order: posts after all upscales; a canceled upscale's post fails with its reason", {
    timeout: 300_000,
  }, async () => {
    const ep = await episode();
    await store.pause("builtin", true);
    let upJob = "";
    try {
      const queued = await s.call("POST", "/master", {
        ep,
        action: "queue",
        post: "recipe",
        order: "target",
      });
      expect(queued.status, JSON.stringify(queued.body)).toBe(200);
      expect(queued.body.queued).toEqual(SHOTS);
      expect(await waitingOrder(ep)).toEqual([
        ...SHOTS.map((shot) => `upscale ${shot}`),
        ...SHOTS.map((shot) => `post ${shot}`),
      ]);
      // The post route's own rule stands: an upscale still being made is no source for a direct post.
      const direct = await s.call("POST", "/post", { ep, shots: ["sh010"], redo: true });
      expect(direct.status, JSON.stringify(direct.body)).toBe(200);
      expect(direct.body.queued).toEqual([]);
      expect(direct.body.errors).toEqual([
        {
          shot: "sh010",
          take: 1,
          error: "its upscale is stale or unfinished (it is still being made: post it once it is done)",
        },
      ]);
      // Queued again while its upscale is on its way: the post already queued behind it is not doubled.
      const again = await s.call("POST", "/master", { ep, action: "queue", post: true });
      expect(again.body.queued).toEqual([]);
      expect((await epJobs(ep)).filter((j) => j.kind === "post")).toHaveLength(3);
      upJob = (await epJobs(ep)).find((j) => j.kind === "upscale" && j.info.shot === "sh020")?.id ?? "";
      const cancel = await s.call("POST", "/jobs/cancel", { id: upJob });
      expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    } finally {
      await store.pause("builtin", false);
      s.env.services.jobSignals.jobAdded();
    }
    const ended = await allEnded(ep);
    const of = (kind: string, shot: string) =>
      ended.find((j) => j.kind === kind && j.info.shot === shot) as Job;
    expect(of("upscale", "sh020").status).toBe("canceled");
    const why = `its upscale (job ${upJob}) was canceled: no post made: upscale it, then post again`;
    expect(of("post", "sh020")).toMatchObject({ status: "failed", error: why });
    expect(await record(ep, "sh020", "post")).toMatchObject({
      status: "failed",
      mp4: null,
      save_notes: `sh020_t01.post.mp4 failed: ${why}`,
    });
    for (const shot of ["sh010", "sh030"]) {
      expect(of("upscale", shot).status).toBe("succeeded");
      expect(of("post", shot).status).toBe("succeeded");
    }
    const plan = await s.call("POST", "/master", { ep, post: true });
    expect(
      plan.body.plan.rows.map(
        (r: { shot: string; status: string; why: string }) => `${r.shot} ${r.status} ${r.why}`,
      ),
    ).toEqual(["sh010 ok ", "sh020 upscale its last upscale failed: trying again", "sh030 ok "]);
  });
});

describe("the pieces of the chain", () => {
  const blur = {
    ok: true as const,
    value: { enhance: null, motion_blur: 0.5, quality: null, encoder: null },
  };
  const versions = (status: "queued" | "ok"): TakeVersions => ({
    shot: "sh010",
    take: 1,
    lane: "builtin",
    upscale: {
      status,
      fresh: false,
      takeExists: true,
      mp4: false,
      width: 896,
      height: 512,
      quality: "review",
    },
    post: null,
  });

  it("a post is planned behind a queued upscale only when asked to wait for it", () => {
    expect(planPost(versions("queued"), blur, { redo: true, quality: null })).toEqual({
      error: {
        shot: "sh010",
        take: 1,
        error: "its upscale is stale or unfinished (it is still being made: post it once it is done)",
      },
    });
    const behind = planPost(versions("queued"), blur, { redo: true, quality: null, behindUpscale: true });
    expect(behind).toMatchObject({ queue: { width: 896, height: 512, lane: "builtin", quality: "review" } });
    // Waiting is for an upscale on its way: one that ended without its mp4 is still refused.
    expect(planPost(versions("ok"), blur, { redo: true, quality: null, behindUpscale: true })).toMatchObject({
      error: { error: "its upscale is stale or unfinished (its .up.mp4 is missing: upscale it again)" },
    });
  });

  it("a post made behind an upscale job says why when that job made nothing", () => {
    const rec = { job: "j1", status: "ok" };
    expect(awaitedProblem({ id: "j1", status: "succeeded", error: null }, rec)).toBeNull();
    expect(awaitedProblem({ id: "j1", status: "failed", error: "ffmpeg died" }, rec)).toBe(
      "its upscale (job j1) failed (ffmpeg died): no post made: upscale it, then post again",
    );
    expect(awaitedProblem({ id: "j1", status: "succeeded", error: null }, { job: "j2" })).toBe(
      "its upscale was queued again by another job after this post was queued: post it once that one is done",
    );
  });

  const facts = (over: Partial<RowFacts>): RowFacts => ({
    shot: "sh010",
    take: 1,
    target: "animatic",
    gap: null,
    recipe: { text: "pixel upscale", hash: "abc", error: null },
    upscale: null,
    post: null,
    postRecipe: { none: false, text: "motion blur 0.5", hash: null, error: null },
    ...over,
  });
  const opts = { size: { width: 896, height: 512 }, conform: false, post: "recipe" as const };

  it("the queue rides a post on an upscale to make, or on one on its way with no post queued", () => {
    const rides = (f: RowFacts, post: "recipe" | "present" = "recipe") =>
      postBehindUpscale(masterRow(f, { ...opts, post }), f, post);
    expect(rides(facts({}))).toBe(true);
    expect(rides(facts({}), "present")).toBe(false);
    expect(rides(facts({ postRecipe: { none: true, text: "none", hash: null, error: null } }))).toBe(false);
    const onItsWay = {
      status: "queued" as const,
      fresh: false,
      keep: false,
      recipeHash: "abc",
      width: 896,
      height: 512,
    };
    expect(rides(facts({ upscale: onItsWay }))).toBe(true);
    const postQueued = { status: "queued" as const, fresh: false, recipeHash: null };
    expect(rides(facts({ upscale: onItsWay, post: postQueued }))).toBe(false);
  });

  it("a row's recipe words say what the take's backend really makes", () => {
    const builtin = {
      text: "pixel upscale",
      hash: "abc",
      error: null,
      runs: { method: "resample", sharpen: true },
    };
    expect(recipeWords(builtin)).toBe("pixel upscale (built-in: lanczos resample, light sharpen)");
    expect(recipeWords({ ...builtin, runs: { method: "resample", sharpen: false } })).toBe(
      "pixel upscale (built-in: lanczos resample)",
    );
    expect(recipeWords({ ...builtin, runs: { method: "pixel", sharpen: false } })).toBe("pixel upscale");
    expect(masterRow(facts({ recipe: builtin }), opts).recipe).toBe(
      "pixel upscale (built-in: lanczos resample, light sharpen); then motion blur 0.5",
    );
  });
});
