#!/usr/bin/env node
// Launcher for the demo: registers tsx, then runs scripts/demo.ts.
import { register } from "tsx/esm/api";

register();
const { demo } = await import("./demo.ts");
try {
  await demo(process.argv.slice(2), process.env);
} catch (err) {
  process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
