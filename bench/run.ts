// npm run bench: runs every benchmark and prints its figures; nothing here can fail a build.
import { run as buildBench } from "./build.ts";

const benches: [string, () => Promise<void>][] = [["build", buildBench]];
const only = process.argv[2];
console.log(`node ${process.version}, ${(await import("node:os")).cpus().length} cores`);
for (const [name, run] of benches) {
  if (only && only !== name) continue;
  await run();
}
