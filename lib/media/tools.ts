// Finds ffmpeg and ffprobe (FFMPEG_PATH / FFPROBE_PATH, else PATH) and reads their versions, once per services.
import { access, constants } from "node:fs/promises";
import path from "node:path";
import { errorMessage } from "../store/json-guards.ts";

export type ToolInfo = { path: string; version: string } | { path: null; error: string };

type Env = Record<string, string | undefined>;

/** ffmpeg and ffprobe for one environment, each looked up once (PATH does not change under a running server). */
export interface MediaTools {
  find(name: "ffmpeg" | "ffprobe"): Promise<ToolInfo>;
}

/** The tools of `env` (read on each look-up, so services whose env is swapped in a test follow it). */
export function createMediaTools(env: () => Env): MediaTools {
  const found = new Map<string, Promise<ToolInfo>>();
  return {
    find(name) {
      const e = env();
      const override = e[name === "ffmpeg" ? "FFMPEG_PATH" : "FFPROBE_PATH"];
      const key = `${name}\0${override ?? ""}\0${e.PATH ?? ""}`;
      let hit = found.get(key);
      if (!hit) {
        hit = locate(name, override, e.PATH ?? "");
        found.set(key, hit);
      }
      return hit;
    },
  };
}

/** Locate a media tool once, without remembering it (a one-off caller; services hold `MediaTools`). */
export function findTool(name: "ffmpeg" | "ffprobe", env: Env): Promise<ToolInfo> {
  return locate(name, env[name === "ffmpeg" ? "FFMPEG_PATH" : "FFPROBE_PATH"], env.PATH ?? "");
}

// The binaries shipped inside npm packages (optional dependencies), so `npm ci` alone is enough on a fresh machine.
const SHIPPED: Record<string, string> = {
  ffmpeg: "@ffmpeg-installer/ffmpeg",
  ffprobe: "@ffprobe-installer/ffprobe",
};

async function shippedBinary(name: string): Promise<string | null> {
  try {
    const mod = (await import(SHIPPED[name])) as { default?: { path?: string }; path?: string };
    return mod.default?.path ?? mod.path ?? null;
  } catch {
    return null;
  }
}

async function locate(name: string, override: string | undefined, searchPath: string): Promise<ToolInfo> {
  const { execa } = await import("execa");
  const onPath = searchPath
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, process.platform === "win32" ? `${name}.exe` : name));
  const shipped = override ? null : await shippedBinary(name);
  const candidates = override ? [override] : shipped ? [...onPath, shipped] : onPath;
  for (const file of candidates) {
    if (!(await isExecutable(file))) continue;
    try {
      const { stdout } = await execa(file, ["-hide_banner", "-version"], { timeout: 10_000 });
      const match = /version\s+(\S+)/.exec(stdout);
      return { path: file, version: match ? match[1] : stdout.split("\n")[0] };
    } catch (err) {
      return { path: null, error: `${file} did not run: ${errorMessage(err).split("\n")[0]}` };
    }
  }
  return {
    path: null,
    error: override
      ? `${override} (from ${name === "ffmpeg" ? "FFMPEG_PATH" : "FFPROBE_PATH"}) is not an executable file`
      : `${name} is not on PATH and no shipped binary was installed; install ffmpeg (e.g. apt-get install -y ffmpeg), run npm ci, or set ${name === "ffmpeg" ? "FFMPEG_PATH" : "FFPROBE_PATH"}`,
  };
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
