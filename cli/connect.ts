// Which client a command uses: the server STUDIO_URL names; else the server this machine's record names, when its
// process is alive and it answers; else the handlers in this process.
import { studioHome } from "../lib/config/home.ts";
import type { Logger } from "../lib/context.ts";
import { readServerRecord } from "../runtime/server-record.ts";
import { CliError } from "./args.ts";
import type { Client } from "./client.ts";
import { answers, httpClient } from "./http-client.ts";

export async function connect(
  env: Record<string, string | undefined>,
  log: Logger,
  opts: { runJobs: boolean },
): Promise<Client> {
  const token = env.STUDIO_TOKEN?.trim() || undefined;
  const named = env.STUDIO_URL?.trim();
  if (named) {
    const base = serverBase(named);
    if (!(await answers(base, token))) throw new CliError(1, `STUDIO_URL: no server answers at ${base}`);
    return httpClient(base, token);
  }
  const record = await readServerRecord(studioHome(env));
  if (record && processAlive(record.pid) && (await answers(record.url, token))) {
    return httpClient(record.url, token);
  }
  // Loaded only here: the route table and the services are this path's alone (help and usage errors stay quick).
  const { localClient } = await import("./local-client.ts");
  return localClient(env, log, opts);
}

/** A server's base address from STUDIO_URL: http(s), with or without a trailing `/studio/`. */
export function serverBase(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(2, `STUDIO_URL: "${text}" is not an address (like http://127.0.0.1:8190)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CliError(2, `STUDIO_URL: "${text}" must be an http or https address`);
  }
  const path = url.pathname.replace(/\/+$/, "").replace(/\/(api\/)?studio$/, "");
  return `${url.origin}${path}`;
}

/** Whether a process with this id runs (one of another user's still counts). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
