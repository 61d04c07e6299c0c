// Starts a real `node runtime/serve.js` on a loopback port chosen by the OS and waits for its URL.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { outputMatch, type Watched, watch } from "./processes.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface ServerProcess extends Watched {
  url: string;
}

/** `port` 0 (the default) lets the OS choose; a test restarting a server passes the port it had. */
export async function startServer(env: Record<string, string>, port = 0): Promise<ServerProcess> {
  const p = watch(
    spawn(process.execPath, [path.join(root, "runtime", "serve.js"), "--port", String(port)], {
      cwd: root,
      env: { ...process.env, ...env, STUDIO_HOST: "127.0.0.1" },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  try {
    const [, url] = await outputMatch(p, /listening on (http:\/\/\S+?)\/studio\//, {
      what: "server",
      before: "listening",
      ms: 20_000,
    });
    return { ...p, url };
  } catch (err) {
    // A server that never said where it listens is of no use to the test: none is left running.
    p.child.kill("SIGKILL");
    throw err;
  }
}
