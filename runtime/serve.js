#!/usr/bin/env node
// Launcher: registers tsx so the TypeScript tree runs as is, then starts runtime/serve.ts.
import { register } from "tsx/esm/api";

register();
const { main } = await import("./serve.ts");
try {
  await main(process.argv.slice(2), process.env);
} catch (err) {
  process.stderr.write(`episode-studio: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
}
