// npm run bench: runs every benchmark and prints its figures; nothing here can fail a build.
import { run as animaticBench } from "./animatic.ts";
import { run as assembleBench } from "./assemble.ts";
import { run as buildBench } from "./build.ts";
import { run as clusterBench } from "./cluster.ts";
import { run as episodeStatusBench } from "./episode-status.ts";
import { run as jobstoreBench } from "./jobstore.ts";
import { run as masterBench } from "./master.ts";
import { run as pageBench } from "./page.ts";
import { run as peaksBench } from "./peaks.ts";
import { run as queueBench } from "./queue.ts";
import { run as refsBench } from "./refs.ts";
import { run as refsGenerateBench } from "./refs-generate.ts";
import { run as startupBench } from "./startup.ts";
import { run as throughputBench } from "./throughput.ts";
import { run as underLoadBench } from "./under-load.ts";

const benches: [string, () => Promise<void>][] = [
  ["build", buildBench],
  ["episode-status", episodeStatusBench],
  ["assemble", assembleBench],
  ["master", masterBench],
  ["animatic", animaticBench],
  ["page", pageBench],
  ["peaks", peaksBench],
  ["queue", queueBench],
  ["refs", refsBench],
  ["refs-generate", refsGenerateBench],
  ["startup", startupBench],
  ["throughput", throughputBench],
  ["under-load", underLoadBench],
  ["jobstore", jobstoreBench],
  ["cluster", clusterBench],
];
const only = process.argv[2];
console.log(`node ${process.version}, ${(await import("node:os")).cpus().length} cores`);
for (const [name, run] of benches) {
  if (only && only !== name) continue;
  await run();
}
