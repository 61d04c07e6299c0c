// POST /studio/shot/preview: one edited shot compiled in memory (optionally for another target); nothing is written.
import { z } from "zod";
import { compileEnv } from "../../lib/episode/compile-env.ts";
import { mergeShotText } from "../../lib/episode/preview.ts";
import { readSources } from "../../lib/episode/sources.ts";
import { badRequest } from "../../lib/errors.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, pass, shotId, targetId } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/shot/preview",
  summary: "Compile one shot from edited text: target, size, length, prompt, pacing",
  input: z.object({
    ep,
    pass,
    shot: shotId,
    text: z.string().describe("The shot's edited text, from its header to the next shot"),
    target: targetId.nullish().describe("Compile for this video target instead of the shot's own"),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const sources = await readSources(ep);
    if (!sources.series)
      return { ok: false, error: `no series.json in ${ep} or its parent folder`, line: null };
    const env = await compileEnv(ctx, sources.showDir);
    if (input.target && env.targets.get(input.target)?.kind !== "video") {
      throw badRequest(
        `target: '${input.target}' is not a video target (known: ${env.targets.ids("video").join(", ")})`,
      );
    }
    const { script, offset } = mergeShotText(sources.script?.text ?? "", input.shot, input.text);
    return ctx.compile.run("preview", {
      showDir: sources.showDir,
      defaultTarget: env.defaultTarget,
      seriesText: sources.series.text,
      scriptText: script,
      shot: input.shot,
      pass: input.pass,
      target: input.target ?? undefined,
      offset,
    });
  },
});
