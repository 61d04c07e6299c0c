// GET /studio/source: the script or series config as the editor reads it (normalised text, hash, shot spans).
import { z } from "zod";
import { prepare } from "../../lib/episode/compile-env.ts";
import { readSourceFile } from "../../lib/episode/source-file.ts";
import { readSources } from "../../lib/episode/sources.ts";
import { defineFunction } from "../../lib/fn.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { shotSpans } from "../../lib/script/story.ts";

const FLAG = z
  .enum(["1", "true", "yes", "on", "0", "false", "no", "off", ""], {
    error: "must be 1 or true (or 0 / false)",
  })
  .optional()
  .transform((v) => v === "1" || v === "true" || v === "yes" || v === "on");

export default defineFunction({
  method: "GET",
  path: "/source",
  summary:
    "Read the script or the series config: text (LF, no BOM), hash of the bytes on disk, mtime, shot spans",
  input: z.object({ ep: z.string(), file: z.enum(["script", "series"]), hash_only: FLAG }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const src = await readSourceFile(ep, input.file);
    if (input.hash_only) return { file: src.file, hash: src.hash, mtime: src.mtime };
    return {
      file: src.file,
      path: src.path,
      text: src.text,
      hash: src.hash,
      mtime: src.mtime,
      ...(input.file === "script" ? { shots: await spans(ep, src.text) } : {}),
    };
  },
});

/** Shot spans from parsing against the series config on disk; empty when either does not parse or load. */
async function spans(ep: string, scriptText: string) {
  try {
    const sources = await readSources(ep);
    if (!sources.series) return [];
    return shotSpans(prepare(sources.series.text, scriptText).story);
  } catch {
    return [];
  }
}
