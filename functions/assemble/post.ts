// POST /studio/assemble: queue an `assemble` job on the built-in lane and answer when it ends (contract
// "Assemble"): the pass's cut, or with `upscaled` its takes' fresh upscales, and with `publish` wrapped with the
// show's intro and outro; a cut that cannot be assembled is 200 `ok: false`.
import { z } from "zod";
import { takeAnswer } from "../../lib/assemble/answer.ts";
import { type AssembleAnswer, parseSize } from "../../lib/assemble/assemble.ts";
import type { AssemblePayload } from "../../lib/assemble/payload.ts";
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
    upscaled: z
      .boolean()
      .optional()
      .describe(
        "Each clip plays its take's fresh upscale (output <ep>_up.mp4); clips without one are scaled up from their take and named in report.scaled_up",
      ),
    size: sizeText
      .nullish()
      .describe(
        "Scale every clip to this size, WxH with even sides, letterboxing another aspect; left out: the pass's size (upscaled: the first upscale's)",
      ),
    publish: z
      .boolean()
      .optional()
      .describe(
        "Wrap the cut with the show's intro and outro (series publish block, else _titles/INTRO.mp4 and OUTRO.mp4 in the show folder) and the episode title into <ep>/publish/: output is then the published file, cut the assembled one, published the published one (null when publishing failed)",
      ),
  }),
  async handler(input, ctx) {
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
    const payload: AssemblePayload = {
      ep,
      pass,
      partial: input.partial === true,
      size,
      upscaled: input.upscaled === true,
      publish: input.publish === true,
    };
    const job = await store.add({
      kind: "assemble",
      lane: "builtin",
      title: `assemble the ${pass} cut${payload.upscaled ? " (upscaled)" : ""}${payload.publish ? " and publish it" : ""}`,
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
