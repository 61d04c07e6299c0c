// The command line's one argument parser: named flags (`--name value`, `--name=value`, booleans bare), positional
// arguments in a fixed order, and a usage error (exit 2) naming what was expected for anything else.

export type FlagSpec = Record<string, { value: boolean; choices?: readonly string[]; help: string }>;

export interface ArgSpec {
  /** Names of the positional arguments, all required, in order. */
  positionals: readonly string[];
  flags: FlagSpec;
}

export interface Parsed {
  positionals: Record<string, string>;
  /** A flag's value, `true` for a bare boolean flag; absent when not given. */
  flags: Record<string, string | true>;
  json: boolean;
  help: boolean;
}

/** A failure with the exit code it means: 1 the work failed, 2 the command was used wrongly. */
export class CliError extends Error {
  readonly code: 1 | 2;
  constructor(code: 1 | 2, message: string) {
    super(message);
    this.code = code;
  }
}

export const usageError = (message: string) => new CliError(2, message);

/** Flags every command takes. */
export const COMMON_FLAGS: FlagSpec = {
  json: { value: false, help: "print one JSON document on stdout (progress off)" },
  help: { value: false, help: "this help" },
};

export function parseArgs(argv: readonly string[], spec: ArgSpec): Parsed {
  const flags: Record<string, string | true> = {};
  const rest: string[] = [];
  const all = { ...spec.flags, ...COMMON_FLAGS };
  const known = Object.keys(all)
    .map((f) => `--${f}`)
    .join(", ");
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "-h") {
      flags.help = true;
      continue;
    }
    if (arg === "--") {
      rest.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      rest.push(arg);
      continue;
    }
    const m = /^--([a-z][a-z-]*)(?:=(.*))?$/s.exec(arg);
    const name = m?.[1];
    const def = name === undefined ? undefined : all[name];
    if (!m || !name || !def) throw usageError(`unknown option ${arg} (options: ${known})`);
    if (!def.value) {
      if (m[2] !== undefined) throw usageError(`--${name} takes no value`);
      flags[name] = true;
      continue;
    }
    const value = m[2] ?? argv[++i];
    if (value === undefined || (m[2] === undefined && value.startsWith("--")))
      throw usageError(`--${name} needs a value`);
    if (def.choices && !def.choices.includes(value))
      throw usageError(`--${name} must be one of ${def.choices.join(", ")}; got "${value}"`);
    flags[name] = value;
  }
  const help = flags.help === true;
  const positionals: Record<string, string> = {};
  if (!help) {
    if (rest.length > spec.positionals.length) {
      throw usageError(`unexpected argument "${rest[spec.positionals.length]}"`);
    }
    spec.positionals.forEach((name, i) => {
      const value = rest[i];
      if (value === undefined || value === "") throw usageError(`missing <${name}>`);
      positionals[name] = value;
    });
  }
  return { positionals, flags, json: flags.json === true, help };
}

/** A flag's text value, or undefined when not given. */
export function textFlag(parsed: Parsed, name: string): string | undefined {
  const v = parsed.flags[name];
  return typeof v === "string" ? v : undefined;
}
