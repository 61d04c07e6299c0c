#!/usr/bin/env node
// Launcher of the `studio` command line: runs the build in dist/ when it is current, else compiles cli/main.ts on the
// fly (scripts/launch.js); the command's exit code becomes the process's.
import { load } from "../scripts/launch.js";

try {
  const { main } = await load("cli/main", "studio");
  const code = await main(process.argv.slice(2), process.env);
  if (code !== null) {
    process.exitCode = code;
    // Everything is closed by now; a handle some library keeps open must not hold the shell.
    setTimeout(() => process.exit(code), 3000).unref();
  }
} catch (err) {
  process.stderr.write(`studio: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
}
