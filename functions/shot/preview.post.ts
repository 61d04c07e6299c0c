// POST /studio/shot/preview: one edited shot compiled in memory (optionally for another target), with the script and
// series config carried in the request or read from the episode; nothing is written.
import { z } from "zod";
import { mergeShotText, wholeScript } from "../../lib/episode/preview.ts";
import { seriesText, textsToCompile } from "../../lib/episode/request-texts.ts";
import { badRequest } from "../../lib/errors.ts";
import { ep, pass, shotId, targetId } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/shot/preview",
  summary: "Compile one shot from edited text: target, size, length, prompt, pacing",
  input: z.object({
    ep: ep
      .nullish()
      .describe(
        "The episode folder (an absolute path inside a root) whose script and series config are used; left out, the request carries them and nothing on disk is read (shipped targets, built-in default target)",
      ),
    pass,
    shot: shotId,
    text: z.string().describe("The shot's edited text, from its header to the next shot, or a whole script"),
    target: targetId.nullish().describe("Compile for this video target instead of the shot's own"),
    script: z
      .string()
      .nullish()
      .describe(
        "The episode's script the shot's text replaces its block in, instead of the episode's on disk",
      ),
    series: seriesText
      .nullish()
      .describe("The series config, as JSON text or an object, instead of the episode's on disk"),
  }),
  async handler(input, ctx) {
    const texts = await textsToCompile(ctx, input, { script: !wholeScript(input.text), series: true });
    if (texts.seriesText === null)
      return { ok: false, error: `no series.json in ${texts.ep} or its parent folder`, line: null };
    const targets = await texts.targets();
    if (input.target && targets.get(input.target)?.kind !== "video") {
      throw badRequest(
        `target: '${input.target}' is not a video target (known: ${targets.ids("video").join(", ")})`,
      );
    }
    const { script, offset } = mergeShotText(texts.scriptText ?? "", input.shot, input.text);
    return ctx.compile.run("preview", {
      showDir: texts.showDir,
      settingsDir: texts.settingsDir,
      defaultTarget: texts.defaultTarget,
      seriesText: texts.seriesText,
      scriptText: script,
      shot: input.shot,
      pass: input.pass,
      target: input.target ?? undefined,
      offset,
    });
  },
});
