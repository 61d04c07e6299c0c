// GET /studio/issues/export: the notes as Markdown to paste into an assistant, or as a JSON bundle.
import { z } from "zod";
import { exportJson, exportMarkdown } from "../../lib/episode/issues.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, passFilter, queryFlag } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/issues/export",
  summary: "Export the issue notes as Markdown (format=md) or JSON; addressed=1 includes addressed ones",
  input: z.object({
    ep,
    pass: passFilter,
    format: z.enum(["md", "markdown", "json", ""]).optional().describe("md (the default) or json"),
    addressed: queryFlag.describe("1: include the notes already addressed"),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const opts = { pass: input.pass, includeAddressed: input.addressed };
    if (input.format === "json") return exportJson(ctx, ep, opts);
    return { format: "md", text: await exportMarkdown(ctx, ep, opts) };
  },
});
