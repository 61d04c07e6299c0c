// What a command is (its name, arguments, flags and body) and what every body is handed; the one place an `<ep>`
// argument becomes the absolute folder path the routes take.
import path from "node:path";
import type { Logger } from "../lib/context.ts";
import type { ArgSpec, Parsed } from "./args.ts";
import type { Client } from "./client.ts";
import type { Io } from "./output.ts";

export interface CommandContext {
  io: Io;
  env: Record<string, string | undefined>;
  cwd: string;
  log: Logger;
  /** The client for this command: a running server, else this process (with a worker pool when it queues work). */
  connect(opts: { runJobs: boolean }): Promise<Client>;
}

export interface Command {
  /** One or two words: "build", "refs missing". */
  name: string;
  summary: string;
  /** What the help adds under the usage line. */
  details?: string;
  spec: ArgSpec;
  /** The exit code, or null for a command that keeps running (the server, a worker). */
  run(args: Parsed, ctx: CommandContext): Promise<number | null>;
}

/** The `<ep>` argument as the routes take it: a path relative to the working folder made absolute. */
export function episodeArg(args: Parsed, ctx: CommandContext): string {
  return path.resolve(ctx.cwd, args.positionals.ep);
}

/** Run `body` with a client and always let go of it, on Ctrl-C too (exit 130, saying what becomes of the jobs). */
export async function withClient<T>(
  ctx: CommandContext,
  opts: { runJobs: boolean },
  body: (client: Client) => Promise<T>,
): Promise<T> {
  const client = await ctx.connect(opts);
  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= client.close();
    return closing;
  };
  const interrupted = () => {
    ctx.io.err(`\ninterrupted: ${client.leftBehind}\n`);
    void close().finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupted);
  if (!ctx.io.json) ctx.io.err(`(${client.where})\n`);
  try {
    return await body(client);
  } finally {
    process.off("SIGINT", interrupted);
    await close();
  }
}

export const EP = { positionals: ["ep"] } as const;

export const PASS_FLAG = {
  pass: { value: true, choices: ["proxy", "final"], help: "the pass (default proxy)" },
} as const;
