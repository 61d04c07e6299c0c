#!/usr/bin/env node
// Launcher: serves only the routes named as arguments (runtime/function-main.ts), from the build in dist/ when it is
// current, else compiled on the fly.
import { load } from "../scripts/launch.js";

try {
  const { main } = await load("runtime/function-main", "episode-studio function");
  await main(process.argv.slice(2), process.env);
} catch (err) {
  process.stderr.write(`episode-studio function: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
}
