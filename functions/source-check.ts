// POST /studio/source/check: check a proposed script or series config against the other file on disk; writes nothing.
import { z } from "zod";
import { checkSources } from "../lib/episode/check.ts";
import { compileEnv } from "../lib/episode/compile-env.ts";
import { readSources } from "../lib/episode/sources.ts";
import { defineFunction } from "../lib/fn.ts";
import { resolveEpisode } from "../lib/paths/episode.ts";

export default defineFunction({
  method: "POST",
  path: "/source/check",
  summary:
    "Check a script or series config text (parse, load, build the final pass in memory); nothing is written",
  input: z.object({ ep: z.string(), file: z.enum(["script", "series"]), text: z.string() }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const sources = await readSources(ep);
    const env = await compileEnv(ctx, sources.showDir ?? ep);
    return checkSources(
      {
        file: input.file,
        scriptText: input.file === "script" ? input.text : (sources.script?.text ?? null),
        seriesText: input.file === "series" ? input.text : (sources.series?.text ?? null),
      },
      env,
    );
  },
});
