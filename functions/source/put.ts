// PUT /studio/source: save the script or series config, check the new text, rebuild unless asked not to.
import { z } from "zod";
import { runCheck } from "../../lib/episode/run-check.ts";
import { rebuildEpisode, saveSourceFile } from "../../lib/episode/source-file.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, sourceFile } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "PUT",
  path: "/source",
  summary:
    "Save the script or series config (history copy, same BOM and line endings), check it and rebuild; 409 when base_hash is stale. " +
    "`check` and `build` carry the extra field `diagnostics` (every error and warning at its line, as POST /studio/source/check)",
  input: z.object({
    ep,
    file: sourceFile,
    text: z.string().describe("The new text of that file"),
    base_hash: z
      .string()
      .optional()
      .describe("The hash the edit started from (409 when the file changed since)"),
    rebuild: z.boolean().default(true).describe("Rebuild the episode after saving (default true)"),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const saved = await saveSourceFile(ctx, ep, input.file, input.text, input.base_hash);
    const check = await runCheck(ctx, ep, input.file, saved.text);
    // An identical text is still rebuilt when asked: the build may be missing or older than the files.
    const { build, emitted } = input.rebuild
      ? await rebuildEpisode(ctx, ep)
      : { build: null, emitted: false };
    if (saved.changed && !emitted) ctx.events.emit("studio.episode", { ep });
    return { hash: saved.hash, changed: saved.changed, check, build };
  },
});
