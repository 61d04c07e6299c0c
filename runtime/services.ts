// Builds the process-wide services (settings folder, roles, version, log, events) from the environment.
import { readFile } from "node:fs/promises";
import { studioHome } from "../lib/config/home.ts";
import type { EventSink, Logger, Services } from "../lib/context.ts";

export const DEFAULT_ROLES = ["api", "worker"];

export function parseRoles(text: string | undefined): string[] {
  const roles = (text ?? "")
    .split(",")
    .map((r) => r.trim().toLowerCase())
    .filter(Boolean);
  const bad = roles.filter((r) => r !== "api" && r !== "worker");
  if (bad.length) throw new Error(`STUDIO_ROLES: unknown role ${bad.join(", ")} (use api, worker)`);
  return roles.length ? [...new Set(roles)] : DEFAULT_ROLES;
}

let versionText: Promise<string> | undefined;
export function packageVersion(): Promise<string> {
  versionText ??= readFile(new URL("../package.json", import.meta.url), "utf8").then(
    (t) => (JSON.parse(t) as { version: string }).version,
  );
  return versionText;
}

export async function createServices(opts: {
  env: Record<string, string | undefined>;
  log: Logger;
  events: EventSink;
}): Promise<Services> {
  return {
    home: studioHome(opts.env),
    env: opts.env,
    roles: parseRoles(opts.env.STUDIO_ROLES),
    version: await packageVersion(),
    log: opts.log,
    events: opts.events,
    now: () => new Date(),
  };
}
