// What the process benches share: a temp show holding the starter episode, the environment of a server over it,
// and a child process started until it prints the address it listens on.
import { type ChildProcess, spawn } from "node:child_process";
import { cp, mkdir, mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface StarterShow {
  dir: string;
  ep: string;
  /** STUDIO_HOME, STUDIO_ROOTS, a quiet log and the loopback host: a server over this show. */
  env: Record<string, string>;
}

/** A temp folder with `shows/show/ep01` holding the shipped starter series config and script. */
export async function starterShow(name: string): Promise<StarterShow> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `studio-bench-${name}-`));
  const shows = path.join(dir, "shows");
  const ep = path.join(shows, "show", "ep01");
  await mkdir(ep, { recursive: true });
  const starter = path.join(root, "lib", "episode", "starter");
  await cp(path.join(starter, "series.json"), path.join(ep, "series.json"));
  await cp(path.join(starter, "starter.md"), path.join(ep, "ep01.md"));
  const env = {
    STUDIO_HOME: path.join(dir, "home"),
    STUDIO_ROOTS: shows,
    STUDIO_LOG: "warn",
    STUDIO_HOST: "127.0.0.1",
  };
  return { dir, ep, env };
}

/** `node <args>` from the repository, resolved once it prints "listening on <url>/studio/". */
export async function startListening(
  args: string[],
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+?)\/studio\//.exec(out);
      if (m) resolve(m[1]);
    });
    child.stderr?.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.once("exit", (code) => reject(new Error(`${args[0]} exited with ${code}:\n${out}`)));
  });
  return { url, child };
}
