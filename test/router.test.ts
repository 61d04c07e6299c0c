// The router backend against its double on loopback: the model list and its refusals, a model proposed as a
// target, the dry run (nothing sent), target limits in the settings and in a render, and a render end to end
// (progress, the take closed from the downloaded video, paid runs counted and capped, cancel).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { settingsFile } from "../lib/config/settings.ts";
import { showDirOf } from "../lib/targets/listing.ts";
import { jobEnded, waitFor } from "./support/jobs.ts";
import { saveRouterTarget, useRouterStudio } from "./support/router-double.ts";
import { refusal, SCRIPT } from "./support/studio-episode.ts";

const TARGET = "router_acme_motion_2";
const c = useRouterStudio(300);
let ep: string;

/** The router's settings: these values, the others of cloud_url, api_key and paid_limit cleared. */
async function settings(values: Record<string, unknown>) {
  const res = await c.s.call("PUT", "/settings", {
    cloud_url: null,
    api_key: null,
    paid_limit: null,
    ...values,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  ep = await c.s.episode(SCRIPT);
  await saveRouterTarget(c.s, ep, "acme/motion-2", TARGET);
});

describe("GET /studio/router/models", () => {
  it("lists the provider's models with their inputs, drafts and prices", async () => {
    const res = await c.s.call("GET", "/router/models");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.models.map((m: { id: string }) => m.id)).toEqual(["acme/motion-2", "zeta/quick"]);
    expect(res.body.models[0]).toMatchObject({
      kind: "video",
      fps: 24,
      inputs: { first_image: true, last_image: true, durations: [4, 6, 8] },
      draft: { resolution: "480p", days: 7 },
      price_per_run: 0.4,
    });
    expect(res.body.models[1].draft).toBeNull();
  });

  it("answers 503 without a key or provider, 502 when the provider fails", async () => {
    await settings({ cloud_url: c.double.url });
    refusal(await c.s.call("GET", "/router/models"), 503, /needs an API key/);
    await settings({ cloud_url: "http://127.0.0.1:9", api_key: "router-key" });
    refusal(await c.s.call("GET", "/router/models"), 503, /unreachable/);
    await settings({ cloud_url: c.double.url, api_key: "wrong" });
    refusal(await c.s.call("GET", "/router/models"), 502, /API key was refused/);
    await settings({ cloud_url: c.double.url, api_key: "router-key" });
    c.double.modelsStatus = 500;
    refusal(await c.s.call("GET", "/router/models"), 502, /catalogue is down/);
    c.double.modelsStatus = null;
  });
});

describe("GET /studio/backends", () => {
  it("asks the router for its models with the key, and says why it is down without one", async () => {
    const up = await c.s.call("GET", "/backends");
    const router = up.body.backends.find((b: { name: string }) => b.name === "router");
    expect(router).toEqual({ name: "router", kind: "router", where: c.double.url, down: null });
    await settings({ cloud_url: c.double.url, api_key: "wrong" });
    const refused = await c.s.call("GET", "/backends");
    expect(refused.body.backends.find((b: { name: string }) => b.name === "router").down).toBe(
      `${c.double.url} refused the API key (401)`,
    );
    await settings({ cloud_url: c.double.url, api_key: "router-key" });
  });
});

describe("POST /studio/targets/router-inspect", () => {
  it("proposes a video target bound to the model, with its limits", async () => {
    const res = await c.s.call("POST", "/targets/router-inspect", { model: "acme/motion-2" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.target).toMatchObject({
      id: TARGET,
      kind: "video",
      backend: "router",
      router: { model: "acme/motion-2" },
      recipe: { keyframes: ["first", "last"] },
      presets: { final: { width: 1920, height: 1080 }, proxy: { width: 854, height: 480 } },
    });
    expect(res.body.limits).toMatchObject({ max_seconds: 8, max_frames: 192, max_long_side: 1920 });
    expect(res.body.draft).toBe(true);
    const quick = await c.s.call("POST", "/targets/router-inspect", { model: "zeta/quick" });
    expect(quick.body.target.recipe.keyframes).toBeUndefined();
    expect(quick.body.draft).toBe(false);
  });

  it("404s a model the provider does not list, 400s a missing model", async () => {
    refusal(
      await c.s.call("POST", "/targets/router-inspect", { model: "acme/none" }),
      404,
      /no model 'acme\/none'/,
    );
    expect((await c.s.call("POST", "/targets/router-inspect", {})).status).toBe(400);
  });
});

describe("POST /studio/targets/router-dryrun", () => {
  it("shows the exact task a render would send and sends nothing", async () => {
    const before = c.double.submits.length;
    const res = await c.s.call("POST", "/targets/router-dryrun", {
      ep,
      shot: "sh010",
      target: TARGET,
      pass: "final",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      method: "POST",
      url: `${c.double.url}/api/router/v1/tasks`,
      headers: { authorization: "Bearer <api key>" },
      model: "acme/motion-2",
      draft: false,
      price_per_run: 0.4,
    });
    // sh010 lasts 3 s: the shortest clip that holds it is 4 s; 1920x1080 is 1080p at 16:9.
    expect(res.body.body).toMatchObject({ model: "acme/motion-2", duration: 4, resolution: "1080p" });
    expect(res.body.body.aspect_ratio).toBe("16:9");
    expect(typeof res.body.body.prompt).toBe("string");
    expect(JSON.stringify(res.body)).not.toContain("router-key");
    const proxy = await c.s.call("POST", "/targets/router-dryrun", {
      ep,
      shot: "sh010",
      target: TARGET,
      pass: "proxy",
    });
    expect(proxy.body.body).toMatchObject({ resolution: "480p", draft: true });
    expect(c.double.submits.length).toBe(before);
  });

  it("sends the shot's keyframes as the model's first and last pictures", async () => {
    const script = [
      "= e01  T",
      "# sq01 kitchen",
      "## sh010",
      "dur: 2",
      "first: import",
      "last: import",
      "Ada waits.",
    ];
    const keyed = await c.s.episode(script.join("\n"));
    const proposed = await c.s.call("POST", "/targets/router-inspect", { model: "acme/motion-2" });
    const dir = path.join(await showDirOf(c.s.env.services, keyed), "targets", TARGET);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "target.json"), JSON.stringify(proposed.body.target));
    const first = Buffer.from("first keyframe bytes");
    const last = Buffer.from("last keyframe bytes");
    await mkdir(path.join(keyed, "refs/shots/sh010"), { recursive: true });
    await writeFile(path.join(keyed, "refs/shots/sh010/first.png"), first);
    await writeFile(path.join(keyed, "refs/shots/sh010/last.png"), last);
    const res = await c.s.call("POST", "/targets/router-dryrun", {
      ep: keyed,
      shot: "sh010",
      target: TARGET,
      pass: "final",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.body.first_image).toEqual({
      content_type: "image/png",
      data_base64: first.toString("base64"),
    });
    expect(res.body.body.last_image).toEqual({
      content_type: "image/png",
      data_base64: last.toString("base64"),
    });
  });

  it("400s a target that is not a router target and a shot that does not exist", async () => {
    const built = await c.s.call("POST", "/targets/router-dryrun", { ep, shot: "sh010", target: "animatic" });
    refusal(built, 400, /not one|not a router target/);
    const none = await c.s.call("POST", "/targets/router-dryrun", { ep, shot: "sh999", target: TARGET });
    expect(none.status).toBe(400);
  });
});

describe("PUT /studio/targets/limits", () => {
  it("saves limits in the settings, reported by GET /studio/targets and held by a render", async () => {
    const res = await c.s.call("PUT", "/targets/limits", {
      ep,
      target: TARGET,
      limits: { max_seconds: 2.5 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.limits.max_seconds).toBe(2.5);
    const file = JSON.parse(await readFile(settingsFile(c.s.env.services), "utf8"));
    expect(file.target_limits[TARGET]).toEqual({ max_seconds: 2.5 });
    const listed = await c.s.call("GET", "/targets", { ep, kind: "video" });
    const mine = listed.body.targets.find((t: { id: string }) => t.id === TARGET);
    expect(mine.limits.max_seconds).toBe(2.5);
    // sh010 (3 s) is beyond the limit; sh020 (2 s) is not. Nothing of sh010 is queued.
    const dry = await c.s.call("POST", "/targets/router-dryrun", { ep, shot: "sh010", target: TARGET });
    refusal(dry, 400, /sh010 is 3\.00 s; Motion 2 renders at most 2\.5 s/);
    const render = await c.s.call("POST", "/render", {
      ep,
      pass: "final",
      shots: ["sh010"],
      target: TARGET,
      redo: true,
    });
    expect(render.body.queued).toEqual([]);
    expect(render.body.errors[0].error).toMatch(/at most 2\.5 s/);
    // null drops the override.
    const back = await c.s.call("PUT", "/targets/limits", {
      ep,
      target: TARGET,
      limits: { max_seconds: null },
    });
    expect(back.body.limits.max_seconds).toBe(8);
    const after = JSON.parse(await readFile(settingsFile(c.s.env.services), "utf8"));
    expect(after.target_limits).toBeUndefined();
  });

  it("400s bad values and unknown limits, 404s an unknown target", async () => {
    const put = (body: Record<string, unknown>) => c.s.call("PUT", "/targets/limits", body);
    refusal(
      await put({ target: "ltx2", limits: { max_seconds: -1 } }),
      400,
      /limits.max_seconds must be a positive/,
    );
    refusal(await put({ target: "ltx2", limits: { max_seconds: "long" } }), 400, /must be a positive number/);
    refusal(await put({ target: "ltx2", limits: { speed: 2 } }), 400, /limits.speed is not a limit/);
    refusal(await put({ target: "ltx2", limits: [1] }), 400, /limits must be an object/);
    refusal(await put({ target: "nope", limits: { max_frames: 9 } }), 404, /no target 'nope'/);
  });
});

describe("rendering on the router", () => {
  it("submits, follows progress, downloads into the take and counts a paid run", async () => {
    await c.store.paidReset();
    c.s.env.events.length = 0;
    // Long enough for a few polls, each reporting the provider's progress.
    c.double.jobMs = 2_000;
    const res = await c.s.call("POST", "/render", {
      ep,
      pass: "final",
      shots: ["sh020"],
      target: TARGET,
      redo: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.errors).toEqual([]);
    const [q] = res.body.queued;
    expect(q.target).toBe(TARGET);
    const jobs = await c.s.call("GET", "/jobs");
    expect(jobs.body.paid.count).toBe(1);
    c.pool();
    const job = await jobEnded(c.store, q.prompt_id);
    expect(job.status, JSON.stringify(job.error ?? job.log)).toBe("succeeded");
    expect(job.lane).toBe("router");
    const progress = c.s.env.events
      .filter((e) => e.type === "studio.job")
      .map((e) => (e.data as { progress: number }).progress);
    expect(progress.some((p) => p > 0 && p < 1)).toBe(true);
    const submitted = c.double.submits.at(-1) as Record<string, unknown>;
    expect(submitted).toMatchObject({ model: "acme/motion-2", duration: 4, resolution: "1080p" });
    const dir = path.join(ep, "renders", "sh020");
    const sidecar = JSON.parse(
      await readFile(path.join(dir, `sh020_t${String(q.take).padStart(2, "0")}.json`), "utf8"),
    );
    expect(sidecar).toMatchObject({
      status: "ok",
      backend: "router",
      target: TARGET,
      mp4: expect.any(String),
    });
    expect(sidecar.backend_prompt_id).toBe([...c.double.tasks.keys()].at(-1));
    expect(sidecar.draft).toBeUndefined();
    expect(sidecar.frames).toBeGreaterThan(0);
    c.double.jobMs = 300;
  });

  it("holds renders once paid_limit runs were sent", async () => {
    await c.store.paidReset();
    await settings({ cloud_url: c.double.url, api_key: "router-key", paid_limit: 1 });
    const first = await c.s.call("POST", "/render", {
      ep,
      pass: "final",
      shots: ["sh030"],
      target: TARGET,
      redo: true,
    });
    expect(first.body.queued).toHaveLength(1);
    const second = await c.s.call("POST", "/render", {
      ep,
      pass: "final",
      shots: ["sh020"],
      target: TARGET,
      redo: true,
    });
    expect(second.body.queued).toEqual([]);
    expect(second.body.errors[0].error).toMatch(/paid-run limit is reached \(1 of 1/);
    await jobEnded(c.store, first.body.queued[0].prompt_id);
    await settings({ cloud_url: c.double.url, api_key: "router-key" });
  });

  it("cancels the provider's task when the job is cancelled", async () => {
    c.double.jobMs = 20_000;
    const res = await c.s.call("POST", "/render", {
      ep,
      pass: "final",
      shots: ["sh030"],
      target: TARGET,
      redo: true,
    });
    const [q] = res.body.queued;
    await waitFor(async () => [...c.double.tasks.values()].some((t) => t.status === "running"), 20_000);
    const running = [...c.double.tasks.values()].find((t) => t.status === "running");
    const cancel = await c.s.call("POST", "/jobs/cancel", { id: q.prompt_id });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    const job = await jobEnded(c.store, q.prompt_id);
    expect(job.status).toBe("canceled");
    await waitFor(async () => c.double.cancels.includes(running?.id ?? ""), 10_000);
    expect(c.double.tasks.get(running?.id ?? "")?.status).toBe("canceled");
    const sidecar = JSON.parse(
      await readFile(
        path.join(ep, "renders", "sh030", `sh030_t${String(q.take).padStart(2, "0")}.json`),
        "utf8",
      ),
    );
    expect(sidecar).toMatchObject({ status: "failed", save_notes: "canceled" });
    c.double.jobMs = 300;
  });

  it("refuses a ComfyUI target on the router and a router target elsewhere, per shot", async () => {
    const onRouter = await c.s.call("POST", "/render", {
      ep,
      pass: "final",
      shots: ["sh020"],
      backend: "router",
      redo: true,
    });
    expect(onRouter.body.errors[0].error).toMatch(/renders only hosted-model targets/);
    const offRouter = await c.s.call("POST", "/render", {
      ep,
      pass: "final",
      shots: ["sh020"],
      target: TARGET,
      backend: "local",
      redo: true,
    });
    expect(offRouter.body.errors[0].error).toMatch(/renders only on the router backend/);
  });
});

describe("a hosted model saved with PUT /studio/targets/custom", () => {
  const QUICK = "router_zeta_quick";

  it("is checked by its router block, listed as the show's own, rendered on the router and its take picked", async () => {
    const show = await c.s.episode(SCRIPT);
    const inspected = await c.s.call("POST", "/targets/router-inspect", { model: "zeta/quick" });
    expect(inspected.status, JSON.stringify(inspected.body)).toBe(200);
    const target = inspected.body.target;
    expect(target.id).toBe(QUICK);

    const saved = await c.s.call("PUT", "/targets/custom", { ep: show, target });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const file = path.join(await showDirOf(c.s.env.services, show), "targets", QUICK, "target.json");
    expect(saved.body).toMatchObject({ ok: true, id: QUICK, path: file, draft: true });
    expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({
      backend: "router",
      router: { model: "zeta/quick" },
      draft: true,
    });
    const listedAs = async () =>
      (await c.s.call("GET", "/targets", { ep: show, kind: "video" })).body.targets.find(
        (t: { id: string }) => t.id === QUICK,
      );
    expect(await listedAs()).toMatchObject({ custom: true, scope: "show", backend: "router", draft: true });

    // Saved as a draft of the show, it waits to be enabled like any custom target.
    const held = await c.s.call("POST", "/render", {
      ep: show,
      pass: "final",
      shots: ["sh020"],
      target: QUICK,
    });
    expect(held.body.queued).toEqual([]);
    expect(held.body.errors[0].error).toMatch(/is a draft and is not rendered until enabled/);
    const enabled = await c.s.call("PUT", "/targets/custom", { ep: show, id: QUICK, draft: false });
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
    expect(await listedAs()).toMatchObject({ draft: false });

    await c.store.paidReset();
    const res = await c.s.call("POST", "/render", {
      ep: show,
      pass: "final",
      shots: ["sh020"],
      target: QUICK,
      redo: true,
    });
    expect(res.body.errors).toEqual([]);
    const [q] = res.body.queued;
    expect(q.target).toBe(QUICK);
    c.pool();
    const job = await jobEnded(c.store, q.prompt_id);
    expect(job.status, JSON.stringify(job.error ?? job.log)).toBe("succeeded");
    expect(job.lane).toBe("router");
    // sh020 lasts 2 s; Quick renders 5 s clips at 720p only.
    expect(c.double.submits.at(-1)).toMatchObject({ model: "zeta/quick", duration: 5, resolution: "720p" });
    const sidecar = JSON.parse(
      await readFile(
        path.join(show, "renders", "sh020", `sh020_t${String(q.take).padStart(2, "0")}.json`),
        "utf8",
      ),
    );
    expect(sidecar).toMatchObject({ status: "ok", backend: "router", target: QUICK });

    const pick = await c.s.call("PUT", "/pick", { ep: show, pass: "final", shot: "sh020", take: q.take });
    expect(pick.status, JSON.stringify(pick.body)).toBe(200);
    const cut = JSON.parse(await readFile(path.join(show, "cut.json"), "utf8"));
    expect(JSON.stringify(cut)).toContain(`"sh020"`);
  });

  it("refuses a graph, a broken router block, another kind and a built-in id, writing nothing", async () => {
    const show = await c.s.episode(SCRIPT);
    const target = (await c.s.call("POST", "/targets/router-inspect", { model: "acme/motion-2" })).body
      .target;
    const put = (t: unknown, extra: Record<string, unknown> = {}) =>
      c.s.call("PUT", "/targets/custom", { ep: show, target: t, ...extra });
    refusal(await put(target, { graph: { "1": { class_type: "X", inputs: {} } } }), 400, /send no graph/);
    const noModel = await put({ ...target, router: { ...target.router, model: "" } });
    refusal(noModel, 400, /can't be used yet: target router_acme_motion_2: router\.model/, ["problems"]);
    const badDur = await put({ ...target, router: { ...target.router, inputs: { durations: [-4] } } });
    expect(badDur.status).toBe(400);
    expect(badDur.body.problems).toEqual([expect.stringContaining("router.inputs.durations.0")]);
    const badRes = await put({
      ...target,
      router: { ...target.router, draft: { resolution: "big", days: 7 } },
    });
    expect(badRes.body.problems).toEqual([expect.stringContaining("router.draft.resolution")]);
    refusal(await put({ ...target, router: undefined }), 400, /needs a "router" block/, ["problems"]);
    refusal(await put({ ...target, kind: "image" }), 400, /renders video, not image/, ["problems"]);
    refusal(await put({ ...target, id: "ltx2" }), 400, /built in/);
    refusal(await put({ ...target, presets: {} }), 400, /"presets" needs a "final" or "proxy"/, ["problems"]);
    const listed = await c.s.call("GET", "/targets", { ep: show, kind: "video" });
    expect(listed.body.targets.some((t: { custom: boolean }) => t.custom)).toBe(false);
  });
});
