#!/usr/bin/env node
// Launcher: runs the build in dist/ when it is current, else compiles workers/main.ts on the fly (scripts/launch.js).
import { load } from "../scripts/launch.js";

try {
  const { main } = await load("workers/main", "episode-studio worker");
  await main(process.env);
} catch (err) {
  process.stderr.write(`episode-studio worker: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
}
