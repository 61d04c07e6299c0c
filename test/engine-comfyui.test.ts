// The ComfyUI engine: frame parsing, refusal and failure messages, output extraction, graph checks, and the
// engine end to end against the ComfyUI test double (both API generations).
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { executionFailure, loaderFolder, nodeFaults, promptRefusal } from "../lib/engines/comfyui/errors.ts";
import { downError, normalizeBase, query } from "../lib/engines/comfyui/http.ts";
import { type ComfyEngine, createComfyEngine, graphFor, RESTARTED } from "../lib/engines/comfyui/index.ts";
import { parseBinary, parseText, readExecutionError } from "../lib/engines/comfyui/messages.ts";
import {
  historyState,
  localName,
  mediaKind,
  outputItems,
  pick,
  queuePlace,
  reportedFrames,
} from "../lib/engines/comfyui/outputs.ts";
import { comboOptions, createComfyLookups, inputChoices } from "../lib/engines/comfyui/readiness.ts";
import { contentFileName, inputName } from "../lib/engines/comfyui/uploads.ts";
import { wsUrl } from "../lib/engines/comfyui/ws.ts";
import type { ApiGraph, EngineJob, EngineProgress, RunHooks } from "../lib/engines/types.ts";
import { countFrames, probe } from "../lib/media/ffmpeg.ts";
import { flux2KleinGraph, ltx2Graph, tinyImageGraph } from "./support/comfy-double/graphs.ts";
import { type ComfyDouble, type Profile, startComfyDouble } from "./support/comfy-double/index.ts";
import { hostMedia } from "./support/ctx.ts";

let root: string;
// The look-ups as a process's engines hold them.
const lookups = createComfyLookups();

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "studio-comfy-"));
});

afterAll(async () => {
  await lookups.close();
  await rm(root, { recursive: true, force: true });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function hooks(progress: EngineProgress[] = [], signal = new AbortController().signal): RunHooks {
  return { signal, onProgress: (p) => progress.push(p) };
}

function baseJob(over: Partial<EngineJob> = {}): EngineJob {
  return {
    kind: "image",
    target: "test",
    ep: root,
    pass: "proxy",
    subject: "sh010",
    take: 1,
    stem: "sh010_t01",
    width: 64,
    height: 64,
    fps: 24,
    frames: 0,
    seed: 1n,
    prompt: "a red square",
    negative: null,
    entry: {} as EngineJob["entry"],
    inputs: {},
    workDir: path.join(root, "work"),
    ...over,
  };
}

describe("websocket frames", () => {
  it("parses the text messages", () => {
    expect(
      parseText('{"type":"status","data":{"status":{"exec_info":{"queue_remaining":2}},"sid":"abc"}}'),
    ).toEqual({
      type: "status",
      queueRemaining: 2,
      sid: "abc",
    });
    expect(parseText('{"type":"executing","data":{"node":null,"prompt_id":"p1"}}')).toEqual({
      type: "executing",
      promptId: "p1",
      node: null,
    });
    // On connect, the owner of the running prompt gets an `executing` with only the node.
    expect(parseText('{"type":"executing","data":{"node":"3"}}')).toEqual({
      type: "executing",
      promptId: null,
      node: "3",
    });
    expect(parseText('{"type":"progress","data":{"value":3,"max":8,"prompt_id":"p1","node":"5"}}')).toEqual({
      type: "progress",
      promptId: "p1",
      node: "5",
      value: 3,
      max: 8,
    });
    expect(
      parseText(
        JSON.stringify({
          type: "execution_error",
          data: {
            prompt_id: "p1",
            node_id: "3",
            node_type: "KSampler",
            executed: [],
            exception_message: "boom\n",
            exception_type: "RuntimeError",
            traceback: ["a", "b"],
            current_inputs: {},
            current_outputs: [],
            timestamp: 1,
          },
        }),
      ),
    ).toEqual({
      type: "execution_error",
      promptId: "p1",
      error: {
        nodeId: "3",
        nodeType: "KSampler",
        exceptionType: "RuntimeError",
        exceptionMessage: "boom",
        traceback: ["a", "b"],
      },
    });
    expect(
      parseText('{"type":"execution_interrupted","data":{"prompt_id":"p1","node_id":"2","node_type":"X"}}'),
    ).toEqual({ type: "execution_interrupted", promptId: "p1", node: "2", nodeType: "X" });
    expect(parseText('{"type":"execution_cached","data":{"prompt_id":"p1","nodes":["1","2"]}}')).toEqual({
      type: "execution_cached",
      promptId: "p1",
      nodes: ["1", "2"],
    });
    expect(parseText('{"type":"mypack.thing","data":{"x":1}}')).toEqual({
      type: "other",
      name: "mypack.thing",
      data: { x: 1 },
    });
    expect(parseText("not json")).toBeNull();
    expect(parseText('{"data":{}}')).toBeNull();
    expect(parseText('{"type":"progress","data":{"value":"x"}}')).toBeNull();
  });

  it("parses binary previews and text frames", () => {
    const be = (n: number) => {
      const b = Buffer.alloc(4);
      b.writeUInt32BE(n);
      return b;
    };
    const jpeg = Buffer.concat([be(1), be(1), Buffer.from([0xff, 0xd8, 0xff])]);
    expect(parseBinary(jpeg)).toMatchObject({ type: "preview", format: "image/jpeg", bytes: 3 });
    const meta = Buffer.from(JSON.stringify({ node_id: "7", prompt_id: "p1", image_type: "image/png" }));
    const withMeta = Buffer.concat([be(4), be(meta.length), meta, Buffer.from([1, 2])]);
    expect(parseBinary(withMeta)).toEqual({
      type: "preview",
      format: "image/png",
      promptId: "p1",
      node: "7",
      bytes: 2,
    });
    const text = Buffer.concat([be(3), be(1), Buffer.from("9"), Buffer.from("step 3/8")]);
    expect(parseBinary(text)).toEqual({ type: "text", node: "9", text: "step 3/8" });
    expect(parseBinary(Buffer.from([0, 0]))).toBeNull();
    expect(parseBinary(be(2))).toBeNull();
    expect(parseBinary(Buffer.concat([be(4), be(99), Buffer.from("{}")]))).toBeNull();
  });
});

describe("refusals and failures", () => {
  it("names the node class, the input and the reason of a node error", () => {
    // The observed example: width 0 on EmptyImage feeding SaveImage "2", `details` empty at the top.
    const body = {
      error: {
        type: "prompt_outputs_failed_validation",
        message: "Prompt outputs failed validation",
        details: "",
      },
      node_errors: {
        "1": {
          errors: [
            {
              type: "value_smaller_than_min",
              message: "Value 0 smaller than min of 1",
              details: "width",
              extra_info: { input_name: "width", input_config: ["INT", { min: 1 }], received_value: 0 },
            },
          ],
          dependent_outputs: ["2"],
          class_type: "EmptyImage",
        },
      },
    };
    expect(promptRefusal(body, undefined, 400)).toBe(
      "ComfyUI refused the prompt: EmptyImage #1 input width: Value 0 smaller than min of 1",
    );
    expect(promptRefusal(body, undefined, 200)).toMatch(
      /^ComfyUI would skip outputs of the prompt: EmptyImage #1/,
    );
  });

  it("reads a combo miss on a loader's file widget as a missing model file", () => {
    const miss = (cls: string, input: string, value: string, config: unknown) => ({
      node_errors: {
        "4": {
          class_type: cls,
          dependent_outputs: ["9"],
          errors: [
            {
              type: "value_not_in_list",
              message: "Value not in list",
              details: `${input}: '${value}' not in (list of length 31)`,
              extra_info: { input_name: input, input_config: config, received_value: value },
            },
          ],
        },
      },
    });
    expect(
      promptRefusal(miss("CheckpointLoaderSimple", "ckpt_name", "sd15.safetensors", null), undefined, 400),
    ).toBe(
      "ComfyUI refused the prompt: missing model file sd15.safetensors for CheckpointLoaderSimple.ckpt_name (folder checkpoints)",
    );
    const faults = nodeFaults(
      miss("LoraLoaderModelOnly", "lora_name", "x.safetensors", [["a"], {}]).node_errors,
    );
    expect(faults[0].missingModel).toEqual({ file: "x.safetensors", folder: "loras" });
    // An unknown loader still reads as a model by the file name; a plain combo does not.
    expect(nodeFaults(miss("MyPackLoader", "weights", "w.gguf", null).node_errors)[0].reason).toBe(
      "missing model file w.gguf for MyPackLoader.weights (folder unknown)",
    );
    expect(nodeFaults(miss("KSampler", "sampler_name", "nope", null).node_errors)[0].reason).toBe(
      "'nope' is not one of its choices",
    );
    expect(loaderFolder("UNETLoader", "unet_name")).toBe("diffusion_models");
    expect(loaderFolder("DualCLIPLoader", "clip_name2")).toBe("text_encoders");
    expect(loaderFolder("Whatever", "vae_name")).toBe("vae");
  });

  it("explains refusals without node errors", () => {
    expect(
      promptRefusal(
        {
          error: {
            type: "missing_node_type",
            message: "Node 'FooNode' not found.",
            details: "",
            extra_info: { node_id: "5", class_type: "FooNode", node_title: "Foo" },
          },
          node_errors: {},
        },
        undefined,
        400,
      ),
    ).toBe("ComfyUI refused the prompt: Node 'FooNode' not found.: FooNode #5 (missing_node_type)");
    expect(
      promptRefusal(
        {
          error: {
            type: "invalid_prompt",
            message: "Cannot execute because node Foo does not exist.",
            details: "Node ID '#5'",
          },
          node_errors: {},
        },
        undefined,
        400,
      ),
    ).toBe(
      "ComfyUI refused the prompt: Cannot execute because node Foo does not exist.: Node ID '#5' (invalid_prompt)",
    );
    // A node error without a class in the answer takes it from the graph.
    expect(
      promptRefusal(
        {
          node_errors: {
            "3": {
              errors: [
                {
                  type: "required_input_missing",
                  message: "Required input is missing",
                  details: "seed",
                  extra_info: { input_name: "seed" },
                },
              ],
            },
          },
        },
        { "3": { class_type: "KSampler" } },
        400,
      ),
    ).toBe("ComfyUI refused the prompt: KSampler #3 input seed: Required input is missing");
  });

  it("names the failing node's class, id and exception", () => {
    expect(
      executionFailure(
        readExecutionError({
          node_id: "3",
          node_type: "KSampler",
          exception_type: "torch.cuda.OutOfMemoryError",
          exception_message: "Allocation on device\nmore",
          traceback: [],
        }),
      ),
    ).toBe("KSampler #3 failed: torch.cuda.OutOfMemoryError: Allocation on device");
    expect(
      executionFailure(
        readExecutionError({
          node_id: "2",
          node_type: "VAEDecode",
          exception_type: "Exception",
          exception_message: "bad",
        }),
      ),
    ).toBe("VAEDecode #2 failed: bad");
  });
});

describe("outputs", () => {
  const outputs = {
    "9": { images: [{ filename: "clip_00001_.mp4", subfolder: "video", type: "output" }], animated: [true] },
    "10": { images: [{ filename: "ComfyUI_temp_1.png", subfolder: "", type: "temp" }] },
    "11": {
      gifs: [
        {
          filename: "vhs_00001.mp4",
          subfolder: "",
          type: "output",
          format: "video/h264-mp4",
          frame_rate: 24,
          fullpath: "/srv/out/vhs_00001.mp4",
        },
      ],
    },
    "12": { audio: [{ filename: "voice_00001_.flac", subfolder: "audio", type: "output" }] },
    "13": { text: ["hello"] },
    "14": { videos: [{ filename: "odd.webm", subfolder: "", type: "output" }], frames: [49] },
    "2": { images: [{ filename: "still_00001_.png", subfolder: "", type: "output" }] },
  };

  it("finds every file item in every shape", () => {
    const items = outputItems(outputs);
    expect(items.map((i) => `${i.node}:${i.key}:${i.filename}:${i.kind}`)).toEqual([
      "2:images:still_00001_.png:image",
      "9:images:clip_00001_.mp4:video",
      "10:images:ComfyUI_temp_1.png:image",
      "11:gifs:vhs_00001.mp4:video",
      "12:audio:voice_00001_.flac:audio",
      "14:videos:odd.webm:video",
    ]);
    expect(items[1].animated).toBe(true);
    expect(items[3]).toMatchObject({ format: "video/h264-mp4", frameRate: 24 });
    expect(outputItems(null)).toEqual([]);
    expect(outputItems({ "1": { images: [{ filename: "a.png" }, { filename: "a.png" }] } })).toHaveLength(1);
  });

  it("picks saved files over previews, the later node first, and reads reported frames", () => {
    const items = outputItems(outputs);
    expect(pick(items, "video")?.filename).toBe("odd.webm");
    expect(pick(items, "image")?.filename).toBe("still_00001_.png");
    expect(pick(items, "audio")?.filename).toBe("voice_00001_.flac");
    expect(reportedFrames(outputs, items, pick(items, "video"))).toBe(49);
    expect(reportedFrames(outputs, items, items[1])).toBeUndefined();
    expect(mediaKind("x.MP4")).toBe("video");
    expect(mediaKind("x", "audio/wav")).toBe("audio");
    expect(mediaKind("x.safetensors")).toBe("other");
    expect(localName({ filename: "../../etc/passwd" })).toBe("passwd");
    expect(localName({ filename: ".hidden.png" })).toBe("hidden.png");
  });

  it("reads the history entry's state", () => {
    const id = "p1";
    const entry = (status: unknown, out: unknown = {}) => ({
      [id]: { prompt: [], outputs: out, status, meta: {} },
    });
    expect(historyState({}, id)).toEqual({ state: "absent" });
    expect(
      historyState(entry({ status_str: "success", completed: true, messages: [] }, { a: 1 }), id),
    ).toEqual({
      state: "success",
      outputs: { a: 1 },
    });
    expect(
      historyState(
        entry({
          status_str: "error",
          completed: false,
          messages: [
            ["execution_start", { prompt_id: id }],
            ["execution_error", { prompt_id: id, node_id: "2", node_type: "X", exception_message: "m" }],
          ],
        }),
        id,
      ),
    ).toMatchObject({ state: "error", error: { nodeId: "2", nodeType: "X", exceptionMessage: "m" } });
    expect(
      historyState(
        entry({
          status_str: "error",
          completed: false,
          messages: [["execution_interrupted", { prompt_id: id }]],
        }),
        id,
      ),
    ).toEqual({ state: "interrupted" });
    expect(historyState(entry(null), id)).toEqual({ state: "unknown", outputs: {} });
  });

  it("finds the prompt in the queue, sorting the pending heap itself", () => {
    const q = {
      queue_running: [[11, "r", {}, {}, []]],
      queue_pending: [
        [14, "d", {}, {}, []],
        [-13, "c", {}, {}, []],
        [12, "b", {}, {}, []],
      ],
    };
    expect(queuePlace(q, "r")).toEqual({ state: "running" });
    expect(queuePlace(q, "c")).toEqual({ state: "pending", ahead: 1 });
    expect(queuePlace(q, "d")).toEqual({ state: "pending", ahead: 3 });
    expect(queuePlace(q, "zz")).toEqual({ state: "absent" });
    expect(queuePlace(null, "r")).toEqual({ state: "absent" });
  });
});

describe("graph, names and addresses", () => {
  it("replaces input paths by their uploaded names and refuses the UI format", async () => {
    const pic = path.join(root, "first.png");
    await writeFile(pic, "not really a png");
    const job = baseJob({
      inputs: { first: pic },
      graph: {
        "1": { class_type: "LoadImage", inputs: { image: pic } },
        "2": { class_type: "SaveImage", inputs: { images: ["1", 0], filename_prefix: "x" } },
      },
    });
    const name = await inputName(pic);
    expect(name).toBe(`studio/${createHash("sha1").update("not really a png").digest("hex")}.png`);
    expect(await contentFileName(pic)).toBe(name.slice("studio/".length));
    const g = graphFor(job, { inputs: { first: name }, notes: [] });
    expect(g["1"].inputs.image).toBe(name);
    expect(g["2"].inputs.images).toEqual(["1", 0]);
    expect(job.graph?.["1"].inputs.image).toBe(pic);
    expect(() => graphFor(baseJob(), { inputs: {}, notes: [] })).toThrow(/carries no ComfyUI graph/);
    const ui = { nodes: [], links: [], version: 0.4 } as unknown as EngineJob["graph"];
    expect(() => graphFor(baseJob({ graph: ui }), { inputs: {}, notes: [] })).toThrow(/UI format/);
    const bad = { "1": { inputs: {} } } as unknown as EngineJob["graph"];
    expect(() => graphFor(baseJob({ graph: bad }), { inputs: {}, notes: [] })).toThrow(
      /node #1 .* no class_type/,
    );
  });

  it("reads both combo encodings", () => {
    expect(comboOptions([["a.safetensors", "b.safetensors"], { tooltip: "t" }])).toEqual([
      "a.safetensors",
      "b.safetensors",
    ]);
    expect(comboOptions(["COMBO", { options: ["auto", "mp4"], default: "auto" }])).toEqual(["auto", "mp4"]);
    expect(comboOptions([[], {}])).toEqual([]);
    expect(comboOptions(["INT", { min: 1 }])).toBeNull();
    expect(inputChoices({ input: { required: { ckpt_name: [["m.safetensors"]] } } }, "ckpt_name")).toEqual([
      "m.safetensors",
    ]);
    expect(inputChoices(null, "x")).toBeNull();
  });

  it("normalizes addresses", () => {
    expect(normalizeBase("http://127.0.0.1:8188/")).toBe("http://127.0.0.1:8188");
    expect(normalizeBase("https://h.example/comfy/?x=1")).toBe("https://h.example/comfy");
    expect(() => normalizeBase("ftp://x")).toThrow(/http/);
    expect(() => normalizeBase("nope")).toThrow(/not a URL/);
    expect(wsUrl("http://127.0.0.1:8188", "abc")).toBe("ws://127.0.0.1:8188/api/ws?clientId=abc");
    expect(wsUrl("https://h/comfy", "abc")).toBe("wss://h/comfy/api/ws?clientId=abc");
    expect(query({ filename: "a b.png", subfolder: "", type: undefined })).toBe(
      "?filename=a+b.png&subfolder=",
    );
    expect(downError("http://x", Object.assign(new Error("x"), { code: "ECONNREFUSED" }))?.message).toBe(
      "ComfyUI at http://x is down (connection refused)",
    );
    expect(
      downError("http://x", new AggregateError([Object.assign(new Error("x"), { code: "ECONNREFUSED" })]))
        ?.code,
    ).toBe("ECONNREFUSED");
    expect(downError("http://x", new Error("other"))).toBeNull();
  });
});

describe("a server that is down", () => {
  it("fails at once with the address named, never hangs", async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const engine = createComfyEngine({ backend: "local", url });
    try {
      const job = baseJob({
        graph: {
          "1": { class_type: "EmptyImage", inputs: {} },
          "2": { class_type: "SaveImage", inputs: {} },
        },
      });
      const started = Date.now();
      await expect(engine.submit(job, { inputs: {}, notes: [] }, hooks())).rejects.toThrow(
        `ComfyUI at ${url} is down (connection refused)`,
      );
      const pic = path.join(root, "down.png");
      await writeFile(pic, "x");
      await expect(engine.prepare(baseJob({ inputs: { first: pic } }), hooks())).rejects.toThrow(
        /is down \(connection refused\)/,
      );
      await expect(lookups.objectInfo(url, "KSampler")).rejects.toThrow(/is down/);
      await expect(lookups.models(url, "checkpoints")).rejects.toThrow(/is down/);
      expect(Date.now() - started).toBeLessThan(3000);
      await expect(
        engine.prepare(baseJob({ inputs: { first: path.join(root, "none.png") } }), hooks()),
      ).rejects.toThrow(/input first .* is missing/);
    } finally {
      await engine.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Against the ComfyUI test double, in both API generations.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const FAST = {
  pollMs: 400,
  fastPollMs: 100,
  lostGraceMs: 300,
  downLimitMs: 4000,
  retryMs: [50, 400] as const,
  idleMs: 200,
  pingMs: 0,
};
let work = 0;

const asGraph = (g: unknown) => g as ApiGraph;

describe.each(["old", "new"] as Profile[])("against the double (%s profile)", (profile) => {
  let double: ComfyDouble;
  let engine: ComfyEngine;
  const engines: ComfyEngine[] = [];
  let pic: string;

  const newEngine = () => {
    const e = createComfyEngine({ backend: "local", url: double.url, timing: FAST });
    engines.push(e);
    return e;
  };

  beforeAll(async () => {
    pic = path.join(root, `ref-${profile}.png`);
    await sharp({ create: { width: 40, height: 30, channels: 3, background: "#33aa55" } })
      .png()
      .toFile(pic);
  });

  beforeEach(async () => {
    double = await startComfyDouble({ profile, stepMs: 15, steps: 3 });
    lookups.clear();
    engine = newEngine();
  });

  afterEach(async () => {
    for (const e of engines.splice(0)) await e.close();
    await double.close();
  });

  function job(kind: EngineJob["kind"], graph: unknown, over: Partial<EngineJob> = {}): EngineJob {
    work++;
    return baseJob({
      kind,
      graph: asGraph(graph),
      stem: `sh010_t${String(work).padStart(2, "0")}`,
      take: work,
      workDir: path.join(root, `work-${profile}-${work}`),
      ...over,
    });
  }

  async function run(e: ComfyEngine, j: EngineJob, progress: EngineProgress[] = []) {
    const h = hooks(progress);
    const prepared = await e.prepare(j, h);
    const submitted = await e.submit(j, prepared, h);
    const outputs = await e.collect(j, submitted, h);
    return { prepared, submitted, outputs };
  }

  it("runs an image graph end to end; the upload is reused on the next runs", async () => {
    const graph = flux2KleinGraph({ width: 64, height: 48, references: [pic] });
    const progress: EngineProgress[] = [];
    const j = job("image", graph, { inputs: { ref1: pic } });
    const { prepared, submitted, outputs } = await run(engine, j, progress);

    expect(prepared.inputs.ref1).toBe(await inputName(pic));
    expect(prepared.inputs.ref1).toMatch(/^studio\/[0-9a-f]{40}\.png$/);
    expect(double.uploads).toHaveLength(1);
    expect(double.uploads[0]).toMatchObject({ subfolder: "studio", type: "input" });
    expect(submitted.backendPromptId).toMatch(UUID);
    const sent = double.prompts.at(-1)!;
    expect(sent.status).toBe(200);
    expect(sent.client_id).toBe(engine.clientId);
    expect(sent.prompt_id).toBe(submitted.backendPromptId);
    const sentGraph = (sent.body as { prompt: ApiGraph }).prompt;
    expect(sentGraph.r1_load.inputs.image).toBe(prepared.inputs.ref1);

    expect(outputs.image).toBe(path.join(j.workDir, path.basename(outputs.image!)));
    const meta = await sharp(outputs.image!).metadata();
    expect([meta.width, meta.height]).toEqual([64, 48]);
    expect(outputs.video).toBeUndefined();
    const ticks = progress.filter((p) => p.step === "SamplerCustomAdvanced #11");
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    expect(ticks.at(-1)?.steps).toBe(3);
    expect(progress.at(-1)).toEqual({ progress: 1, step: "done" });
    expect(progress.every((p) => p.progress >= 0 && p.progress <= 1)).toBe(true);

    // The same engine remembers the upload; a fresh process finds it on the server (HEAD /view).
    await run(engine, job("image", graph, { inputs: { ref1: pic } }));
    expect(double.uploads).toHaveLength(1);
    const other = newEngine();
    const again = await run(other, job("image", graph, { inputs: { ref1: pic } }));
    expect(double.uploads).toHaveLength(1);
    expect(again.prepared.inputs.ref1).toBe(prepared.inputs.ref1);
    expect(double.requests.some((r) => r.method === "HEAD" && r.path.startsWith("/api/view?"))).toBe(true);
  });

  it("runs a video graph: the video and its audio are downloaded and the frames counted", async () => {
    for (const saver of ["h3", "core"] as const) {
      const graph = ltx2Graph({
        width: 128,
        height: 128,
        length: 17,
        fps: 24,
        saver,
        seed: saver === "h3" ? 1 : 2,
      });
      const progress: EngineProgress[] = [];
      const j = job("video", graph);
      const { outputs } = await run(engine, j, progress);
      expect(outputs.video).toMatch(/\.mp4$/);
      expect(path.dirname(outputs.video!)).toBe(j.workDir);
      expect(await countFrames(outputs.video!, hostMedia)).toBe(17);
      const info = await probe(outputs.video!, hostMedia);
      expect([info.video?.width, info.video?.height]).toEqual([128, 128]);
      if (saver === "h3") expect(outputs.audio).toMatch(/_h3\.wav$/);
      else expect(outputs.audio).toBeUndefined();
      expect(new Set(progress.map((p) => p.step))).toContain("SamplerCustomAdvanced #15");
      expect(new Set(progress.map((p) => p.step))).toContain("SamplerCustomAdvanced #23");
    }
  });

  it("refuses a graph that fails validation, naming the node class and input", async () => {
    const j = job("image", tinyImageGraph(0, 48));
    await expect(run(engine, j)).rejects.toThrow(
      "ComfyUI refused the prompt: EmptyImage #1 input width: Value 0 smaller than min of 1",
    );
    expect(double.prompts.at(-1)?.status).toBe(400);
    const unknown = job("image", { ...tinyImageGraph(), "9": { class_type: "NoSuchNode", inputs: {} } });
    await expect(run(engine, unknown)).rejects.toThrow(/ComfyUI refused the prompt: .*NoSuchNode/);
  });

  it("reads a missing model file as such", async () => {
    double.inject({
      kind: "missing_model",
      folder: "diffusion_models",
      file: "flux-2-klein-9b-kv.safetensors",
    });
    const j = job("image", flux2KleinGraph({ width: 64, height: 48 }));
    await expect(run(engine, j)).rejects.toThrow(
      "missing model file flux-2-klein-9b-kv.safetensors for UNETLoader.unet_name (folder diffusion_models)",
    );
  });

  it("rejects a prompt ComfyUI accepted with some outputs skipped, and removes it", async () => {
    const graph = {
      ...tinyImageGraph(),
      "3": { class_type: "EmptyImage", inputs: { width: 0, height: 8, batch_size: 1, color: 0 } },
      "4": { class_type: "SaveImage", inputs: { images: ["3", 0], filename_prefix: "bad" } },
    };
    await expect(run(engine, job("image", graph))).rejects.toThrow(
      "ComfyUI would skip outputs of the prompt: EmptyImage #3 input width: Value 0 smaller than min of 1",
    );
    expect(double.prompts.at(-1)?.status).toBe(200);
    await double.idle();
  });

  it("fails with the node's class, id and exception when a node fails mid-run", async () => {
    double.inject({
      kind: "execution_error",
      classType: "SamplerCustomAdvanced",
      message: "tensor mismatch",
      afterSteps: 1,
    });
    const progress: EngineProgress[] = [];
    const j = job("image", flux2KleinGraph({ width: 64, height: 48 }));
    await expect(run(engine, j, progress)).rejects.toThrow(
      /^SamplerCustomAdvanced #11 failed: .*tensor mismatch/,
    );
    expect(progress.some((p) => p.step === "SamplerCustomAdvanced #11")).toBe(true);
    double.inject({ kind: "oom" });
    await expect(run(engine, job("image", flux2KleinGraph({ width: 64, height: 48 })))).rejects.toThrow(
      /#11 failed: torch\.cuda\.OutOfMemoryError/,
    );
  });

  it("cancels a pending prompt by deleting it and a running one by interrupting it", async () => {
    double.inject({ kind: "slow_progress", stepMs: 400 });
    const graph = flux2KleinGraph({ width: 64, height: 48 });
    const a = job("image", graph);
    const b = job("image", flux2KleinGraph({ width: 64, height: 48, seed: 99 }));
    const h = hooks();
    const sa = await engine.submit(a, await engine.prepare(a, h), h);
    const sb = await engine.submit(b, await engine.prepare(b, h), h);
    const ca = engine.collect(a, sa, h);
    const cb = engine.collect(b, sb, h);
    ca.catch(() => {});
    cb.catch(() => {});
    await expect.poll(() => double.state().running, { timeout: 5000 }).toBe(sa.backendPromptId);
    expect(double.state().pending).toContain(sb.backendPromptId);

    await engine.cancel(b, sb);
    await expect(cb).rejects.toThrow("canceled");
    expect(double.state().pending).not.toContain(sb.backendPromptId);
    const posted = (p: string) => double.requests.some((r) => r.method === "POST" && r.path === p);
    // Older builds: a queue delete; newer ones: the jobs API's atomic cancel.
    if (profile === "old") expect(posted("/api/queue")).toBe(true);
    else expect(posted(`/api/jobs/${sb.backendPromptId}/cancel`)).toBe(true);

    // cancel(job, null): the engine finds the prompt of the job it submitted.
    await engine.cancel(a, null);
    await expect(ca).rejects.toThrow("canceled");
    if (profile === "old") expect(posted("/api/interrupt")).toBe(true);
    else expect(posted(`/api/jobs/${sa.backendPromptId}/cancel`)).toBe(true);
    await double.idle();
    expect(double.state().history).not.toContain(sb.backendPromptId);
  });

  it("ends an aborted collect at once; the cancel that follows interrupts the prompt", async () => {
    double.inject({ kind: "slow_progress", stepMs: 300 });
    const j = job("image", flux2KleinGraph({ width: 64, height: 48, seed: 21 }));
    const ctl = new AbortController();
    const h = hooks([], ctl.signal);
    const submitted = await engine.submit(j, await engine.prepare(j, h), h);
    const collected = engine.collect(j, submitted, h);
    collected.catch(() => {});
    await expect.poll(() => double.state().running, { timeout: 5000 }).toBe(submitted.backendPromptId);
    const at = Date.now();
    ctl.abort();
    await expect(collected).rejects.toThrow("canceled");
    expect(Date.now() - at).toBeLessThan(300);
    await engine.cancel(j, null);
    await double.idle();
    expect(double.state().history).toContain(submitted.backendPromptId);
    const entry = await fetch(`${double.url}/api/history/${submitted.backendPromptId}`).then((r) => r.json());
    expect(historyState(entry, submitted.backendPromptId)).toEqual({ state: "interrupted" });
  });

  it("reconnects a dropped websocket under the same clientId and still completes", async () => {
    // Polls so rare that the end must come over the new socket (older servers cut a replacement socket off
    // when the old one's cleanup runs late: the engine only reconnects once the old socket has closed).
    const e = createComfyEngine({ url: double.url, timing: { ...FAST, pollMs: 20_000 } });
    engines.push(e);
    double.inject({ kind: "slow_progress", stepMs: 150 });
    double.inject({ kind: "drop_ws", on: "progress" });
    const progress: EngineProgress[] = [];
    const started = Date.now();
    const { outputs } = await run(e, job("image", flux2KleinGraph({ width: 64, height: 48 })), progress);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(outputs.image).toBeTruthy();
    expect(e.socket.drops).toBe(1);
    expect(e.socket.opens).toBe(2);
    expect(double.state().clients).toEqual([e.clientId]);
    // Ticks of the sampler arrived after the reconnect.
    expect(progress.filter((p) => p.step === "SamplerCustomAdvanced #11").length).toBeGreaterThanOrEqual(2);
  });

  it("completes through the polls while the socket is silently stalled", async () => {
    double.inject({ kind: "ws_stall", ms: 5000 });
    const started = Date.now();
    const { outputs } = await run(engine, job("image", flux2KleinGraph({ width: 64, height: 48, seed: 3 })));
    expect(outputs.image).toBeTruthy();
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("fails with a clear reason when the engine restarts and loses the prompt", async () => {
    double.inject({ kind: "restart", on: "progress" });
    const started = Date.now();
    await expect(run(engine, job("image", flux2KleinGraph({ width: 64, height: 48 })))).rejects.toThrow(
      RESTARTED,
    );
    expect(Date.now() - started).toBeLessThan(5000);
    // The engine works again after the restart.
    const { outputs } = await run(engine, job("image", tinyImageGraph()));
    expect(outputs.image).toBeTruthy();

    // A restart that keeps the port closed for a while (hard reset, no close frames) reads the same.
    double.inject({ kind: "slow_progress", stepMs: 200 });
    const j = job("image", flux2KleinGraph({ width: 64, height: 48, seed: 5 }));
    const h = hooks();
    const submitted = await engine.submit(j, await engine.prepare(j, h), h);
    const collected = engine.collect(j, submitted, h);
    collected.catch(() => {});
    await expect.poll(() => double.state().running, { timeout: 5000 }).toBe(submitted.backendPromptId);
    await double.restart({ hard: true, downMs: 700 });
    await expect(collected).rejects.toThrow(RESTARTED);
  });

  it("gives up on a server that stays down, naming it", async () => {
    const e = createComfyEngine({ url: double.url, timing: { ...FAST, downLimitMs: 600 } });
    engines.push(e);
    double.inject({ kind: "slow_progress", stepMs: 200 });
    const j = job("image", flux2KleinGraph({ width: 64, height: 48, seed: 8 }));
    const h = hooks();
    const submitted = await e.submit(j, await e.prepare(j, h), h);
    const collected = e.collect(j, submitted, h);
    collected.catch(() => {});
    await expect.poll(() => double.state().running, { timeout: 5000 }).toBe(submitted.backendPromptId);
    await double.setRefusing(true);
    e.socket.drop();
    await expect(collected).rejects.toThrow(`ComfyUI at ${double.url} is down (connection refused)`);
    await double.setRefusing(false);
  });

  it("sends a submit whose answer timed out again under the same prompt id, once", async () => {
    const e = createComfyEngine({ url: double.url, timing: { ...FAST, timeoutMs: 300 } });
    engines.push(e);
    double.inject({ kind: "slow_http", path: "/api/prompt", ms: 800 });
    const { submitted, outputs } = await run(e, job("image", tinyImageGraph(24, 24)));
    expect(outputs.image).toBeTruthy();
    // Past the delayed first attempt: it never ran as a second copy.
    await new Promise((r) => setTimeout(r, 900));
    await double.idle();
    const mine = double.prompts.filter((p) => p.prompt_id === submitted.backendPromptId);
    expect(mine.filter((p) => p.status === 200)).toHaveLength(1);
  });

  it("notices a prompt that vanished from the queue", async () => {
    double.inject({ kind: "lose" });
    await expect(run(engine, job("image", tinyImageGraph()))).rejects.toThrow(/the engine lost the prompt/);
  });

  it("follows a prompt another process submitted (no events for its clientId: polls only)", async () => {
    const j = job("image", tinyImageGraph(32, 16));
    const h = hooks();
    const submitted = await engine.submit(j, await engine.prepare(j, h), h);
    const other = newEngine();
    const outputs = await other.collect(j, submitted, hooks());
    const meta = await sharp(outputs.image!).metadata();
    expect([meta.width, meta.height]).toEqual([32, 16]);
  });

  it("says the server is down when connections are refused", async () => {
    await double.setRefusing(true);
    const started = Date.now();
    await expect(run(engine, job("image", tinyImageGraph()))).rejects.toThrow(
      `ComfyUI at ${double.url} is down (connection refused)`,
    );
    expect(Date.now() - started).toBeLessThan(3000);
    await double.setRefusing(false);
    expect((await run(engine, job("image", tinyImageGraph()))).outputs.image).toBeTruthy();
  });

  it("answers readiness look-ups from the catalogue and model folders, cached briefly", async () => {
    const info = await lookups.objectInfo(double.url, "UNETLoader");
    expect(inputChoices(info, "unet_name")).toContain("flux-2-klein-9b-kv.safetensors");
    expect(await lookups.objectInfo(double.url, "NoSuchNode")).toBeNull();
    expect(Object.keys(await lookups.objectInfo(double.url))).toContain("KSampler");
    expect(await lookups.models(double.url)).toContain("diffusion_models");
    expect(await lookups.models(double.url, "loras")).toEqual([
      "ltx-2.5-22b-ic-lora-ingredients-0.9.safetensors",
    ]);
    expect(await lookups.models(double.url, "no_such_folder")).toBeNull();
    await lookups.models(double.url, "loras");
    expect(double.requests.filter((r) => r.path === "/api/models/loras")).toHaveLength(1);
    // A look-up the server did not answer is not cached: the next one asks again.
    await double.setRefusing(true);
    await expect(lookups.models(double.url, "vae")).rejects.toThrow(/is down/);
    await double.setRefusing(false);
    expect(await lookups.models(double.url, "vae")).toContain("flux2-vae.safetensors");
    expect(await lookups.serverInfo(double.url)).toEqual({
      version: profile === "old" ? "0.3.64" : "0.36.0",
      jobsApi: profile === "new",
    });
  });
});
