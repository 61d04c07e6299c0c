#!/usr/bin/env node
// Launcher: registers tsx so the TypeScript tree runs as is, then starts a worker-only host (workers/main.ts).
import { register } from "tsx/esm/api";

register();
const { main } = await import("./main.ts");
try {
  await main(process.env);
} catch (err) {
  process.stderr.write(`episode-studio worker: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
}
