// The media tools of a process: finds ffmpeg, ffprobe and espeak-ng (FFMPEG_PATH / FFPROBE_PATH / ESPEAK_NG_PATH, else
// PATH) and reads their versions once per services, and runs them from a small helper process, never from the
// service's own process.
import { access, constants } from "node:fs/promises";
import path from "node:path";
import { StudioError } from "../errors.ts";
import { errorMessage } from "../store/json-guards.ts";
import { type ToolResult, ToolRunner, type ToolRunOptions } from "./tool-runner.ts";

export type ToolInfo = { path: string; version: string } | { path: null; error: string };

type Env = Record<string, string | undefined>;

export type ToolName = "ffmpeg" | "ffprobe" | "espeak-ng";

interface ToolFacts {
  /** The variable that names the binary instead of PATH. */
  variable: string;
  /** Arguments that print the version on stdout. */
  versionArgs: string[];
  /** How to install it, for the error that says it is missing. */
  install: string;
}

const TOOLS: Readonly<Record<ToolName, ToolFacts>> = {
  ffmpeg: {
    variable: "FFMPEG_PATH",
    versionArgs: ["-hide_banner", "-version"],
    install: "install ffmpeg (e.g. apt-get install -y ffmpeg), run npm ci, or set FFMPEG_PATH",
  },
  ffprobe: {
    variable: "FFPROBE_PATH",
    versionArgs: ["-hide_banner", "-version"],
    install: "install ffmpeg (e.g. apt-get install -y ffmpeg), run npm ci, or set FFPROBE_PATH",
  },
  // The built-in voices: optional, so its absence only turns speech into silence.
  "espeak-ng": {
    variable: "ESPEAK_NG_PATH",
    versionArgs: ["--version"],
    install: "install espeak-ng (e.g. apt-get install -y espeak-ng) or set ESPEAK_NG_PATH",
  },
};

/** ffmpeg, ffprobe and espeak-ng for one environment, each found once (PATH does not change under a running server). */
export interface MediaTools {
  /** Where the tool is and its version, or why it is missing (a missing tool is looked for again next time). */
  find(name: ToolName): Promise<ToolInfo>;
  /**
   * Run the tool with `args` from the tool process. A missing tool is a 500 naming what to install; a failing one
   * rejects with ToolRunError carrying the end of its log; a stopped one with ToolCanceled.
   */
  run(name: ToolName, args: readonly string[], opts?: ToolRunOptions): Promise<ToolResult>;
  /**
   * What a tool said about a file, remembered while the file's `stamp` (size, mtime, inode) is unchanged: `make`
   * runs once per key and stamp, a failure is not remembered. Bounded: the oldest answers are forgotten first.
   */
  remember<T>(key: string, stamp: string, make: () => Promise<T>): Promise<T>;
  /** Stop the tools running and end the tool process (a later run starts a new one). */
  close(): Promise<void>;
}

/** How many answers `remember` keeps (a few per take: far more than the takes being finished at once). */
const REMEMBERED = 512;

/** The tools of `env` (read on each look-up, so services whose env is swapped in a test follow it). */
export function createMediaTools(env: () => Env): MediaTools {
  const found = new Map<string, Promise<ToolInfo>>();
  const runner = new ToolRunner();
  const answers = new Map<string, { stamp: string; value: Promise<unknown> }>();
  const tools: MediaTools = {
    find(name) {
      const e = env();
      const override = e[TOOLS[name].variable];
      const key = `${name}\0${override ?? ""}\0${e.PATH ?? ""}`;
      let hit = found.get(key);
      if (!hit) {
        const looked = locate(runner, name, override, e.PATH ?? "");
        hit = looked;
        found.set(key, looked);
        // Installing the tool must not need a restart to be seen.
        void looked.then((info) => {
          if (info.path === null && found.get(key) === looked) found.delete(key);
        });
      }
      return hit;
    },
    async run(name, args, opts) {
      const info = await tools.find(name);
      if (info.path === null)
        throw new StudioError(500, name === "espeak-ng" ? info.error : `no media tools: ${info.error}`);
      return runner.run(info.path, args, opts);
    },
    remember<T>(key: string, stamp: string, make: () => Promise<T>): Promise<T> {
      const hit = answers.get(key);
      if (hit && hit.stamp === stamp) return hit.value as Promise<T>;
      const value = make();
      answers.delete(key);
      answers.set(key, { stamp, value });
      if (answers.size > REMEMBERED) answers.delete(answers.keys().next().value as string);
      value.catch(() => {
        if (answers.get(key)?.value === value) answers.delete(key);
      });
      return value;
    },
    close: () => runner.close(),
  };
  return tools;
}

/** Locate a media tool once, without remembering it (a one-off caller; services hold `MediaTools`). */
export async function findTool(name: ToolName, env: Env): Promise<ToolInfo> {
  const tools = createMediaTools(() => env);
  try {
    return await tools.find(name);
  } finally {
    await tools.close();
  }
}

// The binaries shipped inside npm packages (optional dependencies), so `npm ci` alone is enough on a fresh machine.
const SHIPPED: Partial<Record<ToolName, string>> = {
  ffmpeg: "@ffmpeg-installer/ffmpeg",
  ffprobe: "@ffprobe-installer/ffprobe",
};

async function shippedBinary(name: ToolName): Promise<string | null> {
  const pkg = SHIPPED[name];
  if (!pkg) return null;
  try {
    const mod = (await import(pkg)) as { default?: { path?: string }; path?: string };
    return mod.default?.path ?? mod.path ?? null;
  } catch {
    return null;
  }
}

async function locate(
  runner: ToolRunner,
  name: ToolName,
  override: string | undefined,
  searchPath: string,
): Promise<ToolInfo> {
  const onPath = pathCandidates(name, searchPath);
  const shipped = override ? null : await shippedBinary(name);
  const candidates = override ? [override] : shipped ? [...onPath, shipped] : onPath;
  for (const file of candidates) {
    if (!(await isExecutable(file))) continue;
    try {
      const { stdout } = await runner.run(file, TOOLS[name].versionArgs, { timeout: 10_000 });
      // `ffmpeg version 5.1.6 ...`; `eSpeak NG text-to-speech: 1.51  Data at: ...`.
      const match = /version\s+(\S+)/.exec(stdout) ?? /:\s*(\d[\w.+~-]*)/.exec(stdout);
      return { path: file, version: match ? match[1] : stdout.split("\n")[0] };
    } catch (err) {
      return { path: null, error: `${file} did not run: ${errorMessage(err).split("\n")[0]}` };
    }
  }
  return {
    path: null,
    error: override
      ? `${override} (from ${TOOLS[name].variable}) is not an executable file`
      : SHIPPED[name]
        ? `${name} is not on PATH and no shipped binary was installed; ${TOOLS[name].install}`
        : `${name} is not on PATH; ${TOOLS[name].install}`,
  };
}

/** Where a program `name` would be in each folder of a PATH string, in PATH's order. */
export function pathCandidates(name: string, searchPath: string): string[] {
  const exe = process.platform === "win32" && !name.endsWith(".exe") ? `${name}.exe` : name;
  return searchPath
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, exe));
}

/** The first executable `name` in the env's PATH, or null. */
export async function findOnPath(name: string, env: Env): Promise<string | null> {
  for (const file of pathCandidates(name, env.PATH ?? "")) {
    if (await isExecutable(file)) return file;
  }
  return null;
}

export async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
