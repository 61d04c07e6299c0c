// GET /studio/issues/export: the notes as Markdown to paste into an assistant, or as a JSON bundle.
import { z } from "zod";
import { exportJson, exportMarkdown, queryFlag } from "../../lib/episode/issues.ts";
import { defineFunction } from "../../lib/fn.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";

export default defineFunction({
  method: "GET",
  path: "/issues/export",
  summary: "Export the issue notes as Markdown (format=md) or JSON; addressed=1 includes addressed ones",
  input: z.object({
    ep: z.string(),
    pass: z.enum(["final", "proxy"]).or(z.literal("")).optional(),
    format: z.enum(["md", "markdown", "json", ""]).optional(),
    addressed: z.string().optional(),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const opts = { pass: input.pass || null, includeAddressed: queryFlag(input.addressed, "addressed") };
    if (input.format === "json") return exportJson(ep, opts);
    return { format: "md", text: await exportMarkdown(ep, opts) };
  },
});
