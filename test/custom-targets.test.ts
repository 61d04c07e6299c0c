// Custom targets end to end on the ComfyUI double: a user's workflow inspected, saved in the show as a draft (listed,
// not rendered), enabled, and rendered through POST /studio/render and a worker pool; the draft flag, settings
// `enabled_drafts`, one kept in the settings (its workflow beside settings.json), deletion, and every refusal
// (built-in ids, a binding that does not fit, no workflow, bad flags).
import { access, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { settingsFile } from "../lib/config/settings.ts";
import type { StudioJobStore } from "../lib/jobs/store.ts";
import { showDirOf } from "../lib/targets/listing.ts";
import { renderJob } from "../workers/jobs/render.ts";
import type { WorkerPool } from "../workers/pool.ts";
import { type ComfyDouble, DEFAULT_MODELS, startComfyDouble } from "./support/comfy-double/index.ts";
import { startTestPool, waitFor } from "./support/jobs.ts";
import { makeStudio, type Studio } from "./support/studio-episode.ts";
import {
  USER_MODEL,
  USER_TEXT_ENCODER,
  USER_VAE,
  userI2vWorkflow,
  userWorkflow,
} from "./support/user-workflow.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const SCRIPT = ["= e01  T", "# sq01 street", "## sh010", "dur: 2", "A cat walks along the roof."].join("\n");

let s: Studio;
let store: StudioJobStore;
let double: ComfyDouble;
let ep: string;
/** Where the show's own targets live (the series home: here the episode folder, which holds the config). */
let home: string;
const pools: WorkerPool[] = [];

beforeAll(async () => {
  s = await makeStudio();
  store = await s.env.services.jobs();
  const models = structuredClone(DEFAULT_MODELS);
  models.diffusion_models = [...(models.diffusion_models ?? []), USER_MODEL];
  models.text_encoders = [...(models.text_encoders ?? []), USER_TEXT_ENCODER];
  models.vae = [...(models.vae ?? []), USER_VAE];
  double = await startComfyDouble({ models, stepMs: 1 });
  s.env.services.engines.lookups.clear();
  const file = settingsFile(s.env.services);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify({ local_url: double.url }));
  ep = await s.episode(SCRIPT);
  home = await showDirOf(s.env.services, ep);
});
afterAll(async () => {
  await s.env.services.engines.close();
  await double.close();
  await store.close();
  await s.cleanup();
});
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.stop({ graceful: false, timeoutMs: 2_000 });
});

const showDir = () => home;
const targetFile = (id: string) => path.join(showDir(), "targets", id, "target.json");
const listed = async (id: string): Promise<Any> => {
  const res = await s.call("GET", "/targets", { ep, kind: "video" });
  return res.body.targets.find((t: Any) => t.id === id);
};

async function proposal(id: string): Promise<Any> {
  const res = await s.call("POST", "/targets/inspect", { graph: userWorkflow(), id, ep });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.can_save).toBe(true);
  return res.body.proposal;
}

/** Render sh010 on `target` through a worker pool; answers the graph the engine accepted. */
async function renderOne(target: string): Promise<Any> {
  const before = double.prompts.length;
  const res = await s.call("POST", "/render", { ep, target, redo: true });
  expect(res.body.errors).toEqual([]);
  expect(res.body.queued).toHaveLength(1);
  pools.push(startTestPool(s.env.services, store, { render: renderJob }));
  const id = res.body.queued[0].prompt_id;
  await waitFor(async () =>
    ["succeeded", "failed", "canceled"].includes((await store.get(id))?.status ?? ""),
  );
  const job: Any = await store.get(id);
  expect(job.status, JSON.stringify(job.error ?? job)).toBe("succeeded");
  const sent = double.prompts.slice(before).filter((p) => p.status === 200);
  expect(sent).toHaveLength(1);
  return (sent[0] as Any).body.prompt;
}

describe("a custom target from an inspected workflow", () => {
  it("is saved in the show as a draft, listed, refused by renders, then enabled and rendered through the engine", async () => {
    const target = await proposal("my_wan");
    const saved = await s.call("PUT", "/targets/custom", { ep, target, graph: userWorkflow() });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body).toMatchObject({ ok: true, id: "my_wan", path: targetFile("my_wan"), draft: true });
    expect(saved.body.targets.map((t: Any) => t.id)).toEqual(["my_wan"]);
    const onDisk = JSON.parse(await readFile(targetFile("my_wan"), "utf8"));
    expect(onDisk).toMatchObject({ id: "my_wan", draft: true, binding: { workflow: "workflow.json" } });
    const wf = JSON.parse(await readFile(path.join(showDir(), "targets", "my_wan", "workflow.json"), "utf8"));
    expect(wf["8"].class_type).toBe("KSampler");
    expect(await listed("my_wan")).toMatchObject({ custom: true, draft: true, scope: "show" });

    // A draft is not rendered: the shot says why.
    const held = await s.call("POST", "/render", { ep, target: "my_wan" });
    expect(held.status).toBe(200);
    expect(held.body.queued).toEqual([]);
    expect(held.body.errors).toEqual([
      {
        shot: "sh010",
        error: expect.stringContaining("target 'my_wan' is a draft and is not rendered until enabled"),
      },
    ]);

    const enabled = await s.call("PUT", "/targets/custom", { ep, id: "my_wan", draft: false });
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
    expect(enabled.body).toMatchObject({ ok: true, id: "my_wan", draft: false });
    expect(await listed("my_wan")).toMatchObject({ draft: false });

    const before = double.prompts.length;
    const res = await s.call("POST", "/render", { ep, target: "my_wan" });
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([]);
    expect(res.body.queued.map((q: Any) => [q.shot, q.target])).toEqual([["sh010", "my_wan"]]);
    pools.push(startTestPool(s.env.services, store, { render: renderJob }));
    const id = res.body.queued[0].prompt_id;
    await waitFor(async () =>
      ["succeeded", "failed", "canceled"].includes((await store.get(id))?.status ?? ""),
    );
    const job: Any = await store.get(id);
    expect(job.status, JSON.stringify(job.error ?? job)).toBe("succeeded");
    const sent = double.prompts.slice(before).filter((p) => p.status === 200);
    expect(sent).toHaveLength(1);
    const g: Any = (sent[0] as Any).body.prompt;
    const byClass = (cls: string) => Object.values(g).filter((n: Any) => n.class_type === cls) as Any[];
    // The shot's prompt went to the positive text node, its seed to the sampler, its length to the latent.
    const texts = byClass("CLIPTextEncode").map((n) => n.inputs.text);
    expect(texts.some((t: string) => t.includes("cat walks along the roof"))).toBe(true);
    expect(texts).toContain("blurry, static");
    expect(byClass("Wan22ImageToVideoLatent")[0].inputs.length).not.toBe(121);
    expect(byClass("UNETLoader")[0].inputs.unet_name).toBe(USER_MODEL);
    const sidecar = JSON.parse(
      await readFile(path.join(ep, "renders_proxy", "sh010", "sh010_t01.json"), "utf8"),
    );
    expect(sidecar).toMatchObject({ status: "ok", target: "my_wan" });
  });

  it("renders once settings enable it, with its draft flag still set", async () => {
    const target = await proposal("my_wan2");
    expect((await s.call("PUT", "/targets/custom", { ep, target, graph: userWorkflow() })).status).toBe(200);
    expect(await listed("my_wan2")).toMatchObject({ draft: true });
    const put = await s.call("PUT", "/settings", { enabled_drafts: ["my_wan2"] });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    try {
      expect(await listed("my_wan2")).toMatchObject({ draft: false });
      const g: Any = await renderOne("my_wan2");
      expect(Object.values(g).some((n: Any) => n.class_type === "KSampler")).toBe(true);
    } finally {
      await s.call("PUT", "/settings", { enabled_drafts: [] });
    }
  });

  it("binds to a workflow saved in the engine by name, and a target whose workflow is nowhere is refused", async () => {
    await writeFile(
      path.join(double.userDir, "default", "workflows", "roof cat.json"),
      JSON.stringify(userWorkflow()),
    );
    const res = await s.call("POST", "/targets/inspect", { workflow: "roof cat.json", ep });
    expect(res.body.can_save).toBe(true);
    const target = res.body.proposal;
    expect(target.id).toBe("custom_roof_cat");
    const saved = await s.call("PUT", "/targets/custom", { ep, target });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);

    const orphan = { ...target, id: "orphan", binding: { ...target.binding, workflow_name: "gone.json" } };
    const refused = await s.call("PUT", "/targets/custom", { ep, target: orphan });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain("this target.json can't be used yet: ");
    expect(refused.body.problems.some((p: string) => p.includes("no workflow found"))).toBe(true);
  });
});

describe("a custom target kept in the settings", () => {
  it("saves its workflow beside settings.json and renders it through the engine in a show", async () => {
    const target = { ...(await proposal("shared_wan")), draft: false };
    const saved = await s.call("PUT", "/targets/custom", {
      scope: "settings",
      target,
      graph: userWorkflow(),
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const dir = path.join(path.dirname(settingsFile(s.env.services)), "targets", "shared_wan");
    expect(saved.body).toMatchObject({
      scope: "settings",
      path: path.join(dir, "target.json"),
      draft: false,
    });
    const wf = JSON.parse(await readFile(path.join(dir, "workflow.json"), "utf8"));
    expect(wf["8"].class_type).toBe("KSampler");
    expect(await listed("shared_wan")).toMatchObject({ custom: true, scope: "settings", backend: "local" });
    await expect(access(targetFile("shared_wan"))).rejects.toThrow();
    try {
      const g: Any = await renderOne("shared_wan");
      const unet = Object.values(g).find((n: Any) => n.class_type === "UNETLoader") as Any;
      expect(unet.inputs.unet_name).toBe(USER_MODEL);
    } finally {
      const del = await s.call("DELETE", "/targets/custom", { scope: "settings", id: "shared_wan" });
      expect(del.status, JSON.stringify(del.body)).toBe(200);
    }
    await expect(access(dir)).rejects.toThrow();
    expect(await listed("shared_wan")).toBeUndefined();
  });
});

describe("a custom target whose workflow starts from a picture", () => {
  it("takes the shot's first frame into its LoadImage, and renders without one by disconnecting it", async () => {
    const res = await s.call("POST", "/targets/inspect", { graph: userI2vWorkflow(), id: "my_i2v", ep });
    expect(res.body.can_save, JSON.stringify(res.body.problems)).toBe(true);
    const target = res.body.proposal;
    expect(target.recipe).toMatchObject({ keyframes: ["first"] });
    expect(target.recipe.keyframe_required).toBeUndefined();
    expect(target.binding.inputs.first).toEqual({
      class_type: "LoadImage",
      field: "image",
      disconnect: [{ class_type: "Wan22ImageToVideoLatent", input: "start_image" }],
    });
    const saved = await s.call("PUT", "/targets/custom", {
      ep,
      target: { ...target, draft: false },
      graph: userI2vWorkflow(),
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);

    const without: Any = await renderOne("my_i2v");
    expect(Object.values(without).some((n: Any) => n.class_type === "LoadImage")).toBe(false);
    const latent: Any = Object.values(without).find((n: Any) => n.class_type === "Wan22ImageToVideoLatent");
    expect(latent.inputs.start_image).toBeUndefined();

    const frame = path.join(ep, "refs", "shots", "sh010", "first.png");
    await mkdir(path.dirname(frame), { recursive: true });
    await sharp({ create: { width: 64, height: 48, channels: 3, background: "#336699" } })
      .png()
      .toFile(frame);
    const uploadsBefore = double.uploads.length;
    const withFrame: Any = await renderOne("my_i2v");
    const load: Any = Object.values(withFrame).find((n: Any) => n.class_type === "LoadImage");
    expect(load.inputs.image).not.toBe("my_start.png");
    expect(double.uploads.length).toBeGreaterThan(uploadsBefore);
    const latent2: Any = Object.values(withFrame).find(
      (n: Any) => n.class_type === "Wan22ImageToVideoLatent",
    );
    expect(Array.isArray(latent2.inputs.start_image)).toBe(true);
  });
});

describe("refusals", () => {
  it("refuses built-in ids, a binding that does not fit its workflow, and a file that is no target", async () => {
    const target = await proposal("my_wan3");
    const builtin = await s.call("PUT", "/targets/custom", {
      ep,
      target: { ...target, id: "ltx2" },
      graph: userWorkflow(),
    });
    expect(builtin.status).toBe(400);
    expect(builtin.body.error).toContain("built in");

    const misfit = structuredClone(target);
    misfit.binding.params.seed = { class_type: "KSamplerAdvanced", field: "noise_seed" };
    const bad = await s.call("PUT", "/targets/custom", { ep, target: misfit, graph: userWorkflow() });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(
      /^this target\.json can't be used yet: .*KSamplerAdvanced matched 0 nodes/,
    );
    expect(bad.body.problems.length).toBeGreaterThanOrEqual(1);
    await expect(access(targetFile("my_wan3"))).rejects.toThrow();

    const noKind = await s.call("PUT", "/targets/custom", {
      ep,
      target: { ...target, kind: "sound" },
      graph: userWorkflow(),
    });
    expect(noKind.status).toBe(400);
    expect(noKind.body.problems[0]).toContain('"kind" must be video, image or audio');

    for (const t of [null, "x", [], { ...target, id: "../up" }, { ...target, draft: "yes" }]) {
      const r = await s.call("PUT", "/targets/custom", { ep, target: t, graph: userWorkflow() });
      expect(r.status, JSON.stringify(t)?.slice(0, 40)).toBe(400);
    }
    const badGraph = await s.call("PUT", "/targets/custom", { ep, target, graph: { "1": 3 } });
    expect(badGraph.status).toBe(400);
    expect((await s.call("PUT", "/targets/custom", { ep })).status).toBe(400);
  });

  it("refuses draft flips on unknown (404), built-in (400) and non-boolean (400)", async () => {
    const unknown = await s.call("PUT", "/targets/custom", { ep, id: "nope", draft: true });
    expect(unknown.status).toBe(404);
    const builtin = await s.call("PUT", "/targets/custom", { ep, id: "ltx2", draft: false });
    expect(builtin.status).toBe(400);
    expect(builtin.body.error).toContain("built in");
    const nonBool = await s.call("PUT", "/targets/custom", { ep, id: "my_wan", draft: "no" });
    expect(nonBool.status).toBe(400);
    expect(nonBool.body.error).toContain("draft must be true or false");
  });

  it("deletes a custom target (404 when absent, 400 for a built-in one or without id)", async () => {
    s.env.events.length = 0;
    const del = await s.call("DELETE", "/targets/custom", { ep, id: "my_wan2" });
    expect(del.status).toBe(200);
    expect(s.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);
    expect(del.body).toMatchObject({ ok: true, id: "my_wan2", deleted: true });
    expect(del.body.targets.map((t: Any) => t.id)).not.toContain("my_wan2");
    await expect(access(path.dirname(targetFile("my_wan2")))).rejects.toThrow();
    expect(await listed("my_wan2")).toBeUndefined();
    expect((await s.call("DELETE", "/targets/custom", { ep, id: "my_wan2" })).status).toBe(404);
    expect(s.env.events).toHaveLength(1);
    expect((await s.call("DELETE", "/targets/custom", { ep, id: "ltx2" })).status).toBe(400);
    expect((await s.call("DELETE", "/targets/custom", { ep })).status).toBe(400);
    expect((await s.call("DELETE", "/targets/custom", { ep, id: "../x" })).status).toBe(400);
  });
});
