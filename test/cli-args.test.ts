// The command line's argument parser, each command's help and the STUDIO_URL reading, called directly (the
// process-level behaviour is in cli.test.ts).
import { describe, expect, it } from "vitest";
import { CliError, parseArgs } from "../cli/args.ts";
import { COMMANDS } from "../cli/commands/index.ts";
import { serverBase } from "../cli/connect.ts";
import { commandHelp, overallHelp } from "../cli/main.ts";

const spec = {
  positionals: ["ep"],
  flags: {
    pass: { value: true, choices: ["proxy", "final"], help: "" },
    shots: { value: true, help: "" },
    redo: { value: false, help: "" },
  },
};

function refusal(argv: string[]): CliError {
  try {
    parseArgs(argv, spec);
  } catch (err) {
    if (err instanceof CliError) return err;
    throw err;
  }
  throw new Error(`${argv.join(" ")} was accepted`);
}

describe("parseArgs", () => {
  it("reads positionals and flags in any order, with = or a separate value", () => {
    const a = parseArgs(["--pass=final", "/shows/ep01", "--shots", "sh010,sh020", "--redo", "--json"], spec);
    expect(a.positionals).toEqual({ ep: "/shows/ep01" });
    expect(a.flags).toMatchObject({ pass: "final", shots: "sh010,sh020", redo: true });
    expect(a.json).toBe(true);
    expect(parseArgs(["--", "--odd-folder"], spec).positionals.ep).toBe("--odd-folder");
  });

  it("asks for help with --help or -h, missing arguments then not required", () => {
    expect(parseArgs(["-h"], spec).help).toBe(true);
    expect(parseArgs(["--help"], spec).help).toBe(true);
  });

  it("refuses what it does not expect with exit 2 and says what was expected", () => {
    const cases: [string[], string][] = [
      [[], "missing <ep>"],
      [["a", "b"], 'unexpected argument "b"'],
      [["a", "--speed", "2"], "unknown option --speed (options: --pass, --shots, --redo, --json, --help)"],
      [["a", "--pass"], "--pass needs a value"],
      [["a", "--shots", "--redo"], "--shots needs a value"],
      [["a", "--pass", "rough"], '--pass must be one of proxy, final; got "rough"'],
      [["a", "--redo=yes"], "--redo takes no value"],
      [["a", "-x"], "unknown option -x"],
    ];
    for (const [argv, message] of cases) {
      const err = refusal(argv);
      expect(err.code, argv.join(" ")).toBe(2);
      expect(err.message).toContain(message);
    }
  });
});

describe("help", () => {
  it("names every command, and each command's help shows its usage, options and --json", () => {
    const top = overallHelp();
    for (const c of COMMANDS) {
      expect(top).toContain(c.name);
      const help = commandHelp(c);
      expect(help).toContain(`usage: studio ${c.name}`);
      expect(help).toContain("--json");
      expect(help).toContain("--help");
      for (const flag of Object.keys(c.spec.flags)) expect(help).toContain(`--${flag}`);
    }
  });
});

describe("STUDIO_URL", () => {
  it("takes a server's address with or without /studio/, and refuses anything else with exit 2", () => {
    expect(serverBase("http://127.0.0.1:8190")).toBe("http://127.0.0.1:8190");
    expect(serverBase("http://127.0.0.1:8190/studio/")).toBe("http://127.0.0.1:8190");
    expect(serverBase("https://studio.example/api/studio")).toBe("https://studio.example");
    expect(serverBase("http://host:1/prefix/studio")).toBe("http://host:1/prefix");
    for (const bad of ["ftp://x", "not a url", "127.0.0.1:8190"]) {
      let err: unknown;
      try {
        serverBase(bad);
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(CliError);
      expect((err as CliError).code).toBe(2);
    }
  });
});
