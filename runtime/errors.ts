// Turns anything a handler throws into the flat JSON error body; unexpected errors are logged, never leaked.

import type { Logger } from "../lib/context.ts";
import { StudioError } from "../lib/errors.ts";

export interface ErrorReply {
  status: number;
  body: Record<string, unknown>;
}

export function errorReply(err: unknown, log: Logger, where: string): ErrorReply {
  if (err instanceof StudioError) return { status: err.status, body: err.body() };
  const e = err instanceof Error ? err : new Error(String(err));
  log.error(`unexpected error in ${where}`, { stack: e.stack ?? e.message });
  const firstLine = (e.message || e.name).split("\n")[0].slice(0, 300);
  return { status: 500, body: { error: `internal error in ${where}: ${firstLine}` } };
}
