// The running-server record `<home>/server.json` ({url, pid, started}): a server writes it once it listens and
// removes it when it stops, so a command line on this machine sends its work to that server's queue.
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { writeJsonAtomic } from "../lib/store/atomic.ts";

export const serverRecord = z.object({
  url: z.url({ protocol: /^https?$/ }),
  pid: z.int().positive(),
  started: z.string(),
});

export type ServerRecord = z.infer<typeof serverRecord>;

export function serverRecordPath(home: string): string {
  return path.join(home, "server.json");
}

/** The address a client on this machine reaches a server at: an any-address bind is reached on loopback. */
export function reachableUrl(host: string, port: number): string {
  const name = host === "0.0.0.0" ? "127.0.0.1" : host === "::" || host === "[::]" ? "::1" : host;
  return `http://${name.includes(":") ? `[${name.replace(/^\[|\]$/g, "")}]` : name}:${port}`;
}

export async function writeServerRecord(home: string, record: ServerRecord): Promise<void> {
  await writeJsonAtomic(serverRecordPath(home), serverRecord.parse(record));
}

/** The record, or null when there is none or it is not one (a half-made or foreign file is ignored, not trusted). */
export async function readServerRecord(home: string): Promise<ServerRecord | null> {
  let text: string;
  try {
    text = await readFile(serverRecordPath(home), "utf8");
  } catch {
    return null;
  }
  try {
    const parsed = serverRecord.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Remove the record if it is still this process's (a newer server on the same home keeps its own). */
export async function removeServerRecord(home: string, pid: number): Promise<void> {
  const record = await readServerRecord(home);
  if (record?.pid === pid) await rm(serverRecordPath(home), { force: true });
}
