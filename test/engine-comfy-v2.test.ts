// The Comfy API v2 engine against its test double: SSE and envelope parsing, then end to end (assets reused,
// progress, outputs downloaded), a refused key, a failing job, cancel of a running job, a server that is down.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type ComfyV2Engine,
  createComfyV2Engine,
  createSseParser,
  describeFailure,
  jobFailure,
  outputKind,
  progressOf,
} from "../lib/engines/comfy-v2/index.ts";
import type { ApiGraph, EngineJob, EngineProgress, RunHooks } from "../lib/engines/types.ts";
import { countFrames } from "../lib/media/ffmpeg.ts";
import { startComfyV2Double, type V2Double } from "./support/comfy-v2-double.ts";
import { hostMedia } from "./support/ctx.ts";

let root: string;
const open: { engines: ComfyV2Engine[]; doubles: V2Double[] } = { engines: [], doubles: [] };

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "studio-comfy-v2-"));
});
afterEach(async () => {
  await Promise.all(open.engines.splice(0).map((e) => e.close().catch(() => {})));
  await Promise.all(open.doubles.splice(0).map((d) => d.close()));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function double(opts: Parameters<typeof startComfyV2Double>[0] = {}): Promise<V2Double> {
  const d = await startComfyV2Double(opts);
  open.doubles.push(d);
  return d;
}

function engine(url: string, apiKey: string | null = "test-key"): ComfyV2Engine {
  const e = createComfyV2Engine({ backend: "cloud", url, apiKey, timing: { pollMs: 50 } });
  open.engines.push(e);
  return e;
}

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

const videoGraph = (first: string): ApiGraph => ({
  "1": { class_type: "LoadImage", inputs: { image: first } },
  "3": { class_type: "KSampler", inputs: { seed: 18446744073709551615n, steps: 4 } },
  "9": { class_type: "SaveVideo", inputs: { frames: 17, images: ["3", 0] } },
});

let n = 0;
function job(over: Partial<EngineJob> = {}): EngineJob {
  n++;
  return {
    kind: "video",
    target: "ltx2",
    ep: root,
    pass: "proxy",
    subject: "sh010",
    take: n,
    stem: `sh010_t${String(n).padStart(2, "0")}`,
    width: 64,
    height: 64,
    fps: 24,
    frames: 17,
    seed: 1n,
    prompt: "a red square",
    negative: null,
    entry: {} as EngineJob["entry"],
    inputs: {},
    workDir: path.join(root, `work${n}`),
    ...over,
  };
}

async function firstFrame(): Promise<string> {
  const file = path.join(root, "first.png");
  // A tiny valid-enough payload: the double stores bytes, it does not decode them.
  await writeFile(file, Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"));
  return file;
}

describe("pure helpers", () => {
  it("parses SSE frames across chunks, skipping comments", () => {
    const p = createSseParser();
    expect(p.push('event: status\ndata: {"status":"run')).toEqual([]);
    expect(p.push('ning"}\n\n: keepalive\n\nevent: progress\r\ndata: {"value":0.5}\r\n\r\n')).toEqual([
      { event: "status", data: '{"status":"running"}' },
      { event: "progress", data: '{"value":0.5}' },
    ]);
  });

  it("names envelope errors for a person", () => {
    const env = (code: string, message: string) =>
      JSON.stringify({ error: { code, message, details: null } });
    expect(
      describeFailure("Comfy Cloud", "POST /api/v2/jobs", 401, env("unauthorized", "Invalid API key"), null),
    ).toMatch(/^Comfy Cloud: the API key was refused \(401 unauthorized\): Invalid API key/);
    expect(describeFailure("X", "w", 402, env("insufficient_credits", "no credits"), null)).toMatch(
      /out of credits/,
    );
    expect(describeFailure("X", "w", 429, env("queue_full", "full"), 7)).toMatch(
      /queue is full.*retry in 7 s/,
    );
    expect(describeFailure("X", "w", 429, env("rate_limited", "slow down"), 2)).toMatch(/rate limited/);
    const nodeErrors = JSON.stringify({
      error: {
        code: "invalid_workflow",
        message: "bad",
        details: {
          node_errors: { "4": { class_type: "KSampler", errors: [{ type: "x", message: "steps too big" }] } },
        },
      },
    });
    expect(describeFailure("X", "w", 422, nodeErrors, null)).toMatch(/KSampler #4: steps too big/);
    expect(
      jobFailure({
        code: "node_execution_error",
        message: "CUDA out of memory",
        node_id: "3",
        class_type: "KSampler",
      }),
    ).toBe("KSampler #3 failed: CUDA out of memory");
    expect(outputKind("video/mp4", "a.mp4", "image")).toBe("video");
    expect(progressOf({ value: 1, step: 4, steps: 4, current_node_class: "KSampler" })).toEqual({
      progress: 0.98,
      step: "KSampler 4/4",
      steps: 4,
    });
  });
});

describe("engine against the v2 double", () => {
  it("runs a job end to end: assets reused, progress, outputs downloaded", async () => {
    const d = await double();
    const e = engine(d.url);
    const first = await firstFrame();
    const progress: EngineProgress[] = [];
    const j = job({ inputs: { first }, graph: videoGraph(first) });
    const prepared = await e.prepare(j, hooks(progress));
    expect(d.stats.uploads).toBe(1);
    const submitted = await e.submit(j, prepared, hooks(progress));
    expect(d.jobs.get(submitted.backendPromptId)?.workflow["1"].inputs?.image).toEqual({
      __type: "core/ASSET",
      info: { id: prepared.inputs.first, file_path: expect.stringMatching(/^studio\/[0-9a-f]{40}\.png$/) },
    });
    const out = await e.collect(j, submitted, hooks(progress));
    expect(out.video).toBe(path.join(j.workDir, "studio_00001_.mp4"));
    expect(await countFrames(out.video as string, hostMedia)).toBe(17);
    expect(progress.some((p) => p.progress > 0 && p.progress < 1 && p.step?.startsWith("KSampler"))).toBe(
      true,
    );
    expect(progress.at(-1)).toEqual({ progress: 1, step: "done" });
    expect(d.stats.streams).toBeGreaterThan(0);
    // Every call carried the key.
    expect(d.auth.every((a) => a === "Bearer test-key")).toBe(true);

    // Same bytes again: this engine remembers the asset; a fresh engine is deduplicated by the server.
    const again = await e.prepare(job({ inputs: { first } }), hooks());
    expect(again.inputs.first).toBe(prepared.inputs.first);
    const notes: EngineProgress[] = [];
    const other = await engine(d.url).prepare(job({ inputs: { first } }), hooks(notes));
    expect(other.inputs.first).toBe(prepared.inputs.first);
    expect(d.stats.uploads).toBe(1);
    expect(notes[0].log).toMatch(/0 uploaded, 1 already/);
  });

  it("falls back to polling when the server refuses event streams", async () => {
    const d = await double();
    d.faults.noStreams = true;
    const e = engine(d.url);
    const j = job({ kind: "image", graph: { "9": { class_type: "SaveImage", inputs: {} } } });
    const s = await e.submit(j, await e.prepare(j, hooks()), hooks());
    const out = await e.collect(j, s, hooks());
    expect(out.image).toBe(path.join(j.workDir, "studio_00001_.png"));
    expect(d.stats.streams).toBe(0);
    expect(d.stats.polls).toBeGreaterThan(1);
  });

  it("says the API key was refused", async () => {
    const d = await double();
    const e = engine(d.url, "wrong-key");
    const j = job({ graph: videoGraph("x") });
    await expect(e.submit(j, { inputs: {}, notes: [] }, hooks())).rejects.toThrow(
      /^Comfy Cloud: the API key was refused \(401 unauthorized\): Invalid API key/,
    );
    expect(d.stats.submits).toBe(0);
  });

  it("reports a failing job with its node", async () => {
    const d = await double();
    d.faults.fail = { node: "3", classType: "KSampler", message: "CUDA out of memory" };
    const e = engine(d.url);
    const j = job({ graph: videoGraph("x") });
    const s = await e.submit(j, { inputs: {}, notes: [] }, hooks());
    await expect(e.collect(j, s, hooks())).rejects.toThrow(
      `Comfy Cloud job ${s.backendPromptId}: KSampler #3 failed: CUDA out of memory`,
    );
  });

  it("cancels a running job", async () => {
    const d = await double();
    d.faults.slowMs = 20_000;
    const e = engine(d.url);
    const j = job({ graph: videoGraph("x") });
    const s = await e.submit(j, { inputs: {}, notes: [] }, hooks());
    const progress: EngineProgress[] = [];
    const collecting = e.collect(j, s, hooks(progress));
    const outcome = collecting.then(
      () => "finished",
      (err: Error) => err.message,
    );
    while (d.jobs.get(s.backendPromptId)?.status !== "running") await new Promise((r) => setTimeout(r, 10));
    await e.cancel(j, null);
    expect(await outcome).toBe("canceled");
    expect(d.jobs.get(s.backendPromptId)?.status).toBe("canceled");
    expect(d.stats.cancels).toBe(1);
  });

  it("fails fast and names the address when nothing listens", async () => {
    const port = await closedPort();
    const e = engine(`http://127.0.0.1:${port}`);
    const started = Date.now();
    await expect(
      e.submit(job({ graph: videoGraph("x") }), { inputs: {}, notes: [] }, hooks()),
    ).rejects.toThrow(`Comfy Cloud at http://127.0.0.1:${port} is unreachable (connection refused)`);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
