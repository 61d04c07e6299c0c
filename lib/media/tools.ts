// Finds ffmpeg and ffprobe (FFMPEG_PATH / FFPROBE_PATH, else PATH) and reads their versions, once per process.
import { access, constants } from "node:fs/promises";
import path from "node:path";
import { errorMessage } from "../store/json-guards.ts";

export type ToolInfo = { path: string; version: string } | { path: null; error: string };

const cache = new Map<string, Promise<ToolInfo>>();

/** Locate a media tool; the answer is cached because PATH does not change under a running server. */
export function findTool(
  name: "ffmpeg" | "ffprobe",
  env: Record<string, string | undefined>,
): Promise<ToolInfo> {
  const override = env[name === "ffmpeg" ? "FFMPEG_PATH" : "FFPROBE_PATH"];
  const key = `${name}\0${override ?? ""}\0${env.PATH ?? ""}`;
  let found = cache.get(key);
  if (!found) {
    found = locate(name, override, env.PATH ?? "");
    cache.set(key, found);
  }
  return found;
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
