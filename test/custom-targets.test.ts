// Custom targets end to end on the ComfyUI double: a user's workflow inspected, saved in the show as a draft (listed,
// not rendered), enabled, and rendered through POST /studio/render and a worker pool; the draft flag, settings
// `enabled_drafts`, one kept in the settings (its workflow beside settings.json), deletion, and every refusal
// (built-in ids, a binding that does not fit, no workflow, bad flags).
import { access, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { settingsFile } from "../lib/config/settings.ts";
import { showDirOf } from "../lib/targets/listing.ts";
import { png, renderQueued, takeSidecar, useComfyStudio } from "./support/comfy-studio.ts";
import { USER_MODEL, userI2vWorkflow, userModels, userWorkflow } from "./support/user-workflow.ts";

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
type Any = any;

const SCRIPT = ["= e01  T", "# sq01 street", "## sh010", "dur: 2", "A cat walks along the roof."].join("\n");

let ep: string;
/** Where the show's own targets live (the series home: here the episode folder, which holds the config). */
let home: string;

const c = useComfyStudio(userModels());

beforeAll(async () => {
  ep = await c.s.episode(SCRIPT);
  home = await showDirOf(c.s.env.services, ep);
});

const showDir = () => home;
const targetFile = (id: string) => path.join(showDir(), "targets", id, "target.json");
const listed = async (id: string): Promise<Any> => {
  const res = await c.s.call("GET", "/targets", { ep, kind: "video" });
  return res.body.targets.find((t: Any) => t.id === id);
};

async function proposal(id: string): Promise<Any> {
  const res = await c.s.call("POST", "/targets/inspect", { graph: userWorkflow(), id, ep });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.can_save).toBe(true);
  return res.body.proposal;
}

/** Render sh010 on `target` through a worker pool; answers the graph the engine accepted. */
async function renderOne(target: string): Promise<Any> {
  const before = c.double.prompts.length;
  await renderQueued(c, { ep, target, redo: true }, [["sh010", target]]);
  const sent = c.double.prompts.slice(before).filter((p) => p.status === 200);
  expect(sent).toHaveLength(1);
  return (sent[0] as Any).body.prompt;
}

describe("a custom target from an inspected workflow", () => {
  it("is saved in the show as a draft, listed, refused by renders, then enabled and rendered through the engine", async () => {
    const target = await proposal("my_wan");
    const saved = await c.s.call("PUT", "/targets/custom", { ep, target, graph: userWorkflow() });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body).toMatchObject({ ok: true, id: "my_wan", path: targetFile("my_wan"), draft: true });
    expect(saved.body.targets.map((t: Any) => t.id)).toEqual(["my_wan"]);
    const onDisk = JSON.parse(await readFile(targetFile("my_wan"), "utf8"));
    expect(onDisk).toMatchObject({ id: "my_wan", draft: true, binding: { workflow: "workflow.json" } });
    const wf = JSON.parse(await readFile(path.join(showDir(), "targets", "my_wan", "workflow.json"), "utf8"));
    expect(wf["8"].class_type).toBe("KSampler");
    expect(await listed("my_wan")).toMatchObject({ custom: true, draft: true, scope: "show" });

    // A draft is not rendered: the shot says why.
    const held = await c.s.call("POST", "/render", { ep, target: "my_wan" });
    expect(held.status).toBe(200);
    expect(held.body.queued).toEqual([]);
    expect(held.body.errors).toEqual([
      {
        shot: "sh010",
        error: expect.stringContaining("target 'my_wan' is a draft and is not rendered until enabled"),
      },
    ]);

    const enabled = await c.s.call("PUT", "/targets/custom", { ep, id: "my_wan", draft: false });
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
    expect(enabled.body).toMatchObject({ ok: true, id: "my_wan", draft: false });
    expect(await listed("my_wan")).toMatchObject({ draft: false });

    const before = c.double.prompts.length;
    await renderQueued(c, { ep, target: "my_wan" }, [["sh010", "my_wan"]]);
    const sent = c.double.prompts.slice(before).filter((p) => p.status === 200);
    expect(sent).toHaveLength(1);
    const g: Any = (sent[0] as Any).body.prompt;
    const byClass = (cls: string) => Object.values(g).filter((n: Any) => n.class_type === cls) as Any[];
    // The shot's prompt went to the positive text node, its seed to the sampler, its length to the latent.
    const texts = byClass("CLIPTextEncode").map((n) => n.inputs.text);
    expect(texts.some((t: string) => t.includes("cat walks along the roof"))).toBe(true);
    expect(texts).toContain("blurry, static");
    expect(byClass("Wan22ImageToVideoLatent")[0].inputs.length).not.toBe(121);
    expect(byClass("UNETLoader")[0].inputs.unet_name).toBe(USER_MODEL);
    const sidecar = await takeSidecar(ep, "sh010");
    expect(sidecar).toMatchObject({ status: "ok", target: "my_wan" });
  });

  it("renders once settings enable it, with its draft flag still set", async () => {
    const target = await proposal("my_wan2");
    expect((await c.s.call("PUT", "/targets/custom", { ep, target, graph: userWorkflow() })).status).toBe(
      200,
    );
    expect(await listed("my_wan2")).toMatchObject({ draft: true });
    const put = await c.s.call("PUT", "/settings", { enabled_drafts: ["my_wan2"] });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    try {
      expect(await listed("my_wan2")).toMatchObject({ draft: false });
      const g: Any = await renderOne("my_wan2");
      expect(Object.values(g).some((n: Any) => n.class_type === "KSampler")).toBe(true);
    } finally {
      await c.s.call("PUT", "/settings", { enabled_drafts: [] });
    }
  });

  it("binds to a workflow saved in the engine by name, and a target whose workflow is nowhere is refused", async () => {
    await writeFile(
      path.join(c.double.userDir, "default", "workflows", "roof cat.json"),
      JSON.stringify(userWorkflow()),
    );
    const res = await c.s.call("POST", "/targets/inspect", { workflow: "roof cat.json", ep });
    expect(res.body.can_save).toBe(true);
    const target = res.body.proposal;
    expect(target.id).toBe("custom_roof_cat");
    const saved = await c.s.call("PUT", "/targets/custom", { ep, target });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);

    const orphan = { ...target, id: "orphan", binding: { ...target.binding, workflow_name: "gone.json" } };
    const refused = await c.s.call("PUT", "/targets/custom", { ep, target: orphan });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain("this target.json can't be used yet: ");
    expect(refused.body.problems.some((p: string) => p.includes("no workflow found"))).toBe(true);
  });
});

describe("a custom target kept in the settings", () => {
  it("saves its workflow beside settings.json and renders it through the engine in a show", async () => {
    const target = { ...(await proposal("shared_wan")), draft: false };
    const saved = await c.s.call("PUT", "/targets/custom", {
      scope: "settings",
      target,
      graph: userWorkflow(),
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const dir = path.join(path.dirname(settingsFile(c.s.env.services)), "targets", "shared_wan");
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
      const del = await c.s.call("DELETE", "/targets/custom", { scope: "settings", id: "shared_wan" });
      expect(del.status, JSON.stringify(del.body)).toBe(200);
    }
    await expect(access(dir)).rejects.toThrow();
    expect(await listed("shared_wan")).toBeUndefined();
  });
});

describe("a custom target whose workflow starts from a picture", () => {
  it("takes the shot's first frame into its LoadImage, and renders without one by disconnecting it", async () => {
    const res = await c.s.call("POST", "/targets/inspect", { graph: userI2vWorkflow(), id: "my_i2v", ep });
    expect(res.body.can_save, JSON.stringify(res.body.problems)).toBe(true);
    const target = res.body.proposal;
    expect(target.recipe).toMatchObject({ keyframes: ["first"] });
    expect(target.recipe.keyframe_required).toBeUndefined();
    expect(target.binding.inputs.first).toEqual({
      class_type: "LoadImage",
      field: "image",
      disconnect: [{ class_type: "Wan22ImageToVideoLatent", input: "start_image" }],
    });
    const saved = await c.s.call("PUT", "/targets/custom", {
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
    await png(frame, 64, 48, "#336699");
    const uploadsBefore = c.double.uploads.length;
    const withFrame: Any = await renderOne("my_i2v");
    const load: Any = Object.values(withFrame).find((n: Any) => n.class_type === "LoadImage");
    expect(load.inputs.image).not.toBe("my_start.png");
    expect(c.double.uploads.length).toBeGreaterThan(uploadsBefore);
    const latent2: Any = Object.values(withFrame).find(
      (n: Any) => n.class_type === "Wan22ImageToVideoLatent",
    );
    expect(Array.isArray(latent2.inputs.start_image)).toBe(true);
  });
});

describe("refusals", () => {
  it("refuses built-in ids, a binding that does not fit its workflow, and a file that is no target", async () => {
    const target = await proposal("my_wan3");
    const builtin = await c.s.call("PUT", "/targets/custom", {
      ep,
      target: { ...target, id: "ltx2" },
      graph: userWorkflow(),
    });
    expect(builtin.status).toBe(400);
    expect(builtin.body.error).toContain("built in");

    const misfit = structuredClone(target);
    misfit.binding.params.seed = { class_type: "KSamplerAdvanced", field: "noise_seed" };
    const bad = await c.s.call("PUT", "/targets/custom", { ep, target: misfit, graph: userWorkflow() });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(
      /^this target\.json can't be used yet: .*KSamplerAdvanced matched 0 nodes/,
    );
    expect(bad.body.problems.length).toBeGreaterThanOrEqual(1);
    await expect(access(targetFile("my_wan3"))).rejects.toThrow();

    const noKind = await c.s.call("PUT", "/targets/custom", {
      ep,
      target: { ...target, kind: "sound" },
      graph: userWorkflow(),
    });
    expect(noKind.status).toBe(400);
    expect(noKind.body.problems[0]).toContain('"kind" must be video, image or audio');

    for (const t of [null, "x", [], { ...target, id: "../up" }, { ...target, draft: "yes" }]) {
      const r = await c.s.call("PUT", "/targets/custom", { ep, target: t, graph: userWorkflow() });
      expect(r.status, JSON.stringify(t)?.slice(0, 40)).toBe(400);
    }
    const badGraph = await c.s.call("PUT", "/targets/custom", { ep, target, graph: { "1": 3 } });
    expect(badGraph.status).toBe(400);
    expect((await c.s.call("PUT", "/targets/custom", { ep })).status).toBe(400);
  });

  it("refuses draft flips on unknown (404), built-in (400) and non-boolean (400)", async () => {
    const unknown = await c.s.call("PUT", "/targets/custom", { ep, id: "nope", draft: true });
    expect(unknown.status).toBe(404);
    const builtin = await c.s.call("PUT", "/targets/custom", { ep, id: "ltx2", draft: false });
    expect(builtin.status).toBe(400);
    expect(builtin.body.error).toContain("built in");
    const nonBool = await c.s.call("PUT", "/targets/custom", { ep, id: "my_wan", draft: "no" });
    expect(nonBool.status).toBe(400);
    expect(nonBool.body.error).toContain("draft must be true or false");
  });

  it("deletes a custom target (404 when absent, 400 for a built-in one or without id)", async () => {
    c.s.env.events.length = 0;
    const del = await c.s.call("DELETE", "/targets/custom", { ep, id: "my_wan2" });
    expect(del.status).toBe(200);
    expect(c.s.env.events).toEqual([{ type: "studio.episode", data: { ep } }]);
    expect(del.body).toMatchObject({ ok: true, id: "my_wan2", deleted: true });
    expect(del.body.targets.map((t: Any) => t.id)).not.toContain("my_wan2");
    await expect(access(path.dirname(targetFile("my_wan2")))).rejects.toThrow();
    expect(await listed("my_wan2")).toBeUndefined();
    expect((await c.s.call("DELETE", "/targets/custom", { ep, id: "my_wan2" })).status).toBe(404);
    expect(c.s.env.events).toHaveLength(1);
    expect((await c.s.call("DELETE", "/targets/custom", { ep, id: "ltx2" })).status).toBe(400);
    expect((await c.s.call("DELETE", "/targets/custom", { ep })).status).toBe(400);
    expect((await c.s.call("DELETE", "/targets/custom", { ep, id: "../x" })).status).toBe(400);
  });
});
