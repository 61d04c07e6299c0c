// Job store benchmark: 200 jobs added, then claimed and finished by one claimer and by four racing claimers (four
// stores on one database in this process: an embedded file's stores take turns on the process's write lock, a
// PostgreSQL store's go to the server at once), on the embedded libsql file and on PostgreSQL.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createJobStore } from "../lib/jobs/store.ts";
import type { JobStore } from "../lib/jobs/types.ts";
import { createLocks } from "../lib/store/lock.ts";
import { startPostgres } from "../test/support/postgres.ts";

const JOBS = 200;
const CLAIMERS = 4;

interface Figures {
  addMs: number;
  oneMs: number;
  racingMs: number;
  claimedTwice: number;
}

async function addJobs(store: JobStore): Promise<number> {
  await store.setParallel("local", 1000);
  const t = performance.now();
  for (let i = 0; i < JOBS; i++) {
    await store.add({ kind: "render", lane: "local", title: `j${i}`, info: {}, payload: { i } });
  }
  return performance.now() - t;
}

/** Claims and finishes until nothing is left; answers the ids it ran. */
async function work(store: JobStore, owner: string): Promise<string[]> {
  const ran: string[] = [];
  for (let job = await store.claim(owner, 60_000); job; job = await store.claim(owner, 60_000)) {
    ran.push(job.id);
    await store.finish(job.id, owner, "succeeded");
  }
  return ran;
}

async function measure(newUrl: () => Promise<string>): Promise<Figures> {
  const locks = createLocks();
  const single = await createJobStore(await newUrl(), { locks });
  const addMs = await addJobs(single);
  let t = performance.now();
  await work(single, "one");
  const oneMs = performance.now() - t;
  await single.close();

  const url = await newUrl();
  const stores = await Promise.all(Array.from({ length: CLAIMERS }, () => createJobStore(url, { locks })));
  await addJobs(stores[0]);
  t = performance.now();
  const ran = (await Promise.all(stores.map((s, i) => work(s, `w${i}`)))).flat();
  const racingMs = performance.now() - t;
  for (const s of stores) await s.close();
  return { addMs, oneMs, racingMs, claimedTwice: ran.length - new Set(ran).size };
}

function report(label: string, f: Figures): void {
  const rate = (ms: number) => Math.round((JOBS / ms) * 1000);
  console.log(
    `  ${label.padEnd(10)} add ${rate(f.addMs)}/s, claim+finish ${rate(f.oneMs)}/s (1 claimer), ${rate(f.racingMs)}/s (${CLAIMERS} racing)${f.claimedTwice ? `, ${f.claimedTwice} CLAIMED TWICE` : ""}`,
  );
}

export async function run(): Promise<void> {
  console.log(`jobstore: ${JOBS} jobs added, then claimed and finished`);
  const dir = await mkdtemp(path.join(os.tmpdir(), "bench-jobstore-"));
  let files = 0;
  try {
    report("libsql", await measure(async () => pathToFileURL(path.join(dir, `jobs-${++files}.db`)).href));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const server = await startPostgres().catch((err: unknown) => {
    console.log(`  PostgreSQL  skipped: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  });
  if (!server) return;
  try {
    report("PostgreSQL", await measure(() => server.database()));
  } finally {
    await server.stop();
  }
}
