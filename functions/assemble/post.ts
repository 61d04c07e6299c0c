// POST /studio/assemble: queue an `assemble` job on the built-in lane and answer when it ends (contract
// "Assemble"); a cut that cannot be assembled is 200 `ok: false`. Upscaled and published cuts are other issues.
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { notImplemented } from "../../lib/errors.ts";
import { defineFunction } from "../../lib/fn.ts";
import { openJobStore } from "../../lib/jobs/store.ts";
import type { Job } from "../../lib/jobs/types.ts";
import { jobAdded } from "../../lib/jobs/wake.ts";
import { type AssembleAnswer, parseSize } from "../../lib/media/assemble.ts";
import { type AssemblePayload, takeAnswer } from "../../lib/media/assemble-job.ts";
import { mediaTools } from "../../lib/media/ffmpeg.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";

const POLL_MS = 100;
/** A route that waits longer than this answers that the job is still going (its answer is kept for a day). */
const WAIT_MS = 30 * 60_000;
const ENDED = new Set(["succeeded", "failed", "canceled"]);

export default defineFunction({
  method: "POST",
  path: "/assemble",
  summary: "Assemble a pass's cut into one mp4 (renders[_proxy]/<ep>[_proxy].mp4); answers when it is done",
  input: z.object({
    ep: z.string(),
    pass: z.enum(["final", "proxy"]).optional(),
    partial: z.boolean().optional(),
    upscaled: z.boolean().optional(),
    size: z.string().nullish(),
    publish: z.boolean().optional(),
  }),
  async handler(input, ctx) {
    if (input.upscaled) throw notImplemented("upscaled: needs the upscale/master issue");
    if (input.publish) throw notImplemented("publish: needs the finishing issue");
    const size = input.size ? parseSize(input.size) : null;
    const ep = await resolveEpisode(input.ep, ctx);
    const pass = input.pass ?? "proxy";
    await mediaTools(ctx.env);
    const store = await openJobStore(ctx);
    // Waiting on a paused lane would hang the request for its whole limit: say so at once instead.
    if ((await store.list()).lanes.builtin?.paused) {
      return {
        ok: false,
        output: null,
        report: null,
        error: "the builtin lane is paused: resume it (POST /studio/jobs/pause) to assemble",
      };
    }
    const payload: AssemblePayload = { ep, pass, partial: input.partial === true, size };
    const job = await store.add({
      kind: "assemble",
      lane: "builtin",
      title: `assemble the ${pass} cut`,
      info: { ep, pass },
      payload,
    });
    jobAdded();
    const ended = await waitForEnd(job.id, () => store.get(job.id), ctx.signal);
    if (!ended) {
      return {
        ok: false,
        output: null,
        report: null,
        error: `the assembly (job ${job.id}) has not finished after ${WAIT_MS / 60_000} minutes; it goes on in the queue`,
      };
    }
    const answer: AssembleAnswer | null = await takeAnswer(ep, pass, job.id);
    if (answer) return answer;
    const why =
      ended.status === "canceled"
        ? "the assembly was canceled"
        : `the assembly failed: ${ended.error ?? `job ${job.id} ended ${ended.status}`}`;
    return { ok: false, output: null, report: null, error: why };
  },
});

/** Poll the job until it ends; null when the wait runs out or the caller went away. */
async function waitForEnd(
  id: string,
  get: () => Promise<Job | null>,
  signal: AbortSignal,
): Promise<Job | null> {
  const until = Date.now() + WAIT_MS;
  while (Date.now() < until && !signal.aborted) {
    const job = await get();
    if (!job) throw new Error(`job ${id} is gone from the queue`);
    if (ENDED.has(job.status)) return job;
    await sleep(POLL_MS);
  }
  return null;
}
