// Starts a real `node runtime/serve.js` on a loopback port chosen by the OS and waits for its URL.
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** `port` 0 (the default) lets the OS choose; a test restarting a server passes the port it had. */
export async function startServer(env: Record<string, string>, port = 0): Promise<ServerProcess> {
  const child = spawn(process.execPath, [path.join(root, "runtime", "serve.js"), "--port", String(port)], {
    cwd: root,
    env: { ...process.env, ...env, STUDIO_HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server did not start:\n${out}`));
    }, 20_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+?)\/studio\//.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (c: Buffer) => {
      out += c.toString();
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}`));
    });
  });
  return { url, child, output: () => out, exited };
}
