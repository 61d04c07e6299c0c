#!/usr/bin/env node
// Launcher for the demo: runs the build in dist/ when it is current, else compiles scripts/demo.ts on the fly.
import { load } from "./launch.js";

try {
  const { demo } = await load("scripts/demo", "demo");
  await demo(process.argv.slice(2), process.env);
} catch (err) {
  process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
