// The ComfyUI test double itself, driven over loopback with undici and ws the way a client would.
import { execa } from "execa";
import { FormData, request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { findTool } from "../lib/media/tools.ts";
import {
  flux2KleinEditGraph,
  ltx2Graph,
  ltx2VoiceGraph,
  tinyImageGraph,
} from "./support/comfy-double/graphs.ts";
import { type ComfyDouble, startComfyDouble } from "./support/comfy-double/index.ts";

type Frame = { type: string; data: Record<string, unknown> };

const doubles: ComfyDouble[] = [];
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  for (const d of doubles.splice(0)) await d.close();
});

async function start(opts: Parameters<typeof startComfyDouble>[0] = {}): Promise<ComfyDouble> {
  const d = await startComfyDouble({ stepMs: 5, steps: 3, ...opts });
  doubles.push(d);
  return d;
}

async function call(d: ComfyDouble, method: "GET" | "POST" | "DELETE", path: string, body?: unknown) {
  const res = await request(`${d.url}${path}`, {
    method,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    headers: body === undefined ? {} : { "content-type": "application/json" },
  });
  const text = await res.body.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  // biome-ignore lint/suspicious/noExplicitAny: answers are probed freely in assertions
  return { status: res.statusCode, text, json: json as Record<string, any>, headers: res.headers };
}

function connect(d: ComfyDouble, clientId: string, onFrame?: (f: Frame) => void) {
  const ws = new WebSocket(`${d.url.replace("http:", "ws:")}/ws?clientId=${clientId}`);
  sockets.push(ws);
  const frames: Frame[] = [];
  const binary: Buffer[] = [];
  ws.on("message", (data, isBinary) => {
    if (isBinary) binary.push(data as Buffer);
    else {
      const f = JSON.parse(data.toString()) as Frame;
      onFrame?.(f);
      frames.push(f);
    }
  });
  const opened = new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
  const waitFor = async (pred: (f: Frame) => boolean, ms = 10_000): Promise<Frame> => {
    const until = Date.now() + ms;
    for (;;) {
      const hit = frames.find(pred);
      if (hit) return hit;
      if (Date.now() > until)
        throw new Error(`no matching frame; got ${frames.map((f) => f.type).join(",")}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  return { ws, frames, binary, opened, closed, waitFor };
}

const finished = (id: string) => (f: Frame) =>
  f.type === "executing" && f.data.node === null && f.data.prompt_id === id;

async function submit(d: ComfyDouble, body: Record<string, unknown>) {
  const r = await call(d, "POST", "/api/prompt", body);
  expect(r.status, r.text).toBe(200);
  return r.json.prompt_id as string;
}

async function ffprobe(file: string) {
  const tool = await findTool("ffprobe", process.env);
  if (tool.path === null) throw new Error(tool.error);
  const { stdout } = await execa(tool.path, [
    ...[
      "-v",
      "error",
      "-count_frames",
      "-show_entries",
      "stream=codec_type,width,height,nb_read_frames,duration",
    ],
    ...["-of", "json", file],
  ]);
  return JSON.parse(stdout).streams as Record<string, string | number>[];
}

describe("comfy double: a run", () => {
  it("streams the A.13 sequence to its client and ends with executing{node:null} after history exists", async () => {
    const d = await start();
    // at execution_success the history entry is not written yet; at executing{null} it is
    const historyAt: Record<string, boolean> = {};
    const c = connect(d, "client-a", (f) => {
      const id = f.data?.prompt_id as string | undefined;
      if (id && (f.type === "execution_success" || (f.type === "executing" && f.data.node === null))) {
        historyAt[f.type] = d.state().history.includes(id);
      }
    });
    const other = connect(d, "client-b");
    await Promise.all([c.opened, other.opened]);
    await c.waitFor((f) => f.type === "status" && f.data.sid === "client-a");
    const id = await submit(d, { prompt: ltx2VoiceGraph({ seconds: 1 }), client_id: "client-a" });
    await c.waitFor(finished(id));
    const types = c.frames.map((f) => f.type);
    const at = (t: string) => types.indexOf(t);
    expect(at("execution_start")).toBeGreaterThan(0);
    expect(at("execution_cached")).toBe(at("execution_start") + 1);
    const progress = c.frames.filter((f) => f.type === "progress");
    expect(progress.map((f) => f.data.value)).toEqual([1, 2, 3]);
    expect(progress[0].data).toMatchObject({ max: 3, prompt_id: id, node: "15" });
    expect(c.frames.some((f) => f.type === "progress_state")).toBe(true);
    const executed = c.frames.find((f) => f.type === "executed")!;
    expect(executed.data).toMatchObject({ node: "18", display_node: "18", prompt_id: id });
    const success = at("execution_success");
    expect(success).toBeGreaterThan(types.lastIndexOf("executed"));
    expect(types.slice(success + 1)).toEqual(["status", "executing"]);
    expect(c.frames.at(-1)).toEqual({ type: "executing", data: { node: null, prompt_id: id } });
    expect(historyAt).toEqual({ execution_success: false, executing: true });
    // another client sees only status broadcasts
    expect(new Set(other.frames.map((f) => f.type))).toEqual(new Set(["status"]));
    // history: wrapped by id, 5-array prompt, outputs, messages with timestamps, meta
    const h = await call(d, "GET", `/history/${id}`);
    const entry = h.json[id];
    expect(entry.prompt).toHaveLength(5);
    expect(entry.prompt.slice(0, 2)).toEqual([0, id]);
    expect(entry.prompt[3]).toEqual({ client_id: "client-a" });
    expect(entry.prompt[4]).toEqual(["18"]);
    expect(entry.status.status_str).toBe("success");
    expect(entry.status.completed).toBe(true);
    expect(entry.status.messages.map((m: [string]) => m[0])).toEqual([
      "execution_start",
      "execution_cached",
      "execution_success",
    ]);
    expect(typeof entry.status.messages[0][1].timestamp).toBe("number");
    expect(entry.outputs["18"].audio[0]).toEqual({
      filename: "voice_00001_.flac",
      subfolder: "audio",
      type: "output",
    });
    expect(entry.meta["18"]).toEqual({
      node_id: "18",
      display_node: "18",
      parent_node: null,
      real_node_id: "18",
    });
    // the audio lasts frames_number / frame_rate seconds (25 / 24)
    const v = await request(`${d.url}/view?filename=voice_00001_.flac&subfolder=audio&type=output`);
    expect(v.statusCode).toBe(200);
    const file = `${d.outputDir}/audio/voice_00001_.flac`;
    await v.body.arrayBuffer();
    const [audio] = await ffprobe(file);
    expect(Number(audio.duration)).toBeCloseTo(25 / 24, 1);
  });

  it("serves a real mp4 from /view whose size and frame count follow the graph", async () => {
    const d = await start();
    const c = connect(d, "v");
    await c.opened;
    const id = await submit(d, {
      prompt: ltx2Graph({ width: 256, height: 128, length: 17, fps: 24 }),
      client_id: "v",
    });
    await c.waitFor(finished(id));
    const h = await call(d, "GET", `/api/history/${id}`);
    const out = h.json[id].outputs["28"];
    expect(out.animated).toEqual([true]);
    const item = out.images[0];
    expect(item).toEqual({ filename: "ltx2_00001_.mp4", subfolder: "video", type: "output" });
    const res = await request(
      `${d.url}/api/view?filename=${item.filename}&subfolder=${item.subfolder}&type=${item.type}`,
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("video/mp4");
    const bytes = Buffer.from(await res.body.arrayBuffer());
    const { writeFile } = await import("node:fs/promises");
    const copy = `${d.baseDir}/download.mp4`;
    await writeFile(copy, bytes);
    const streams = await ffprobe(copy);
    const video = streams.find((s) => s.codec_type === "video")!;
    // EmptyLTXVLatentVideo is 128×64 (scale 0.5); the x2 latent upsampler doubles it
    expect([video.width, video.height, Number(video.nb_read_frames)]).toEqual([256, 128, 17]);
    const audio = streams.find((s) => s.codec_type === "audio")!;
    expect(Number(audio.duration)).toBeCloseTo(17 / 24, 1);
    // Range requests are honoured
    const part = await request(`${d.url}/view?filename=${item.filename}&subfolder=video`, {
      headers: { range: "bytes=0-99" },
    });
    expect(part.statusCode).toBe(206);
    expect((await part.body.arrayBuffer()).byteLength).toBe(100);
    // misses and escapes
    expect((await call(d, "GET", "/view?filename=nope.mp4")).status).toBe(404);
    expect((await call(d, "GET", "/view?filename=../x.mp4")).status).toBe(400);
    expect((await call(d, "GET", "/view?filename=x.mp4&subfolder=../../etc")).status).toBe(403);
  });

  it("H3 savers shape outputs like the project's node pack (targets 3.13) and a rerun is fully cached", async () => {
    const d = await start();
    const c = connect(d, "h3");
    await c.opened;
    const graph = ltx2Graph({ width: 128, height: 128, length: 9, saver: "h3", shotId: "sh020" });
    const first = await submit(d, { prompt: graph, client_id: "h3" });
    await c.waitFor(finished(first));
    const second = await submit(d, { prompt: graph, client_id: "h3" });
    await c.waitFor(finished(second));
    const h = await call(d, "GET", "/history");
    expect(Object.keys(h.json)).toEqual([first, second]);
    const out = h.json[second].outputs.h3_saver;
    expect(out.images[0]).toEqual({ filename: "sh020_t01.mp4", subfolder: "renders/sh020", type: "output" });
    expect(out.audio[0].filename).toBe("sh020_t01_h3.wav");
    expect(h.json[second].outputs).toEqual(h.json[first].outputs);
    const run2 = c.frames.slice(
      c.frames.findIndex((f) => f.type === "execution_start" && f.data.prompt_id === second),
    );
    const cached = run2.find((f) => f.type === "execution_cached")!;
    expect((cached.data.nodes as string[]).length).toBe(Object.keys(graph).length);
    expect(run2.filter((f) => f.type === "executing").map((f) => f.data.node)).toEqual([null]);
    expect(run2.some((f) => f.type === "executed")).toBe(true);
  });
});

describe("comfy double: uploads and validation", () => {
  it("stores uploads (subfolder, dedupe, name (1), overwrite) and a LoadImage can reuse them", async () => {
    const d = await start();
    const sharp = (await import("sharp")).default;
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: "#884422" } })
      .png()
      .toBuffer();
    const other = await sharp({ create: { width: 40, height: 30, channels: 3, background: "#224488" } })
      .png()
      .toBuffer();
    const up = async (bytes: Buffer, fields: Record<string, string> = {}) => {
      const form = new FormData();
      form.append("image", new Blob([new Uint8Array(bytes)], { type: "image/png" }), "ref.png");
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      const res = await request(`${d.url}/api/upload/image`, { method: "POST", body: form });
      return { status: res.statusCode, json: (await res.body.json()) as Record<string, string> };
    };
    expect((await up(png, { subfolder: "studio", type: "input" })).json).toEqual({
      name: "ref.png",
      subfolder: "studio",
      type: "input",
    });
    expect((await up(png, { subfolder: "studio" })).json.name).toBe("ref.png");
    expect((await up(other, { subfolder: "studio" })).json.name).toBe("ref (1).png");
    expect((await up(other, { subfolder: "studio", overwrite: "true" })).json.name).toBe("ref.png");
    expect(d.uploads.map((u) => [u.name, u.deduped])).toEqual([
      ["ref.png", false],
      ["ref.png", true],
      ["ref (1).png", false],
      ["ref.png", false],
    ]);
    const missing = await request(`${d.url}/upload/image`, { method: "POST", body: new FormData() });
    expect(missing.statusCode).toBe(400);
    await missing.body.text();

    const c = connect(d, "edit");
    await c.opened;
    const graph = flux2KleinEditGraph({ width: 96, height: 64, references: ["studio/ref.png"] });
    const id = await submit(d, { prompt: graph, client_id: "edit" });
    await c.waitFor(finished(id));
    const h = await call(d, "GET", `/history/${id}`);
    const item = h.json[id].outputs["13"].images[0];
    const meta = await sharp(`${d.outputDir}/${item.subfolder}/${item.filename}`).metadata();
    expect([meta.width, meta.height]).toEqual([96, 64]);

    const bad = flux2KleinEditGraph({ width: 96, height: 64, references: ["studio/absent.png"] });
    const r = await call(d, "POST", "/prompt", { prompt: bad });
    expect(r.status).toBe(400);
    expect(r.json.node_errors.r1_load.errors[0]).toMatchObject({
      type: "custom_validation_failed",
      details: "image - Invalid image file: studio/absent.png",
    });
  });

  it("answers 400 with node_errors when a loader names a model file that is not installed", async () => {
    const d = await start({
      models: { diffusion_models: ["other.safetensors"], vae: [], text_encoders: [] },
    });
    const models = await call(d, "GET", "/api/models/diffusion_models");
    expect(models.json).toEqual(["other.safetensors"]);
    expect((await call(d, "GET", "/models/nope")).status).toBe(404);
    expect((await call(d, "GET", "/models")).json).toContain("latent_upscale_models");
    const info = await call(d, "GET", "/object_info/VAELoader");
    expect(info.json.VAELoader.input.required.vae_name).toEqual([[], {}]);
    expect((await call(d, "GET", "/object_info/NoSuchNode")).json).toEqual({});

    const r = await call(d, "POST", "/api/prompt", { prompt: ltx2VoiceGraph() });
    expect(r.status).toBe(400);
    expect(r.json.error).toEqual({
      type: "prompt_outputs_failed_validation",
      message: "Prompt outputs failed validation",
      details: "",
      extra_info: {},
    });
    const unet = r.json.node_errors["1"];
    expect(unet.class_type).toBe("UNETLoader");
    expect(unet.dependent_outputs).toEqual(["18"]);
    expect(unet.errors[0]).toMatchObject({
      type: "value_not_in_list",
      message: "Value not in list",
      details:
        "unet_name: 'ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors' not in ['other.safetensors']",
      extra_info: {
        input_name: "unet_name",
        received_value: "ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors",
      },
    });
    expect(Object.keys(r.json.node_errors).sort()).toEqual(["1", "3", "7"]);
    // more than 20 options: input_config null and "(list of length N)"
    const g = ltx2VoiceGraph();
    (g["14"].inputs as Record<string, unknown>).sampler_name = "nope";
    d.setModels("diffusion_models", ["ltx-2.5-22b-distilled-transformer-comfy-int8-convrot.safetensors"]);
    d.setModels("vae", ["ltx-2.5-audio-vae-bf16.safetensors"]);
    d.setModels("text_encoders", ["gemma4-12b-with-proj-ltx-2.5-comfy-int8-convrot.safetensors"]);
    const r2 = await call(d, "POST", "/prompt", { prompt: g });
    expect(r2.json.node_errors["14"].errors[0].extra_info.input_config).toBeNull();
    expect(r2.json.node_errors["14"].errors[0].details).toMatch(
      /^sampler_name: 'nope' not in \(list of length \d+\)$/,
    );
    // an injected missing file behaves the same
    d.inject({ kind: "missing_model", folder: "vae", file: "ltx-2.5-audio-vae-bf16.safetensors" });
    const r3 = await call(d, "POST", "/prompt", { prompt: ltx2VoiceGraph() });
    expect(Object.keys(r3.json.node_errors)).toEqual(["7"]);
    // no_prompt and unparseable JSON
    expect((await call(d, "POST", "/prompt", { client_id: "x" })).json.error.type).toBe("no_prompt");
    expect((await call(d, "POST", "/prompt", "{not json")).status).toBe(500);
  });
});

describe("comfy double: cancelling", () => {
  it("interrupts the running prompt and deletes a pending one without a history entry", async () => {
    const d = await start({ stepMs: 40, steps: 50 });
    const c = connect(d, "int");
    await c.opened;
    const running = await submit(d, { prompt: ltx2VoiceGraph(), client_id: "int" });
    const pending = await submit(d, { prompt: tinyImageGraph(), client_id: "int" });
    await c.waitFor((f) => f.type === "progress" && f.data.prompt_id === running);
    const q = await call(d, "GET", "/queue");
    expect(q.json.queue_running.map((i: unknown[]) => i[1])).toEqual([running]);
    expect(q.json.queue_pending.map((i: unknown[]) => i[1])).toEqual([pending]);
    expect(q.json.queue_pending[0]).toHaveLength(5);
    const del = await call(d, "POST", "/queue", { delete: [pending] });
    expect([del.status, del.text]).toEqual([200, ""]);
    // a targeted interrupt for another id is a no-op
    await call(d, "POST", "/interrupt", { prompt_id: "someone-else" });
    await new Promise((r) => setTimeout(r, 100));
    expect(d.state().running).toBe(running);
    const intr = await call(d, "POST", "/interrupt", { prompt_id: running });
    expect([intr.status, intr.text]).toEqual([200, ""]);
    const stop = await c.waitFor((f) => f.type === "execution_interrupted");
    expect(stop.data).toMatchObject({
      prompt_id: running,
      node_id: "15",
      node_type: "SamplerCustomAdvanced",
    });
    expect(stop.data).not.toHaveProperty("exception_message");
    await c.waitFor(finished(running));
    const h = await call(d, "GET", `/history/${running}`);
    expect(h.json[running].status.status_str).toBe("error");
    expect(h.json[running].status.completed).toBe(false);
    expect(h.json[running].status.messages.at(-1)[0]).toBe("execution_interrupted");
    expect((await call(d, "GET", `/history/${pending}`)).json).toEqual({});
    expect(d.state().queueRemaining).toBe(0);
  });

  it("ends a run with execution_error (OOM) mid-run, keeping only the outputs finished before it", async () => {
    const d = await start();
    const c = connect(d, "err");
    await c.opened;
    d.inject({ kind: "oom", classType: "SamplerCustomAdvanced", afterSteps: 2 });
    const id = await submit(d, { prompt: ltx2VoiceGraph(), client_id: "err" });
    const err = await c.waitFor((f) => f.type === "execution_error");
    expect(err.data).toMatchObject({
      prompt_id: id,
      node_id: "15",
      exception_type: "torch.cuda.OutOfMemoryError",
    });
    for (const k of [
      "executed",
      "exception_message",
      "traceback",
      "current_inputs",
      "current_outputs",
      "timestamp",
    ]) {
      expect(err.data).toHaveProperty(k);
    }
    await c.waitFor(finished(id));
    const types = c.frames.map((f) => f.type);
    expect(types).not.toContain("execution_success");
    const h = (await call(d, "GET", `/history/${id}`)).json[id];
    expect([h.status.status_str, h.status.completed, h.outputs]).toEqual(["error", false, {}]);
  });
});

describe("comfy double: version profiles", () => {
  it("new profile: UUID-only prompt ids, 409 on a duplicate, jobs API only under /api", async () => {
    const d = await start({ profile: "new" });
    const id = "0b6f1c5e-3a52-4d9b-9d36-2f8a1e0c7b11";
    expect(
      (await call(d, "POST", "/prompt", { prompt: tinyImageGraph(), prompt_id: "not-a-uuid" })).json.error
        .type,
    ).toBe("invalid_prompt_id");
    const ok = await call(d, "POST", "/prompt", { prompt: tinyImageGraph(), prompt_id: id });
    expect(ok.status).toBe(200);
    const dup = await call(d, "POST", "/prompt", { prompt: tinyImageGraph(), prompt_id: id });
    expect([dup.status, dup.json]).toEqual([409, { error: "prompt_id already exists" }]);
    await d.idle();
    const jobs = await call(d, "GET", "/api/jobs?status=completed");
    expect(jobs.json.jobs.map((j: { id: string; status: string }) => [j.id, j.status])).toEqual([
      [id, "completed"],
    ]);
    expect(jobs.json.pagination).toMatchObject({ offset: 0, total: 1, has_more: false });
    const job = await call(d, "GET", `/api/jobs/${id}`);
    expect(job.json).toMatchObject({
      id,
      status: "completed",
      outputs_count: 1,
      preview_output: { mediaType: "images" },
    });
    expect((await call(d, "GET", "/api/jobs?status=bogus")).status).toBe(400);
    expect((await call(d, "GET", "/jobs")).status).toBe(404);
    expect((await call(d, "GET", "/api/jobs/9b6f1c5e-3a52-4d9b-9d36-2f8a1e0c7b11")).json).toEqual({
      error: "Job not found",
    });
    expect((await call(d, "POST", `/api/jobs/${id}/cancel`)).json).toEqual({ cancelled: false });
    expect((await call(d, "GET", "/system_stats")).json.system.comfyui_version).toBe("0.36.0");
  });

  it("old profile: no jobs routes, any prompt id, duplicates both run and the last write wins", async () => {
    const d = await start({ profile: "old" });
    expect((await call(d, "GET", "/api/jobs")).status).toBe(404);
    expect((await call(d, "GET", "/system_stats")).json.system.comfyui_version).toBe("0.3.64");
    const a = await call(d, "POST", "/prompt", { prompt: tinyImageGraph(64, 48), prompt_id: "not-a-uuid" });
    const b = await call(d, "POST", "/prompt", { prompt: tinyImageGraph(32, 32), prompt_id: "not-a-uuid" });
    expect([a.status, b.status, a.json.number, b.json.number]).toEqual([200, 200, 0, 1]);
    await d.idle();
    const h = await call(d, "GET", "/history");
    expect(Object.keys(h.json)).toEqual(["not-a-uuid"]);
    expect(h.json["not-a-uuid"].prompt[0]).toBe(1);
    // missing class → invalid_prompt on the old build
    const r = await call(d, "POST", "/prompt", { prompt: { "1": { class_type: "Nope", inputs: {} } } });
    expect(r.json.error).toMatchObject({ type: "invalid_prompt", details: "Node ID '#1'" });
  });
});

describe("comfy double: queue and routing", () => {
  it("orders by number with front (LIFO) and explicit floats, shows the raw heap in /queue", async () => {
    const d = await start({ stepMs: 20, steps: 100 });
    const c = connect(d, "q");
    await c.opened;
    const busy = await submit(d, { prompt: ltx2VoiceGraph(), client_id: "q" });
    await c.waitFor((f) => f.type === "progress");
    const a = await submit(d, { prompt: tinyImageGraph(10, 10) });
    const b = await submit(d, { prompt: tinyImageGraph(11, 11) });
    const f1 = await submit(d, { prompt: tinyImageGraph(12, 12), front: true });
    const f2 = await submit(d, { prompt: tinyImageGraph(13, 13), front: true });
    const x = await call(d, "POST", "/prompt", { prompt: tinyImageGraph(14, 14), number: 7 });
    expect(x.text).toContain('"number":7.0');
    const q = await call(d, "GET", "/queue");
    expect(q.json.queue_pending.map((i: unknown[]) => i[0])).toEqual([-4, -3, 1, 2, 7]);
    await call(d, "POST", "/interrupt");
    await d.idle();
    expect(d.state().history).toEqual([busy, f2, f1, a, b, x.json.prompt_id]);
  });

  it("partial validity runs only the valid output; a prompt without client_id emits only progress_state", async () => {
    const d = await start();
    const listener = connect(d, "listener");
    await listener.opened;
    const graph = {
      ...tinyImageGraph(),
      "3": { class_type: "EmptyImage", inputs: { width: 0, height: 8, batch_size: 1, color: 0 } },
      "4": { class_type: "SaveImage", inputs: { images: ["3", 0], filename_prefix: "bad" } },
    };
    const r = await call(d, "POST", "/prompt", { prompt: graph });
    expect(r.status).toBe(200);
    expect(r.json.node_errors).toEqual({
      "3": {
        errors: [
          {
            type: "value_smaller_than_min",
            message: "Value 0 smaller than min of 1",
            details: "width",
            extra_info: {
              input_name: "width",
              input_config: ["INT", { default: 512, min: 1, max: 16384, step: 1 }],
              received_value: 0,
            },
          },
        ],
        dependent_outputs: ["4"],
        class_type: "EmptyImage",
      },
    });
    await d.idle();
    const h = (await call(d, "GET", `/history/${r.json.prompt_id}`)).json[r.json.prompt_id];
    expect(h.prompt[4]).toEqual(["2"]);
    expect(Object.keys(h.outputs)).toEqual(["2"]);
    expect(new Set(listener.frames.map((f) => f.type))).toEqual(new Set(["status", "progress_state"]));
  });

  it("previews are binary type 4 after the feature_flags handshake, type 1 otherwise, plus type-3 text", async () => {
    const d = await start({ previews: true, progressText: true, steps: 2 });
    const a = connect(d, "meta");
    const b = connect(d, "plain");
    await Promise.all([a.opened, b.opened]);
    a.ws.send(JSON.stringify({ type: "feature_flags", data: { supports_preview_metadata: true } }));
    const flags = await a.waitFor((f) => f.type === "feature_flags");
    expect(flags.data).toMatchObject({ supports_preview_metadata: true });
    for (const client of ["meta", "plain"]) {
      const id = await submit(d, {
        prompt: ltx2VoiceGraph({ seconds: 1, prompt: client }),
        client_id: client,
      });
      await (client === "meta" ? a : b).waitFor(finished(id));
    }
    const kinds = (frames: Buffer[]) => frames.map((f) => f.readUInt32BE(0));
    expect(kinds(a.binary)).toEqual([4, 3, 4, 3]);
    expect(kinds(b.binary)).toEqual([1, 3, 1, 3]);
    const meta = a.binary[0];
    const len = meta.readUInt32BE(4);
    expect(JSON.parse(meta.subarray(8, 8 + len).toString())).toMatchObject({
      node_id: "15",
      image_type: "image/jpeg",
    });
    expect(meta.subarray(8 + len, 10 + len)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(b.binary[0].readUInt32BE(4)).toBe(1);
  });

  it.each([
    ["old", false],
    ["new", true],
  ] as const)(
    "%s profile: after the replaced socket closes, the replacement still gets events: %s",
    async (profile, delivered) => {
      const d = await start({ profile });
      const first = connect(d, "same");
      await first.opened;
      const second = connect(d, "same");
      await second.opened;
      first.ws.close();
      await first.closed;
      await new Promise((r) => setTimeout(r, 30));
      await call(d, "POST", "/prompt", { prompt: tinyImageGraph(), client_id: "same" });
      await d.idle();
      await new Promise((r) => setTimeout(r, 30));
      expect(second.frames.some((f) => f.type === "execution_start")).toBe(delivered);
    },
  );
});

describe("comfy double: failures", () => {
  it("restart forgets queue and history, resets the counter and keeps files", async () => {
    const d = await start({ stepMs: 30, steps: 40 });
    const c = connect(d, "rs");
    await c.opened;
    const done = await submit(d, { prompt: tinyImageGraph(), client_id: "rs" });
    await c.waitFor(finished(done));
    const inflight = await submit(d, { prompt: ltx2VoiceGraph(), client_id: "rs" });
    await c.waitFor((f) => f.type === "progress" && f.data.prompt_id === inflight);
    await d.restart({ hard: true });
    expect(await c.closed).toBe(1006);
    expect((await call(d, "GET", `/history/${done}`)).json).toEqual({});
    expect((await call(d, "GET", "/history")).json).toEqual({});
    expect((await call(d, "GET", "/queue")).json).toEqual({ queue_running: [], queue_pending: [] });
    const again = await call(d, "POST", "/prompt", { prompt: tinyImageGraph() });
    expect(again.json.number).toBe(0);
    await d.idle();
    const h = await call(d, "GET", `/history/${again.json.prompt_id}`);
    // the earlier tiny_00001_.png survived on disk, so the counter continues
    expect(h.json[again.json.prompt_id].outputs["2"].images[0].filename).toBe("tiny_00002_.png");
    expect((await call(d, "GET", `/history/${inflight}`)).json).toEqual({});
  });

  it("a dropped socket loses events; reconnecting with the same clientId resumes delivery", async () => {
    const d = await start({ stepMs: 20, steps: 25 });
    const c = connect(d, "drop");
    await c.opened;
    d.inject({ kind: "drop_ws", on: "progress" });
    const id = await submit(d, { prompt: ltx2VoiceGraph(), client_id: "drop" });
    expect(await c.closed).toBe(1006);
    // HTTP still answers while the run goes on
    expect((await call(d, "GET", "/prompt")).json).toEqual({ exec_info: { queue_remaining: 1 } });
    const again = connect(d, "drop");
    await again.opened;
    const hello = await again.waitFor((f) => f.type === "status");
    expect(hello.data.sid).toBe("drop");
    // the owner of the running prompt is told the current node, without prompt_id
    expect(again.frames[1]).toEqual({ type: "executing", data: { node: "15" } });
    await again.waitFor(finished(id));
    expect(again.frames.some((f) => f.type === "execution_start")).toBe(false);
    expect(again.frames.some((f) => f.type === "progress")).toBe(true);
    expect((await call(d, "GET", `/history/${id}`)).json[id].status.status_str).toBe("success");
  });

  it("refuses connections while asked to and serves again afterwards on the same port", async () => {
    const d = await start();
    await d.setRefusing(true);
    await expect(request(`${d.url}/system_stats`)).rejects.toMatchObject({ code: "ECONNREFUSED" });
    await d.setRefusing(false);
    expect((await call(d, "GET", "/system_stats")).status).toBe(200);
    // origin guard: loopback Host + a foreign Origin → 403; no Origin passes
    const res = await request(`${d.url}/system_stats`, { headers: { origin: "http://evil.example" } });
    expect(res.statusCode).toBe(403);
    await res.body.text();
  });
});
