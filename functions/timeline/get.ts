// GET /studio/timeline (an extra route): the pass's cut as a timeline file for another editor, written nothing.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, pass, queryFlag } from "../../lib/schema/fields.ts";
import { downloadName, FORMAT_SPECS, TIMELINE_FORMATS } from "../../lib/timeline/formats.ts";
import { readTimeline } from "../../lib/timeline/read.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/timeline",
  summary:
    "Extra: the pass's cut as a timeline another editor opens (format otio, fcpxml, edl or mlt), answered as a download " +
    "named <episode>_<pass>.<ext>; clips in cut order from the picked takes with trims as source in/out at the pass's " +
    "rate (with upscaled=1 from the fresh upscales or posts), out shots and orphans left out, each clip's sound on A1 and the episode's recorded track on A2; shots " +
    "without a usable take are left out and named in notes; 409 when the pass is not built or nothing can play",
  input: z.object({
    ep,
    pass,
    format: z
      .enum(TIMELINE_FORMATS)
      .describe("otio (OpenTimelineIO JSON), fcpxml (FCPXML 1.10), edl (CMX3600) or mlt"),
    upscaled: queryFlag.describe(
      "1: each clip's source is its take's fresh post, else its fresh upscale, else the take (named in a note)",
    ),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const timeline = await readTimeline(ctx, ep, input.pass, { upscaled: input.upscaled });
    const spec = FORMAT_SPECS[input.format];
    const name = downloadName(timeline.name, input.pass, input.format);
    return new Response(spec.write(timeline), {
      status: 200,
      headers: {
        "content-type": spec.contentType,
        "content-disposition": `attachment; filename="${name}"`,
        "cache-control": "no-store",
      },
    });
  },
});
