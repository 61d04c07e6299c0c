// GET /studio/source: the script or series config as the editor reads it (normalised text, hash, shot spans).
import { z } from "zod";
import { prepare } from "../../lib/episode/prepare.ts";
import { readSourceFile } from "../../lib/episode/source-file.ts";
import { readSources } from "../../lib/episode/sources.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, queryFlag, sourceFile } from "../../lib/schema/fields.ts";
import { shotSpans } from "../../lib/script/story.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/source",
  summary:
    "Read the script or the series config: text (LF, no BOM), hash of the bytes on disk, mtime, shot spans",
  input: z.object({
    ep,
    file: sourceFile,
    hash_only: queryFlag.describe("1: answer only the hash and mtime"),
  }),
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
