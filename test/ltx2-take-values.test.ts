// What a take hands the LTX patches at job start (takeGraph): `lora: none` turns ltx2's sheet off, a shot's own
// steps outrank the dev profile's, `dur: model` links the duration head when resolution found its file (the graph
// then says the length is predicted) and otherwise renders the estimate naming why; the staged sheet reaches the
// graph.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { EngineJob } from "../lib/engines/types.ts";
import { takeGraph } from "../lib/render/comfy-graph.ts";
import type { Sidecar } from "../lib/render/sidecar.ts";
import { type ApiGraph, nodesOf } from "../lib/targets/graph.ts";
import { ltxTakeValues } from "../lib/targets/patches/ltx2-values.ts";
import { shippedRegistry } from "../lib/targets/registry.ts";

const spec = shippedRegistry().get("ltx2")!;
const workflow = JSON.parse(
  await readFile(
    path.join(import.meta.dirname, "..", "lib", "targets", "video", "ltx2", "workflow.json"),
    "utf8",
  ),
) as ApiGraph;
const HEAD = "ltx-2.5-duration-head-bf16.safetensors";
const IC = "ltx-2.5-22b-ic-lora-ingredients-0.9.safetensors";
const PREDICT = { min_seconds: 2, max_seconds: 9 };

function take(
  entry: Record<string, unknown>,
  resolved: Record<string, unknown>,
  inputs: Record<string, string> = {},
) {
  const sidecar = {
    model: "ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors",
    steps: 8,
    resolved: {
      model: { want: "ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors", how: "exact" },
      ...resolved,
    },
  } as unknown as Sidecar;
  const job = {
    kind: "video",
    target: "ltx2",
    ep: "/show/ep01",
    pass: "proxy",
    subject: "sh010",
    take: 1,
    stem: "sh010_t01",
    width: 448,
    height: 256,
    fps: 24,
    frames: 49,
    seed: 1n,
    prompt: "The keeper climbs.",
    negative: null,
    entry,
    inputs,
    workDir: "/tmp",
  } as EngineJob;
  return takeGraph(spec, sidecar, job, {}, workflow);
}

describe("ltx2 take values", () => {
  it("reads `lora: none`, the shot's own steps and `dur: model` from the entry", () => {
    const preset = spec.presets.proxy!;
    // `lora: none` wrote an empty list; the proxy preset names a duration head that did not resolve: missing.
    expect(ltxTakeValues(spec, { entry: { loras: [] }, steps: 8, preset, files: {} })).toEqual({
      reference_sheet: false,
      duration_head: null,
    });
    expect(
      ltxTakeValues(spec, {
        entry: { duration_predict: PREDICT },
        steps: 12,
        preset,
        files: { duration_head: HEAD },
      }),
    ).toEqual({ steps_set: true, duration_predict: PREDICT, duration_head: HEAD });
    // No LoRA line at all leaves the sheet on.
    expect(ltxTakeValues(spec, { entry: {}, steps: 8, preset, files: {} })).not.toHaveProperty(
      "reference_sheet",
    );
  });

  it("links the duration head when it resolved, and says the length is predicted", async () => {
    const r = await take(
      { duration_predict: PREDICT },
      { duration_head: { want: HEAD, using: HEAD, how: "exact" } },
    );
    expect(r.length_source).toBe("predicted");
    expect(r.graph.h3_duration.inputs).toMatchObject({ min_seconds: 2, max_seconds: 9, frame_rate: 24 });
    expect(r.graph[nodesOf(r.graph, "EmptyLTXVLatentVideo")[0]].inputs.length).toEqual(["h3_duration", 0]);
  });

  it("renders the estimate when the head's file is missing, naming why", async () => {
    const r = await take({ duration_predict: PREDICT }, { duration_head: { want: HEAD, how: "missing" } });
    expect(r.length_source).toBeUndefined();
    expect(r.notes.join("\n")).toMatch(
      /dur: model renders the estimate \(49 frames\): the duration head file is missing/,
    );
  });

  it("puts the staged sheet in with the resolved IC-LoRA, and leaves it out under `lora: none`", async () => {
    const lora = { reference_lora: { want: IC, using: IC, how: "exact" } };
    const on = await take({}, lora, { sheet: "/show/ep01/renders_proxy/sh010/sh010_t01_refsheet.png" });
    expect(nodesOf(on.graph, "LTXAddVideoICLoRAGuide")).toHaveLength(1);
    expect(on.graph.h3_sheet_load1.inputs.image).toBe(
      "/show/ep01/renders_proxy/sh010/sh010_t01_refsheet.png",
    );
    const off = await take({ loras: [] }, lora, {
      sheet: "/show/ep01/renders_proxy/sh010/sh010_t01_refsheet.png",
    });
    expect(nodesOf(off.graph, "LTXAddVideoICLoRAGuide")).toEqual([]);
    expect(off.notes.join("\n")).toMatch(/reference sheet off/);
  });
});
