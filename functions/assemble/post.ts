// POST /studio/assemble: queue an `assemble` job on the built-in lane and answer when it ends (contract
// "Assemble"); a cut that cannot be assembled is 200 `ok: false`. Upscaled and published cuts are other issues.
import { z } from "zod";
import { takeAnswer } from "../../lib/assemble/answer.ts";
import { type AssembleAnswer, parseSize } from "../../lib/assemble/assemble.ts";
import type { AssemblePayload } from "../../lib/assemble/payload.ts";
import { notImplemented } from "../../lib/errors.ts";
import { mediaTools } from "../../lib/media/ffmpeg.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, pass, sizeText } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

/** A route that waits longer than this answers that the job is still going (its answer is kept for a day). */
const WAIT_MS = 30 * 60_000;

export default defineFunction({
  method: "POST",
  path: "/assemble",
  summary: "Assemble a pass's cut into one mp4 (renders[_proxy]/<ep>[_proxy].mp4); answers when it is done",
  input: z.object({
    ep,
    pass,
    partial: z
      .boolean()
      .optional()
      .describe("Assemble even when shots have no usable take (placeholders fill them)"),
    upscaled: z.boolean().optional().describe("Assemble the upscaled takes (not built yet: 501)"),
    size: sizeText
      .nullish()
      .describe("Scale every clip to this size, WxH with even sides; left out: the pass's size"),
    publish: z.boolean().optional().describe("Also publish the cut (not built yet: 501)"),
  }),
  async handler(input, ctx) {
    if (input.upscaled) throw notImplemented("upscaled: needs the upscale/master issue");
    if (input.publish) throw notImplemented("publish: needs the finishing issue");
    const size = input.size ? parseSize(input.size) : null;
    const ep = await resolveEpisode(input.ep, ctx);
    const { pass } = input;
    await mediaTools(ctx.media);
    const store = await ctx.jobs();
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
    ctx.jobSignals.jobAdded();
    const ended = await store.waitFor(job.id, AbortSignal.any([ctx.signal, AbortSignal.timeout(WAIT_MS)]));
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
