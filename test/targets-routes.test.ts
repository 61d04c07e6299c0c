// GET /studio/targets (listing, `ep`, readiness and its cache) and GET /studio/models, against a ComfyUI double.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { settingsFile } from "../lib/config/settings.ts";
import { clearTargetGraphs } from "../lib/targets/graph-view.ts";
import { clearTargetReadiness } from "../lib/targets/readiness-cache.ts";
import { parseTarget, registryView, type TargetRegistryView } from "../lib/targets/registry.ts";
import { callFunction } from "./support/call.ts";
import { type ComfyDouble, DEFAULT_MODELS, startComfyDouble } from "./support/comfy-double/index.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";
import { routeFor } from "./support/studio-episode.ts";

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read loosely in assertions
type Json = any;

const envs: TestEnv[] = [];
const doubles: ComfyDouble[] = [];

afterEach(async () => {
  await Promise.all(doubles.splice(0).map((d) => d.close()));
  await Promise.all(envs.splice(0).map((e) => e.cleanup()));
});

async function double(models?: Record<string, string[]>): Promise<ComfyDouble> {
  const d = await startComfyDouble(models ? { models } : {});
  doubles.push(d);
  return d;
}

/** Services whose settings point `local_url` at `url`; STUDIO_ROOTS is the env's `root` folder. */
async function withEngine(url: string, settings: Record<string, unknown> = {}) {
  const env = await makeTestEnv();
  envs.push(env);
  const root = path.join(env.dir, "root");
  await mkdir(root, { recursive: true });
  env.services.env.STUDIO_ROOTS = root;
  const file = settingsFile(env.services);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify({ local_url: url, ...settings }));
  const get = (route: string) => {
    const url = new URL(route, "http://127.0.0.1");
    const { fn, params } = routeFor("GET", url.pathname.replace(/^\/studio/, ""));
    return callFunction(fn, Object.fromEntries(url.searchParams), env.services, { params });
  };
  return { env, root, get };
}

const byId = (body: Json, id: string) => body.targets.find((t: Json) => t.id === id);
const without = (list: string[], name: string) => list.filter((f) => f !== name);

describe("GET /studio/targets", () => {
  it("lists targets by kind with the built-in defaults and no readiness unless asked", async () => {
    const d = await double();
    const { get } = await withEngine(d.url);
    const all = await get("/studio/targets");
    expect(all.status).toBe(200);
    expect(all.body.default).toEqual({ video: "animatic", image: "card", audio: "speech" });
    const kinds = new Set(all.body.targets.map((t: Json) => t.kind));
    expect(kinds).toEqual(new Set(["video", "image", "audio"]));

    const video = await get("/studio/targets?kind=video");
    expect(video.body.targets.every((t: Json) => t.kind === "video")).toBe(true);
    const animatic = byId(video.body, "animatic");
    expect(animatic).toMatchObject({ default: true, backend: "builtin", custom: false, draft: false });
    expect(animatic.readiness).toBeUndefined();
    const ltx = byId(video.body, "ltx2");
    expect(ltx).toMatchObject({ kind: "video", default: false, backend: "local", short: expect.any(String) });
    expect(ltx.capabilities.policies).toEqual(expect.any(Array));
    expect(ltx.capabilities.keyframes).toEqual(expect.any(Array));
    expect(ltx.models.model).toMatchObject({
      family: "ltx2.5",
      tier: "required",
      folder: "diffusion_models",
    });
    expect(ltx.models.duration_head).toMatchObject({
      tier: "optional",
      folder: "model_patches",
      feature: expect.any(String),
    });
    expect(ltx.presets.final.model).toMatch(/distilled/);
    expect(ltx.downloads).toEqual(expect.any(Object));
    expect(ltx.template.frames).toBeTruthy();

    const image = await get("/studio/targets?kind=image");
    expect(image.body.targets.map((t: Json) => t.id)).toContain("card");
    expect(image.body.targets.every((t: Json) => t.kind === "image")).toBe(true);
    // No readiness: the engine is asked only which copy of each workflow it has saved, never for nodes or files.
    expect(d.requests.length).toBeGreaterThan(0);
    expect(d.requests.every((r) => r.path.startsWith("/api/userdata/workflows%2F"))).toBe(true);
  });

  it("takes the defaults from settings, else the detected ones", async () => {
    const d = await double();
    const { get } = await withEngine(d.url, {
      default_targets: { video: "ltx2" },
      detected_targets: { video: "wan22_i2v", image: "flux2_klein" },
    });
    const res = await get("/studio/targets");
    expect(res.body.default).toEqual({ video: "ltx2", image: "flux2_klein", audio: "speech" });
    expect(byId(res.body, "ltx2").default).toBe(true);
    expect(byId(res.body, "animatic").default).toBe(false);
    expect(byId(res.body, "flux2_klein").default).toBe(true);
  });

  it("refuses a bad kind or ready with 400 and takes 1/0/true/false/empty", async () => {
    const d = await double();
    const { get } = await withEngine(d.url);
    for (const q of ["kind=sound", "kind=VIDEO", "ready=yes", "ready=2", "ready=on"]) {
      const res = await get(`/studio/targets?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error).toEqual(expect.any(String));
    }
    for (const q of ["ready=0", "ready=false", "ready=", "kind="]) {
      const res = await get(`/studio/targets?${q}`);
      expect(res.status, q).toBe(200);
      expect(byId(res.body, "ltx2").readiness, q).toBeUndefined();
    }
    const on = await get("/studio/targets?kind=audio&ready=true");
    expect(on.status).toBe(200);
    expect(byId(on.body, "silence").readiness.status).toBe("ready");
  });

  it("adds the show's own targets with `ep`, flagged custom and draft", async () => {
    const d = await double();
    const { get, root } = await withEngine(d.url);
    const show = path.join(root, "show");
    const ep = path.join(show, "ep1");
    await mkdir(path.join(show, "targets", "mine"), { recursive: true });
    await mkdir(ep, { recursive: true });
    await writeFile(path.join(show, "series.json"), JSON.stringify({ series: { title: "Show" } }));
    await writeFile(
      path.join(show, "targets", "mine", "target.json"),
      JSON.stringify({
        id: "mine",
        kind: "video",
        label: "My workflow",
        draft: true,
        template: { fps: 24, frames: { step: 1, base: 1, max: 240 } },
        binding: { workflow: "workflow.json" },
        models: { model: { family: "ltx2.5", patterns: ["*ltx*2.5*"], folder: "diffusion_models" } },
        presets: { final: { model: "ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors" } },
      }),
    );
    const plain = await get("/studio/targets?kind=video");
    expect(byId(plain.body, "mine")).toBeUndefined();

    const res = await get(`/studio/targets?kind=video&ep=${encodeURIComponent(ep)}`);
    expect(res.status).toBe(200);
    expect(byId(res.body, "mine")).toMatchObject({
      kind: "video",
      label: "My workflow",
      custom: true,
      draft: true,
      backend: "local",
      default: false,
    });
    expect(byId(res.body, "mine")).toMatchObject({ scope: "show", shipped_draft: false, family: "ltx2.5" });
    expect(byId(res.body, "ltx2").custom).toBe(false);
    const images = await get(`/studio/targets?kind=image&ep=${encodeURIComponent(ep)}`);
    expect(byId(images.body, "mine")).toBeUndefined();

    const outside = await get(`/studio/targets?ep=${encodeURIComponent(path.dirname(root))}`);
    expect(outside.status).toBe(403);
  });
});

describe("GET /studio/targets: every field of a target", () => {
  it("sends family, graph, limits, draft, shipped_draft, custom, scope and per model keep, exclude, default", async () => {
    const d = await double();
    const { get } = await withEngine(d.url);
    const res = await get("/studio/targets");
    expect(res.status).toBe(200);
    for (const t of res.body.targets) {
      for (const key of ["family", "graph", "limits", "draft", "shipped_draft", "custom", "scope"]) {
        expect(t, `${t.id}.${key}`).toHaveProperty(key);
      }
      for (const [param, m] of Object.entries<Json>(t.models)) {
        for (const key of ["keep", "exclude", "default"])
          expect(m, `${t.id}.${param}.${key}`).toHaveProperty(key);
      }
      expect(t).toMatchObject({ draft: false, shipped_draft: false, custom: false, scope: "shipped" });
    }
    const ltx = byId(res.body, "ltx2");
    expect(ltx.family).toBe("ltx2.5");
    expect(ltx.models.model).toMatchObject({
      keep: [expect.stringContaining("distilled")],
      exclude: ["*lora*"],
    });
    expect(ltx.models.model.default).toBeNull();
    expect(byId(res.body, "animatic").family).toBeNull();
    expect(byId(res.body, "wan22_i2v").family).toBe("wan2.2-i2v-14b-high");
  });

  it("derives limits from the template, capabilities and recipe; settings' target_limits replace them", async () => {
    const d = await double();
    const { get } = await withEngine(d.url, {
      target_limits: { wan22_i2v: { max_frames: 81, note: "vram" } },
    });
    const res = await get("/studio/targets?kind=video");
    expect(byId(res.body, "ltx2").limits).toEqual({
      max_frames: 481,
      max_seconds: null, // fps follows the series
      size_multiple: 64,
      max_long_side: 1536,
      max_pixels: 1048576,
      min_pixels: null,
      max_refs: null,
      max_subjects: null, // no subject slots: the reference sheet holds any number
      trained_frames: null,
    });
    expect(byId(res.body, "minimax_h3_ref2va").limits).toMatchObject({ max_frames: 3592, max_subjects: 3 });
    expect(byId(res.body, "wan22_ti2v").limits).toMatchObject({
      max_frames: 241,
      max_seconds: 241 / 24,
      trained_frames: 121,
    });
    expect(byId(res.body, "wan22_i2v").limits).toMatchObject({
      max_frames: 81,
      max_seconds: 161 / 24,
      note: "vram",
      trained_frames: 81,
    });
    const images = await get("/studio/targets?kind=image");
    expect(byId(images.body, "flux2_klein_edit").limits).toMatchObject({ max_refs: 4, max_frames: null });
  });

  it("says which copy of the workflow is in force without ready: shipped, saved in the engine, or $env", async () => {
    const d = await startComfyDouble({
      workflows: { "h3pipe_ltx2_5.json": { "1": { class_type: "X", inputs: {} } } },
    });
    doubles.push(d);
    const { env, get } = await withEngine(d.url);
    const res = await get("/studio/targets");
    expect(byId(res.body, "animatic").graph).toBeNull();
    expect(byId(res.body, "ltx2").graph).toEqual({
      name: "h3pipe_ltx2_5.json",
      source: "comfy",
      where: "/api/userdata/workflows%2Fh3pipe_ltx2_5.json",
      env: "H3_LTX2_WORKFLOW",
      env_set: false,
      repo: expect.stringMatching(/ltx2[/\\]workflow\.json$/),
      error: null,
      // The engine's copy is a graph of its own: more than what a job patches differs from the shipped one.
      installed: true,
      differs: true,
    });
    const klein = byId(res.body, "flux2_klein").graph;
    expect(klein).toMatchObject({
      source: "repo",
      name: "h3pipe_flux2_klein_t2i.json",
      error: null,
      installed: false,
      differs: null,
    });
    expect(klein.where).toBe(klein.repo);
    expect(byId(res.body, "flux2_klein").readiness).toBeUndefined();

    // An env variable's file wins; one that is not JSON is the graph's error, with no copy in force.
    const file = path.join(env.dir, "klein.json");
    await writeFile(file, "{ not json");
    env.services.env.H3_FLUX2_KLEIN_WORKFLOW = file;
    clearTargetGraphs(env.services);
    const broken = byId((await get("/studio/targets?kind=image")).body, "flux2_klein").graph;
    expect(broken).toMatchObject({ source: "none", where: null, env_set: true });
    expect(broken.error).toContain(file);
    await writeFile(file, JSON.stringify({ "1": { class_type: "Y", inputs: {} } }));
    clearTargetGraphs(env.services);
    const fromEnv = byId((await get("/studio/targets?kind=image")).body, "flux2_klein").graph;
    expect(fromEnv).toMatchObject({ source: "env", where: file, env_set: true, error: null });
  });

  it("keeps the graph answer briefly, and not when the engine did not answer", async () => {
    const d = await double();
    const { get } = await withEngine(d.url);
    await get("/studio/targets?kind=video");
    const asked = d.requests.length;
    await get("/studio/targets?kind=video");
    expect(d.requests.length).toBe(asked);

    const d2 = await double();
    const second = await withEngine(d2.url);
    await d2.setRefusing(true);
    const down = await second.get("/studio/targets?kind=image");
    expect(byId(down.body, "flux2_klein").graph).toMatchObject({ source: "repo", error: null });
    await d2.setRefusing(false);
    await second.get("/studio/targets?kind=image");
    expect(d2.requests.length).toBeGreaterThan(0); // asked again once it answers
  });

  it("marks a target shipped as a draft until settings' enabled_drafts turn it on", async () => {
    const d = await double();
    const { env, get } = await withEngine(d.url);
    const raw = JSON.parse(JSON.stringify(env.services.targets.get("wan22_ti2v")));
    const draftSpec = parseTarget({ ...raw, id: "wan22_try", draft: true }, "wan22_try", "video");
    const shipped = env.services.targets;
    const all = [...shipped.ids().map((id) => shipped.get(id)!), draftSpec];
    (env.services as { targets: TargetRegistryView }).targets = registryView(all);
    const off = byId((await get("/studio/targets?kind=video")).body, "wan22_try");
    expect(off).toMatchObject({ draft: true, shipped_draft: true, custom: false, scope: "shipped" });
    await writeFile(
      settingsFile(env.services),
      JSON.stringify({ local_url: d.url, enabled_drafts: ["wan22_try"] }),
    );
    const on = byId((await get("/studio/targets?kind=video")).body, "wan22_try");
    expect(on).toMatchObject({ draft: false, shipped_draft: true });
  });
});

describe("readiness (GET /studio/targets?ready=1)", () => {
  it("is ready when every file and node is there; built-in targets are always ready", async () => {
    const d = await double();
    const { get } = await withEngine(d.url);
    const res = await get("/studio/targets?ready=1");
    expect(res.status).toBe(200);
    for (const id of ["ltx2", "flux2_klein", "ltx2_voice"]) {
      const r = byId(res.body, id).readiness;
      expect(r, id).toMatchObject({ status: "ready", missing: [], features_off: [], nodes_missing: [] });
      expect(Object.keys(r.resolved).length, id).toBeGreaterThan(0);
      expect(r.by_pass.final, id).toBeTruthy();
    }
    expect(byId(res.body, "ltx2").readiness.resolved.model).toMatchObject({ how: "exact", tier: "required" });
    expect(byId(res.body, "ltx2").graph).toMatchObject({ source: "repo" });
    for (const id of ["animatic", "card", "silence"]) {
      expect(byId(res.body, id).readiness.status, id).toBe("ready");
    }
    expect(d.requests.some((r) => r.path.startsWith("/api/object_info"))).toBe(true);
  });

  it("is degraded when only an accelerator or an optional file is missing", async () => {
    const d = await double({
      ...DEFAULT_MODELS,
      diffusion_models: without(DEFAULT_MODELS.diffusion_models, "flux-2-klein-9b-kv.safetensors"),
      model_patches: [],
    });
    const { get } = await withEngine(d.url);
    const res = await get("/studio/targets?ready=1");
    const ltx = byId(res.body, "ltx2").readiness;
    expect(ltx.status).toBe("degraded");
    expect(ltx.missing).toEqual([
      expect.objectContaining({
        param: "duration_head",
        tier: "optional",
        folder: "model_patches",
        passes: ["final", "proxy"],
      }),
    ]);
    expect(ltx.features_off).toContain("dur: model (duration head)");

    const klein = byId(res.body, "flux2_klein").readiness;
    expect(klein.status).toBe("degraded");
    expect(klein.missing).toEqual([
      expect.objectContaining({
        param: "model",
        tier: "accelerator",
        want: "flux-2-klein-9b-kv.safetensors",
      }),
    ]);
    expect(klein.by_pass.final.base).toBe(true);
  });

  it("is not_ready when a required file is missing, each missing file listed with its tier", async () => {
    const d = await double({
      ...DEFAULT_MODELS,
      text_encoders: without(
        DEFAULT_MODELS.text_encoders,
        "gemma4-12b-with-proj-ltx-2.5-comfy-int8-convrot.safetensors",
      ),
      model_patches: [],
    });
    const { get } = await withEngine(d.url);
    const res = await get("/studio/targets?ready=1&kind=video");
    const ltx = byId(res.body, "ltx2").readiness;
    expect(ltx.status).toBe("not_ready");
    const tiers = Object.fromEntries(ltx.missing.map((m: Json) => [m.param, m.tier]));
    expect(tiers).toEqual({ text_encoder: "required", duration_head: "optional" });
    const enc = ltx.missing.find((m: Json) => m.param === "text_encoder");
    expect(enc).toMatchObject({
      family: "ltx2.5-text-encoder",
      folder: "text_encoders",
      source: expect.any(String),
    });
    expect(enc.passes).toContain("final");
    expect(ltx.by_pass.final.blocked).toBe(true);
    expect(byId(res.body, "animatic").readiness.status).toBe("ready");
  });

  it("is unknown with an error when the engine does not answer, and that answer is not kept", async () => {
    const d = await double();
    const { get } = await withEngine(d.url);
    await d.setRefusing(true);
    const down = await get("/studio/targets?ready=1&kind=image");
    expect(down.status).toBe(200);
    const klein = byId(down.body, "flux2_klein").readiness;
    expect(klein.status).toBe("unknown");
    expect(klein.error).toEqual(expect.any(String));
    expect(byId(down.body, "card").readiness.status).toBe("ready");

    await d.setRefusing(false);
    const up = await get("/studio/targets?ready=1&kind=image");
    expect(byId(up.body, "flux2_klein").readiness.status).toBe("ready");
  });

  it("is unknown when the engine is gone", async () => {
    const d = await double();
    const { get } = await withEngine(d.url);
    await d.close();
    doubles.splice(doubles.indexOf(d), 1);
    const res = await get("/studio/targets?ready=1&kind=audio");
    expect(byId(res.body, "ltx2_voice").readiness).toMatchObject({
      status: "unknown",
      error: expect.any(String),
    });
    expect(byId(res.body, "silence").readiness.status).toBe("ready");
  });

  it("keeps an answer briefly: a second call does not ask the engine again", async () => {
    const d = await double();
    const { env, get } = await withEngine(d.url);
    const first = await get("/studio/targets?ready=1");
    const asked = d.requests.length;
    expect(asked).toBeGreaterThan(0);
    const second = await get("/studio/targets?ready=1");
    expect(d.requests.length).toBe(asked);
    expect(byId(second.body, "ltx2").readiness).toEqual(byId(first.body, "ltx2").readiness);
    clearTargetReadiness(env.services, d.url);
    await get("/studio/targets?ready=1&kind=image");
    expect(d.requests.length).toBeGreaterThan(asked);
  });
});

describe("GET /studio/models", () => {
  it("groups the target family's files first, then unverified files with a mismatch flag", async () => {
    const d = await double({
      ...DEFAULT_MODELS,
      diffusion_models: [
        "flux-2-klein-9b-kv.safetensors",
        "ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors",
        "mystery.safetensors",
        "ltx-2.5-22b-dev-transformer-comfy-int8-convrot.safetensors",
      ],
    });
    const { get } = await withEngine(d.url);
    const res = await get("/studio/models?target=ltx2");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      target: "ltx2",
      param: "model",
      family: "ltx2.5",
      folder: "diffusion_models",
    });
    const [mine, rest] = res.body.groups;
    expect(mine.family).toBe("ltx2.5");
    expect(mine.files.map((f: Json) => f.name).sort()).toEqual([
      "ltx-2.5-22b-dev-transformer-comfy-int8-convrot.safetensors",
      "ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors",
    ]);
    expect(mine.files.every((f: Json) => f.match === "name" && f.folder === "diffusion_models")).toBe(true);
    expect(rest).toMatchObject({ family: null, label: "unverified", detail: expect.any(String) });
    const flags = Object.fromEntries(rest.files.map((f: Json) => [f.name, f.mismatch]));
    expect(flags).toEqual({ "flux-2-klein-9b-kv.safetensors": true, "mystery.safetensors": false });
    expect(res.body.files.map((f: Json) => f.match)).toEqual(["name", "name", "other", "other"]);
  });

  it("takes another model param and its own folder", async () => {
    const d = await double();
    const { get } = await withEngine(d.url);
    const res = await get("/studio/models?target=ltx2&param=duration_head");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ param: "duration_head", folder: "model_patches" });
    expect(res.body.groups[0].files.map((f: Json) => f.name)).toEqual([
      "ltx-2.5-duration-head-bf16.safetensors",
    ]);
  });

  it("answers 400 without a target, for an unknown target or param, and 503 when the engine is silent", async () => {
    const d = await double();
    const { get } = await withEngine(d.url);
    expect((await get("/studio/models")).status).toBe(400);
    expect((await get("/studio/models?target=nope")).status).toBe(400);
    expect((await get("/studio/models?target=ltx2&param=model_low")).status).toBe(400);
    expect((await get("/studio/models?target=animatic")).status).toBe(400);
    await d.close();
    doubles.splice(doubles.indexOf(d), 1);
    const down = await get("/studio/models?target=flux2_klein&param=vae");
    expect(down.status).toBe(503);
    expect(down.body.error).toEqual(expect.any(String));
  });
});
