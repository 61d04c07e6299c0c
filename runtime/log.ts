// A plain stderr logger: one line per message, extra fields as JSON, stacks on their own lines. STUDIO_LOG picks
// how much: `warn` (warnings and errors), `info` (the default: also one line per request and per job), `debug`.
import type { Logger } from "../lib/context.ts";

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The level STUDIO_LOG names; an unknown value is an error at start rather than a silent default. */
export function logLevel(text: string | undefined): LogLevel {
  const value = (text ?? "").trim().toLowerCase();
  if (value === "") return "info";
  const level = LOG_LEVELS.find((l) => l === value);
  if (!level)
    throw new Error(`STUDIO_LOG: "${text}" is not a level (use ${LOG_LEVELS.slice(0, 3).join(", ")})`);
  return level;
}

export function consoleLogger(level: LogLevel = "info", out: (line: string) => void = writeErr): Logger {
  const min = LOG_LEVELS.indexOf(level);
  const write = (at: LogLevel, message: string, extra?: Record<string, unknown>) => {
    if (LOG_LEVELS.indexOf(at) < min) return;
    const { stack, ...rest } = extra ?? {};
    const tail = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : "";
    out(`${new Date().toISOString()} ${at} ${message}${tail}\n`);
    if (typeof stack === "string") out(`${stack}\n`);
  };
  return {
    debug: (m, e) => write("debug", m, e),
    info: (m, e) => write("info", m, e),
    warn: (m, e) => write("warn", m, e),
    error: (m, e) => write("error", m, e),
  };
}

function writeErr(line: string): void {
  process.stderr.write(line);
}
