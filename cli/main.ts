// The `studio` command line: finds the command in the table, parses its arguments, runs it against a running server
// or this process, and turns the outcome into an exit code (0 ok, 1 the work failed, 2 bad usage).
import type { Logger } from "../lib/context.ts";
import { consoleLogger, logLevel } from "../runtime/log.ts";
import { CliError, COMMON_FLAGS, type FlagSpec, parseArgs, usageError } from "./args.ts";
import type { Command, CommandContext } from "./command.ts";
import { COMMANDS } from "./commands/index.ts";
import { connect } from "./connect.ts";
import { processIo } from "./output.ts";

const NAME = "studio";

export function overallHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => usageOf(c).length));
  return [
    `usage: ${NAME} <command> [options]`,
    "",
    "commands:",
    ...COMMANDS.map((c) => `  ${usageOf(c).padEnd(width)}  ${c.summary}`),
    "",
    `Every command takes --help and --json. <ep> is an episode folder inside a root (STUDIO_ROOTS).`,
    "With a server running on this machine (or STUDIO_URL set) the work goes to its queue; else it runs here.",
    "Exit codes: 0 ok, 1 the work failed, 2 bad usage.",
    "",
  ].join("\n");
}

function usageOf(c: Command): string {
  return [c.name, ...c.spec.positionals.map((p) => `<${p}>`)].join(" ");
}

export function commandHelp(c: Command): string {
  const flags: FlagSpec = { ...c.spec.flags, ...COMMON_FLAGS };
  const lines = Object.entries(flags).map(([name, f]) => {
    const value = f.value ? (f.choices ? ` ${f.choices.join("|")}` : " <value>") : "";
    return [`  --${name}${value}`, f.help] as const;
  });
  const width = Math.max(...lines.map(([l]) => l.length));
  return [
    `usage: ${NAME} ${usageOf(c)} [options]`,
    "",
    `${c.summary[0].toUpperCase()}${c.summary.slice(1)}.`,
    ...(c.details ? [c.details] : []),
    "",
    "options:",
    ...lines.map(([l, h]) => `${l.padEnd(width)}  ${h}`),
    "",
  ].join("\n");
}

/** The command `argv` names (two words first) and the arguments left after its name. */
function findCommand(argv: readonly string[]): { command: Command; rest: readonly string[] } {
  const two = `${argv[0]} ${argv[1]}`;
  const byTwo = COMMANDS.find((c) => c.name === two);
  if (byTwo) return { command: byTwo, rest: argv.slice(2) };
  const byOne = COMMANDS.find((c) => c.name === argv[0]);
  if (byOne) return { command: byOne, rest: argv.slice(1) };
  const group = COMMANDS.filter((c) => c.name.startsWith(`${argv[0]} `)).map((c) => c.name);
  if (group.length) {
    throw usageError(
      `${argv[0]}: ${argv[1] === undefined ? "missing" : `unknown`} subcommand${argv[1] === undefined ? "" : ` "${argv[1]}"`} (use ${group.join(", ")})`,
    );
  }
  throw usageError(`unknown command "${argv[0]}" (commands: ${COMMANDS.map((c) => c.name).join(", ")})`);
}

/** Run the command line; the exit code, or null when the command keeps running (serve, worker). */
export async function main(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  cwd: string = process.cwd(),
): Promise<number | null> {
  const wantsJson = argv.includes("--json");
  const io = processIo(wantsJson);
  let name = NAME;
  try {
    if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
      const text = overallHelp();
      if (argv.length === 0) {
        io.err(text);
        return 2;
      }
      io.out(text);
      return 0;
    }
    const { command, rest } = findCommand(argv);
    name = `${NAME} ${command.name}`;
    const args = parseArgs(rest, command.spec);
    if (args.help) {
      io.out(commandHelp(command));
      return 0;
    }
    const log: Logger = consoleLogger(env.STUDIO_LOG ? logLevel(env.STUDIO_LOG) : "warn");
    const ctx: CommandContext = {
      io: processIo(args.json),
      env,
      cwd,
      log,
      connect: (opts) => connect(env, log, opts),
    };
    return await command.run(args, ctx);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // A variable of the environment that cannot be read is a usage problem too (STUDIO_LOG: "x" is not a level).
    const code = err instanceof CliError ? err.code : /^STUDIO_\w+:/.test(message) ? 2 : 1;
    io.err(`${name}: ${message}\n`);
    return code;
  }
}
