// Where a process's job store lives, without loading the database client: the launchers and the leftover sweep ask
// before (or without) opening it.
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Services } from "../context.ts";

/** `STUDIO_DB_URL`, else the embedded database `<home>/studio.db`. */
export function jobDatabaseUrl(services: Pick<Services, "home" | "env">): string {
  const explicit = services.env.STUDIO_DB_URL?.trim();
  return explicit || pathToFileURL(path.join(services.home, "studio.db")).href;
}

/** Whether a job database URL names a PostgreSQL server (the store for several machines). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** A job database URL as logs and messages may show it: no password, no query string (it may carry one too). */
export function shownDatabaseUrl(url: string): string {
  if (/^file:/i.test(url)) return url.replace(/\?.*$/, "");
  try {
    const u = new URL(url);
    u.password = "";
    u.search = "";
    return u.href;
  } catch {
    return url.replace(/\/\/[^@/]*@/, "//").replace(/\?.*$/, "");
  }
}
