// The media tools' runner: ffmpeg and ffprobe really run, started by the tool process (never by the calling process),
// several at once, with lines streamed back, cancellation that kills the child, a failing tool's log in its error,
// time limits, close, and a tool process that dies failing its runs in flight (then a new one for the next run).
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolCanceled, ToolHostError, ToolRunError, ToolRunner } from "../lib/media/tool-runner.ts";
import { createMediaTools, type MediaTools } from "../lib/media/tools.ts";
import { makeTestEnv } from "./support/ctx.ts";

let dir: string;
let clip: string;
let media: MediaTools;
let ffmpeg: string;
let marks = 0;

/** A long ffmpeg run (an hour of test pattern to nowhere) whose command line carries a marker to find it by. */
function endless(mark: string): string[] {
  return [
    "-hide_banner",
    "-nostdin",
    "-progress",
    "pipe:1",
    "-f",
    "lavfi",
    "-i",
    "testsrc=d=3600",
    "-metadata",
    `comment=${mark}`,
    "-f",
    "null",
    "-",
  ];
}

/** The processes whose command line holds `marker` (Linux's /proc; elsewhere none are seen). */
async function processesWith(marker: string): Promise<number[]> {
  const entries = await readdir("/proc").catch(() => [] as string[]);
  const pids: number[] = [];
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const cmd = await readFile(`/proc/${e}/cmdline`).catch(() => null);
    if (cmd?.toString().includes(marker)) pids.push(Number(e));
  }
  return pids;
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Resolves at the first line the run streams back (the tool has started and is working). */
function firstLine(): { seen: Promise<void>; onStdoutLine: (line: string) => void } {
  let seen!: () => void;
  const p = new Promise<void>((r) => {
    seen = r;
  });
  return { seen: p, onStdoutLine: () => seen() };
}

const mark = () => `studio-tool-process-test-${process.pid}-${++marks}`;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "studio-tool-process-"));
  media = createMediaTools(() => process.env);
  const found = await media.find("ffmpeg");
  if (found.path === null) throw new Error(found.error);
  ffmpeg = found.path;
  clip = path.join(dir, "clip.mp4");
  await media.run("ffmpeg", ["-f", "lavfi", "-i", "testsrc=d=1:s=160x120:r=24", "-pix_fmt", "yuv420p", clip]);
});

afterAll(async () => {
  await media.close();
  await rm(dir, { recursive: true, force: true });
});

describe("media.run", () => {
  it("runs ffprobe and answers its whole output", async () => {
    const { stdout, exitCode } = await media.run("ffprobe", [
      "-v",
      "error",
      "-show_entries",
      "stream=codec_name,nb_frames",
      "-of",
      "json",
      clip,
    ]);
    expect(exitCode).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ programs: [], streams: [{ codec_name: "h264", nb_frames: "24" }] });
  });

  it.runIf(process.platform === "linux")(
    "the tool's parent is the tool process, not the calling process",
    async () => {
      const m = mark();
      const ac = new AbortController();
      const started = firstLine();
      const run = media.run("ffmpeg", endless(m), { signal: ac.signal, onStdoutLine: started.onStdoutLine });
      await started.seen;
      const [pid] = await processesWith(m);
      const parent = Number(/^PPid:\s+(\d+)$/m.exec(await readFile(`/proc/${pid}/status`, "utf8"))?.[1]);
      expect(parent).not.toBe(process.pid);
      expect(await readFile(`/proc/${parent}/cmdline`, "utf8")).toContain("tool-process.js");
      ac.abort();
      await expect(run).rejects.toThrow(ToolCanceled);
    },
  );

  it("runs several tools at once and streams ffmpeg's progress lines", async () => {
    const lines: string[] = [];
    const outs = [1, 2, 3].map((i) => path.join(dir, `many${i}.wav`));
    await Promise.all([
      ...outs.map((out) =>
        media.run(
          "ffmpeg",
          ["-nostdin", "-y", "-progress", "pipe:1", "-f", "lavfi", "-i", "anullsrc=d=2", out],
          {
            onStdoutLine: (line) => lines.push(line),
          },
        ),
      ),
      media.run("ffprobe", ["-version"]),
    ]);
    expect(lines.filter((l) => l === "progress=end")).toHaveLength(3);
    expect(lines.some((l) => /^out_time_us=\d+$/.test(l))).toBe(true);
    for (const out of outs) expect((await readFile(out)).subarray(0, 4).toString()).toBe("RIFF");
  });

  it("a failing tool rejects with the end of its log", async () => {
    const notMedia = path.join(dir, "not-media.mp4");
    await writeFile(notMedia, "this is text, not a video");
    const err = await media.run("ffprobe", ["-v", "error", notMedia]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolRunError);
    const failed = err as ToolRunError;
    expect(failed.tool).toBe("ffprobe");
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain("Invalid data found when processing input");
    expect(failed.message).toMatch(/^ffprobe failed \(exit 1\): .*Invalid data found/s);
  });

  it("aborting the signal kills the tool and rejects with 'canceled'", async () => {
    const m = mark();
    const ac = new AbortController();
    const started = firstLine();
    const run = media.run("ffmpeg", endless(m), { signal: ac.signal, onStdoutLine: started.onStdoutLine });
    await started.seen;
    if (process.platform === "linux") expect(await processesWith(m)).toHaveLength(1);
    ac.abort();
    await expect(run).rejects.toThrow(ToolCanceled);
    await expect(run).rejects.toThrow(/^canceled$/);
    // Answered once the child has ended, not merely asked to.
    expect(await processesWith(m)).toEqual([]);
    await expect(media.run("ffmpeg", endless(m), { signal: ac.signal })).rejects.toThrow(ToolCanceled);
  });

  it("a tool past its time limit is killed and the run says so", async () => {
    const m = mark();
    const runner = new ToolRunner();
    try {
      await expect(runner.run(ffmpeg, endless(m), { timeout: 300 })).rejects.toThrow(
        /^ffmpeg ran out of time \(300 ms\)$/,
      );
      expect(await processesWith(m)).toEqual([]);
    } finally {
      await runner.close();
    }
  });

  it("a tool that cannot start says so", async () => {
    const runner = new ToolRunner();
    try {
      await expect(runner.run(path.join(dir, "no-such-tool"), [])).rejects.toThrow(
        /^no-such-tool did not start: no-such-tool was not found$/,
      );
    } finally {
      await runner.close();
    }
  });

  it("a missing tool is a 500 naming what to install, and is looked for again later", async () => {
    const link = path.join(dir, "ffmpeg-later");
    const later = createMediaTools(() => ({ FFMPEG_PATH: link, PATH: "" }));
    try {
      await expect(later.run("ffmpeg", ["-version"])).rejects.toMatchObject({
        status: 500,
        message: expect.stringMatching(
          /^no media tools: .*ffmpeg-later \(from FFMPEG_PATH\) is not an executable file/,
        ),
      });
      await symlink(ffmpeg, link);
      expect((await later.find("ffmpeg")).path).toBe(link);
      expect((await later.run("ffmpeg", ["-version"])).stdout).toMatch(/^ffmpeg version/);
    } finally {
      await later.close();
    }
  });
});

describe("the tool process's life", () => {
  it("a crash fails the runs in flight with a clear error, kills their tools, and the next run gets a new one", async () => {
    const runner = new ToolRunner(new URL("./support/crashing-tool-process.js", import.meta.url));
    try {
      const m = mark();
      const started = firstLine();
      const long = runner.run(ffmpeg, endless(m), { onStdoutLine: started.onStdoutLine });
      const caught = long.catch((e: unknown) => e);
      await started.seen;
      const crash = runner.run(ffmpeg, ["--crash-the-process"]);
      await expect(crash).rejects.toThrow(ToolHostError);
      const err = await caught;
      expect(err).toBeInstanceOf(ToolHostError);
      expect((err as Error).message).toBe(
        "the media tool process stopped (it exited with code 1: Error: the process crashed on purpose) while ffmpeg ran",
      );
      await until(async () => (await processesWith(m)).length === 0, "the orphaned ffmpeg is killed");
      expect((await runner.run(ffmpeg, ["-hide_banner", "-version"])).stdout).toMatch(/^ffmpeg version/);
    } finally {
      await runner.close();
    }
  });

  it("services.close() ends the runs in flight and the tool process; a later run starts a new one", async () => {
    const env = await makeTestEnv({ PATH: process.env.PATH });
    try {
      const m = mark();
      const started = firstLine();
      const long = env.services.media.run("ffmpeg", endless(m), { onStdoutLine: started.onStdoutLine });
      const caught = long.catch((e: unknown) => e);
      await started.seen;
      await env.services.close();
      const err = await caught;
      expect(err).toBeInstanceOf(ToolHostError);
      expect((err as Error).message).toBe("the media tools were closed while ffmpeg ran");
      await until(async () => (await processesWith(m)).length === 0, "the closed process's ffmpeg is killed");
      expect((await env.services.media.run("ffprobe", ["-version"])).stdout).toMatch(/^ffprobe version/);
    } finally {
      await env.cleanup();
    }
  });

  it.runIf(process.platform === "linux")(
    "a service that dies takes its tool process and the tools it ran with it",
    async () => {
      const m = mark();
      const tools = pathToFileURL(path.join(import.meta.dirname, "../lib/media/tools.ts")).href;
      const script = [
        `import { createMediaTools } from ${JSON.stringify(tools)};`,
        "const media = createMediaTools(() => process.env);",
        // The marker comes in the environment, so only the tool's command line holds it.
        `const args = ${JSON.stringify(endless("MARK"))}.map((a) => a.replace("MARK", process.env.MARK));`,
        'await media.run("ffmpeg", args, { onStdoutLine: () => console.log("working") });',
      ].join("\n");
      const service = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        stdio: ["ignore", "pipe", "inherit"],
        env: { ...process.env, MARK: m },
      });
      await new Promise<void>((resolve, reject) => {
        service.stdout?.once("data", () => resolve());
        service.once("exit", (code) => reject(new Error(`the service exited first (${code})`)));
      });
      const [tool] = await processesWith(m);
      const host = Number(/^PPid:\s+(\d+)$/m.exec(await readFile(`/proc/${tool}/status`, "utf8"))?.[1]);
      expect(await readFile(`/proc/${host}/cmdline`, "utf8")).toContain("tool-process.js");
      service.kill("SIGKILL");
      await until(async () => (await processesWith(m)).length === 0, "the dead service's ffmpeg is killed");
      await until(
        async () =>
          !(await readFile(`/proc/${host}/cmdline`, "utf8").catch(() => "")).includes("tool-process.js"),
        "the dead service's tool process has ended",
      );
    },
  );
});
