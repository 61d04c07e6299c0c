// The guard of a Node listener: its own address and the machine's names join the allowed Host names when it listens
// beyond loopback (the names come from the operating system, hence apart from the pure guard).
import os from "node:os";
import { type GuardOptions, guardFromEnv, hostName, isLoopbackHost } from "./guard.ts";

/** The names this machine answers to when listening beyond loopback: its host name and interface addresses. */
function machineNames(listen: string): string[] {
  const names = [hostName(listen)];
  const hostname = os.hostname().toLowerCase();
  if (hostname) names.push(hostname, `${hostname}.local`);
  const wildcard = listen === "0.0.0.0" || listen === "::" || listen === "";
  if (wildcard) {
    for (const addrs of Object.values(os.networkInterfaces())) {
      for (const a of addrs ?? []) names.push(hostName(a.address.replace(/%.*$/, "")));
    }
  }
  return names;
}

/**
 * The guard for a server listening on `listen`: loopback names always; the listening address and the machine's
 * names when it listens beyond loopback; STUDIO_ALLOWED_HOSTS and STUDIO_ALLOWED_ORIGINS add more.
 */
export function guardOptions(env: Record<string, string | undefined>, listen = "127.0.0.1"): GuardOptions {
  return guardFromEnv(env, isLoopbackHost(listen) ? [] : machineNames(listen));
}
