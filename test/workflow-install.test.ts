// Workflow install, removal and listing against the ComfyUI double's user data: the shipped workflow saved byte for
// byte under the binding's name (then the copy renders use), a scratch copy that does not render, 409 without
// overwrite, every refusal, the env variable's file never touched, and a backend that is down or refuses → 502.
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settingsFile } from "../lib/config/settings.ts";
import { shippedWorkflowPath, workflowName } from "../lib/targets/workflow.ts";
import { type ComfyDouble, startComfyDouble } from "./support/comfy-double/index.ts";
import { makeStudio, type Studio } from "./support/studio-episode.ts";

let s: Studio;
let double: ComfyDouble;

async function useBackend(url: string): Promise<void> {
  const file = settingsFile(s.env.services);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify({ local_url: url }));
}

const savedFile = (name: string) => path.join(double.userDir, "default", "workflows", name);
const wan = () => s.env.services.targets.get("wan22_ti2v")!;

beforeAll(async () => {
  s = await makeStudio();
  double = await startComfyDouble({ stepMs: 1 });
  await useBackend(double.url);
});
afterAll(async () => {
  await s.env.services.engines.close();
  await double.close();
  await s.cleanup();
});

describe("POST /studio/workflow/install", () => {
  it("saves the shipped workflow byte for byte under the binding's name, which renders then use", async () => {
    const name = workflowName(wan());
    const res = await s.call("POST", "/workflow/install", { target: "wan22_ti2v" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ ok: true, target: "wan22_ti2v", installed: name, renders: true });
    expect(res.body.graph).toMatchObject({
      name,
      source: "comfy",
      installed: true,
      differs: false,
      error: null,
    });
    const shipped = await readFile(shippedWorkflowPath(wan())!);
    expect((await readFile(savedFile(name))).equals(shipped)).toBe(true);

    // The listing sees the same copy in force.
    const targets = await s.call("GET", "/targets", { kind: "video" });
    const entry = targets.body.targets.find((t: { id: string }) => t.id === "wan22_ti2v");
    expect(entry.graph.source).toBe("comfy");
  });

  it("refuses to replace a saved workflow without overwrite, and replaces it with overwrite", async () => {
    const name = workflowName(wan());
    await writeFile(savedFile(name), '{"edited": true}');
    const again = await s.call("POST", "/workflow/install", { target: "wan22_ti2v" });
    expect(again.status).toBe(409);
    expect(again.body.error).toContain(`workflows/${name} is already saved`);
    expect(again.body.error).toContain("overwrite: true");
    expect(await readFile(savedFile(name), "utf8")).toBe('{"edited": true}');

    const forced = await s.call("POST", "/workflow/install", { target: "wan22_ti2v", overwrite: true });
    expect(forced.status).toBe(200);
    expect((await readFile(savedFile(name))).equals(await readFile(shippedWorkflowPath(wan())!))).toBe(true);
  });

  it("says whether the engine's copy differs from the shipped one beyond what a job patches", async () => {
    const name = workflowName(wan());
    const shipped = JSON.parse(await readFile(shippedWorkflowPath(wan())!, "utf8"));
    const graphOf = async () => {
      // The graph block is kept 30 s; an install drops it, so reinstall the edited copy through the route.
      const res = await s.call("POST", "/workflow/install", {
        target: "wan22_ti2v",
        name: "probe.json",
        overwrite: true,
      });
      expect(res.status).toBe(200);
      return res.body.graph;
    };
    expect((await graphOf()).differs).toBe(false);

    // Widgets a job sets (steps, the prompt) and layout do not count.
    const patchedOnly = structuredClone(shipped);
    patchedOnly["9"].inputs.steps = 4;
    patchedOnly["4"].inputs.text = "a different prompt";
    patchedOnly["9"]._meta = { title: "renamed" };
    await writeFile(savedFile(name), JSON.stringify(patchedOnly));
    expect(await graphOf()).toMatchObject({ source: "comfy", installed: true, differs: false });

    // A widget no job touches does.
    const edited = structuredClone(shipped);
    edited["1"].inputs.weight_dtype = "fp8_e4m3fn";
    await writeFile(savedFile(name), JSON.stringify(edited));
    expect((await graphOf()).differs).toBe(true);
    await s.call("DELETE", "/workflow/install", { target: "wan22_ti2v", name: "probe.json" });
    await s.call("POST", "/workflow/install", { target: "wan22_ti2v", overwrite: true });
  });

  it("saves a scratch copy under another name, which does not render", async () => {
    const res = await s.call("POST", "/workflow/install", { target: "ltx2", name: "my ltx try.json" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ installed: "my ltx try.json", renders: false });
    expect(res.body.graph.name).toBe(workflowName(s.env.services.targets.get("ltx2")!));
    expect((await stat(savedFile("my ltx try.json"))).size).toBeGreaterThan(0);
  });

  it("refuses unknown targets, targets without a workflow, bad names and a non-boolean overwrite", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ target: "no_such_target" }, "unknown target"],
      [{ target: "animatic" }, "no shipped workflow"],
      [{ target: "wan22_ti2v", name: "../escape.json" }, "must be a workflow file name"],
      [{ target: "wan22_ti2v", name: "sub/dir.json" }, "must be a workflow file name"],
      [{ target: "wan22_ti2v", name: "notjson.txt" }, "must be a workflow file name"],
      [{ target: "wan22_ti2v", overwrite: "yes" }, "overwrite"],
      [{ target: "../x" }, "target"],
      [{}, "target"],
    ];
    for (const [input, words] of cases) {
      const res = await s.call("POST", "/workflow/install", input);
      expect(res.status, JSON.stringify(input)).toBe(400);
      expect(res.body.error, JSON.stringify(input)).toContain(words);
    }
  });
});

describe("GET /studio/workflows", () => {
  it("lists the saved workflows, marks the ones a target renders with, and says which copy each target uses", async () => {
    await writeFile(savedFile("someone else.json"), "{}");
    const res = await s.call("GET", "/workflows");
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(
      res.body.workflows.map((w: { name: string; target: boolean }) => [w.name, w.target]),
    );
    expect(byName[workflowName(wan())]).toBe(true);
    expect(byName["my ltx try.json"]).toBe(false);
    expect(byName["someone else.json"]).toBe(false);
    const ti2v = res.body.targets.find((t: { id: string }) => t.id === "wan22_ti2v");
    expect(ti2v).toMatchObject({ source: "comfy", installed: true });
    const i2v = res.body.targets.find((t: { id: string }) => t.id === "wan22_i2v");
    expect(i2v).toMatchObject({ source: "repo", installed: false });
    expect(res.body.targets.some((t: { id: string }) => t.id === "animatic")).toBe(false);
  });

  it("says the env variable's file is in force when it is set", async () => {
    const file = path.join(s.root, "..", "my-i2v.json");
    await writeFile(file, await readFile(shippedWorkflowPath(s.env.services.targets.get("wan22_i2v")!)!));
    const envName = String(s.env.services.targets.get("wan22_i2v")!.binding.env);
    s.env.services.env[envName] = file;
    try {
      const res = await s.call("GET", "/workflows");
      const i2v = res.body.targets.find((t: { id: string }) => t.id === "wan22_i2v");
      expect(i2v).toMatchObject({ source: "env", where: file });
      // Removing the engine's copy never touches the env variable's file.
      const del = await s.call("DELETE", "/workflow/install", { target: "wan22_i2v" });
      expect(del.status).toBe(200);
      expect(del.body).toMatchObject({ deleted: false, graph: { source: "env" } });
      expect((await stat(file)).isFile()).toBe(true);
    } finally {
      delete s.env.services.env[envName];
    }
  });
});

describe("DELETE /studio/workflow/install", () => {
  it("removes the engine's copy (renders fall back to the shipped one) and says when nothing was saved", async () => {
    const name = workflowName(wan());
    const res = await s.call("DELETE", "/workflow/install", { target: "wan22_ti2v" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, target: "wan22_ti2v", deleted: true, name });
    expect(res.body.graph).toMatchObject({ source: "repo", installed: false });
    await expect(stat(savedFile(name))).rejects.toThrow();

    const again = await s.call("DELETE", "/workflow/install", { target: "wan22_ti2v" });
    expect(again.body.deleted).toBe(false);

    const scratch = await s.call("DELETE", "/workflow/install", { target: "ltx2", name: "my ltx try.json" });
    expect(scratch.body).toMatchObject({ deleted: true, name: "my ltx try.json" });
  });

  it("refuses an unknown target and a bad name", async () => {
    expect((await s.call("DELETE", "/workflow/install", { target: "nope" })).status).toBe(400);
    const bad = await s.call("DELETE", "/workflow/install", { target: "ltx2", name: "..json" });
    expect(bad.status).toBe(400);
  });
});

describe("a backend that cannot do it", () => {
  it("answers 502 when the backend is down or refuses", async () => {
    await double.setRefusing(true);
    try {
      for (const [method, route, input] of [
        ["POST", "/workflow/install", { target: "wan22_ti2v" }],
        ["DELETE", "/workflow/install", { target: "wan22_ti2v" }],
        ["GET", "/workflows", {}],
      ] as const) {
        const res = await s.call(method, route, input);
        expect(res.status, route).toBe(502);
        expect(res.body.error).toContain("does not answer");
      }
    } finally {
      await double.setRefusing(false);
    }
  });
});
