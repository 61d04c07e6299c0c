#!/usr/bin/env node
// Launcher: runs the build in dist/ when it is current, else compiles runtime/serve.ts on the fly (scripts/launch.js).
import { load } from "../scripts/launch.js";

try {
  const { main } = await load("runtime/serve", "episode-studio");
  await main(process.argv.slice(2), process.env);
} catch (err) {
  process.stderr.write(`episode-studio: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
}
