// A plain stderr logger: one line per message, extra fields as JSON, stacks on their own lines.
import type { Logger } from "../lib/context.ts";

export function consoleLogger(quiet = false): Logger {
  const write = (level: string, message: string, extra?: Record<string, unknown>) => {
    if (quiet && level === "info") return;
    const { stack, ...rest } = extra ?? {};
    const tail = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : "";
    process.stderr.write(`${new Date().toISOString()} ${level} ${message}${tail}\n`);
    if (typeof stack === "string") process.stderr.write(`${stack}\n`);
  };
  return {
    info: (m, e) => write("info", m, e),
    warn: (m, e) => write("warn", m, e),
    error: (m, e) => write("error", m, e),
  };
}
