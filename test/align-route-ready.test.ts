// GET /studio/align/ready and the whisper subprocess, with a fake interpreter (a shell script that answers the
// probe and prints canned words) so the probing, parsing and process handling are the real ones; PocketSphinx as
// the machine has it (or not, with a PATH that lacks it).
import { chmod, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import readyRoute from "../functions/align/ready.get.ts";
import { AlignerFailed } from "../lib/align/engine-run.ts";
import { parseSphinxOutput, sphinxWordLine } from "../lib/align/pocketsphinx.ts";
import { alignReadiness, PROBE_MS, SPHINX_APT } from "../lib/align/ready.ts";
import { whisperWords } from "../lib/align/whisper.ts";
import { ToolCanceled } from "../lib/media/tool-runner.ts";
import { callFunction } from "./support/call.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

const SPHINX = "/usr/bin/pocketsphinx_continuous";

let env: TestEnv | null = null;
afterEach(async () => {
  await env?.cleanup();
  env = null;
});

interface Fake {
  numpy?: string | null;
  faster?: string | null;
  openai?: string | null;
  /** What the transcription prints on stdout, and its exit code. */
  words?: string;
  exit?: number;
  stderr?: string;
  sleep?: number;
}

/** A fake interpreter at `file`: counts its probes in `<file>.probes`, answers the probe or the transcription. */
async function fakePython(file: string, fake: Fake): Promise<string> {
  const json = (v: string | null | undefined) => (v == null ? "null" : JSON.stringify(v));
  const probe = `{"numpy": ${json(fake.numpy)}, "faster-whisper": ${json(fake.faster)}, "openai-whisper": ${json(fake.openai)}}`;
  const script = `#!/bin/sh
case "$2" in
  *H3PIPE_ALIGN_PROBE*)
    echo x >> "${file}.probes"
    echo "some banner"
    echo 'H3PIPE_ALIGN_PROBE ${probe}'
    exit 0;;
esac
# The transcription: argv is -c <script> <wav> <model> <library>.
echo "$3 $4 $5" > "${file}.args"
${fake.sleep ? `exec sleep ${fake.sleep}` : ""}
cat <<'WORDS'
${fake.words ?? ""}
WORDS
${fake.stderr ? `printf '%b\\n' ${JSON.stringify(fake.stderr)} >&2` : ""}
exit ${fake.exit ?? 0}
`;
  await writeFile(file, script);
  await chmod(file, 0o755);
  return file;
}

async function probes(file: string): Promise<number> {
  const text = await readFile(`${file}.probes`, "utf8").catch(() => "");
  return text.split("\n").filter(Boolean).length;
}

describe("GET /studio/align/ready", () => {
  it("picks a Python with numpy and faster-whisper first, and says which program runs", async () => {
    env = await makeTestEnv();
    const py = await fakePython(path.join(env.dir, "py"), { numpy: "1.26.4", faster: "1.0.3" });
    env.services.env.H3PIPE_ALIGN_PYTHON = py;
    const res = await callFunction(readyRoute, undefined, env.services);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ready: true,
      engine: "faster-whisper",
      program: py,
      python: py,
      missing: [],
      install: "",
      ffmpeg_hint: "",
      packages: { numpy: "1.26.4", "faster-whisper": "1.0.3", "openai-whisper": null },
      models: { default: "medium.en" },
    });
    expect(res.body.models.choices).toContain("medium.en");
    expect(typeof res.body.ffmpeg).toBe("string");
    expect(Object.keys(res.body).sort()).toEqual(
      [
        "apt",
        "engine",
        "ffmpeg",
        "ffmpeg_hint",
        "install",
        "missing",
        "models",
        "packages",
        "program",
        "python",
        "ready",
      ].sort(),
    );
  });

  it("takes openai-whisper as the whisper too", async () => {
    env = await makeTestEnv();
    env.services.env.H3PIPE_ALIGN_PYTHON = await fakePython(path.join(env.dir, "py"), {
      numpy: "2.0.0",
      openai: "20231117",
    });
    const { answer, program } = await alignReadiness(env.services);
    expect(answer.engine).toBe("faster-whisper");
    expect(program).toMatchObject({ engine: "faster-whisper", library: "openai-whisper" });
  });

  it("falls back to PocketSphinx when no Python has a whisper", async () => {
    env = await makeTestEnv();
    env.services.env.H3PIPE_ALIGN_PYTHON = await fakePython(path.join(env.dir, "py"), { numpy: "1.26.4" });
    env.services.env.PATH = path.dirname(SPHINX);
    const res = await callFunction(readyRoute, undefined, env.services);
    expect(res.body).toMatchObject({
      ready: true,
      engine: "pocketsphinx",
      program: SPHINX,
      missing: [],
      install: "",
      apt: "",
      packages: { numpy: "1.26.4", "faster-whisper": null, "openai-whisper": null },
    });
  });

  it("is not ready without an engine: the pip names, the pip line quoting the interpreter, the apt hint", async () => {
    env = await makeTestEnv();
    const py = await fakePython(path.join(env.dir, "my python"), {});
    env.services.env.H3PIPE_ALIGN_PYTHON = py;
    env.services.env.PATH = env.dir;
    const res = await callFunction(readyRoute, undefined, env.services);
    expect(res.body).toMatchObject({
      ready: false,
      engine: null,
      program: null,
      python: py,
      missing: ["numpy", "faster-whisper"],
      install: `"${py}" -m pip install numpy faster-whisper`,
      apt: SPHINX_APT,
    });
  });

  it("needs ffmpeg: missing names it first, install stays empty when only ffmpeg is missing", async () => {
    env = await makeTestEnv({ FFMPEG_PATH: "/nonexistent/ffmpeg" });
    env.services.env.H3PIPE_ALIGN_PYTHON = await fakePython(path.join(env.dir, "py"), {
      numpy: "1",
      faster: "1",
    });
    const res = await callFunction(readyRoute, undefined, env.services);
    expect(res.body).toMatchObject({ ready: false, ffmpeg: null, missing: ["ffmpeg"], install: "" });
    expect(res.body.ffmpeg_hint).toMatch(/FFMPEG_PATH/);
  });

  it("asks an interpreter at most once per 30 s", async () => {
    env = await makeTestEnv();
    const py = await fakePython(path.join(env.dir, "py"), { numpy: "1", faster: "1" });
    env.services.env.H3PIPE_ALIGN_PYTHON = py;
    env.services.env.PATH = env.dir;
    let now = Date.now();
    env.services.now = () => new Date(now);
    await alignReadiness(env.services);
    await alignReadiness(env.services);
    expect(await probes(py)).toBe(1);
    now += PROBE_MS + 1;
    await alignReadiness(env.services);
    expect(await probes(py)).toBe(2);
  });
});

describe("the whisper subprocess", () => {
  it("reads the words it prints (with progress) and passes the wav, model and library", async () => {
    env = await makeTestEnv();
    const py = await fakePython(path.join(env.dir, "py"), {
      words: [
        "loading model...",
        'H3PIPE_WORD {"w": " Hello", "start": 0.5, "end": 0.9}',
        'H3PIPE_WORD {"w": "there.", "start": 0.95, "end": 1.4}',
        'H3PIPE_WORD {"w": "bad", "start": 2, "end": 1}',
      ].join("\n"),
    });
    const seen: number[] = [];
    const out = await whisperWords(env.services, py, "faster-whisper", "small.en", "/tmp/x.wav", {
      duration: 2,
      progress: (f) => seen.push(f),
    });
    expect(out.words).toEqual([
      { w: "Hello", start: 0.5, end: 0.9 },
      { w: "there.", start: 0.95, end: 1.4 },
    ]);
    expect(seen).toEqual([0.45, 0.7]);
    expect((await readFile(`${py}.args`, "utf8")).trim()).toBe("/tmp/x.wav small.en faster-whisper");
  });

  it("fails with its last !! line and the log", async () => {
    env = await makeTestEnv();
    const py = await fakePython(path.join(env.dir, "py"), {
      exit: 1,
      stderr: "Traceback (most recent call last):\n!! RuntimeError: CUDA out of memory\nbye",
    });
    const err = await whisperWords(env.services, py, "faster-whisper", "medium.en", "/tmp/x.wav", {
      duration: 1,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AlignerFailed);
    expect((err as AlignerFailed).message).toBe("py: RuntimeError: CUDA out of memory");
    expect((err as AlignerFailed).log).toContain("Traceback");
  });

  it("is killed when out of time, and stops when canceled", async () => {
    env = await makeTestEnv();
    const py = await fakePython(path.join(env.dir, "py"), { sleep: 20 });
    const slow = await whisperWords(env.services, py, "faster-whisper", "tiny", "/tmp/x.wav", {
      duration: 1,
      timeoutMs: 300,
    }).catch((e: unknown) => e);
    expect(slow).toBeInstanceOf(AlignerFailed);
    expect((slow as Error).message).toMatch(/ran out of time/);
    const stop = new AbortController();
    const run = whisperWords(env.services, py, "faster-whisper", "tiny", "/tmp/x.wav", {
      duration: 1,
      signal: stop.signal,
    }).catch((e: unknown) => e);
    setTimeout(() => stop.abort(), 200);
    expect(await run).toBeInstanceOf(ToolCanceled);
  });
});

describe("PocketSphinx output", () => {
  it("keeps words with their times, drops silences, fillers and alternate-pronunciation marks", () => {
    const out = [
      "how are you today",
      "<sil> 0.390 0.850 1.000000",
      "how 0.860 0.940 1.000000",
      "today(2) 1.720 2.160 1.000000",
      "[NOISE] 2.2 2.3 0.5",
      "(NULL) 2.640 2.640 1.000000",
      "<s> 3.0 3.1 1.0",
    ].join("\n");
    expect(parseSphinxOutput(out)).toEqual([
      { w: "how", start: 0.86, end: 0.94 },
      { w: "today", start: 1.72, end: 2.16 },
    ]);
    expect(sphinxWordLine("i am fine")).toBeNull();
    expect(sphinxWordLine("close(2) 5.010 5.350 1.000000")).toEqual({ w: "close", start: 5.01, end: 5.35 });
  });
});
