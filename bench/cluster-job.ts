// The cluster benchmark's job kind (`cluster-bench`, loaded by worker processes through STUDIO_WORKER_EXTRA_HANDLERS):
// a render-like run on the worker's own `local` ComfyUI (one tiny graph submitted, followed and its picture
// collected), recording `<job id> <pid>` in the payload's file when it starts, so the benchmark can count runs.
import { appendFile, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Entry } from "../lib/compile/types.ts";
import type { EngineJob, RunHooks, Submitted } from "../lib/engines/types.ts";
import type { ExtraHandler } from "../workers/jobs/index.ts";

export interface ClusterPayload {
  /** Where each start is recorded. */
  runs: string;
}

export const CLUSTER_KIND = "cluster-bench";

const clusterJob: ExtraHandler = {
  kind: CLUSTER_KIND,
  async handler(job, ctx) {
    const payload = job.payload as ClusterPayload;
    await appendFile(payload.runs, `${job.id} ${process.pid}\n`);
    const engine = ctx.engine("local");
    const workDir = await mkdtemp(path.join(os.tmpdir(), "cluster-bench-"));
    // The prefix names the job, so the engine's own record says which job each prompt was.
    const graph = {
      "1": { class_type: "EmptyImage", inputs: { width: 64, height: 64, batch_size: 1, color: 0 } },
      "2": { class_type: "SaveImage", inputs: { images: ["1", 0], filename_prefix: `bench_${job.id}` } },
    };
    const engineJob: EngineJob = {
      kind: "image",
      target: "bench",
      ep: workDir,
      pass: "proxy",
      subject: "bench",
      take: 1,
      stem: `bench_${job.id}`,
      width: 64,
      height: 64,
      fps: 24,
      frames: 0,
      seed: 0n,
      prompt: "",
      negative: null,
      entry: {} as Entry,
      inputs: {},
      workDir,
      graph,
      saver: "2",
    };
    const hooks: RunHooks = { signal: ctx.signal, onProgress: (e) => ctx.progress({ progress: e.progress }) };
    let submitted: Submitted | null = null;
    try {
      const prepared = await engine.prepare(engineJob, hooks);
      submitted = await engine.submit(engineJob, prepared, hooks);
      ctx.progress({ backend_prompt_id: submitted.backendPromptId });
      await engine.collect(engineJob, submitted, hooks);
    } catch (err) {
      // An engine this worker cannot reach while another worker can: the job goes back for that worker.
      await ctx.handOff(err);
      throw err;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  },
};

export default clusterJob;
