// POST /studio/source/check: check a proposed script or series config against the other file (carried in the
// request, else the episode's on disk); writes nothing.
import { z } from "zod";
import { seriesText, textsToCompile } from "../../lib/episode/request-texts.ts";
import { badRequest } from "../../lib/errors.ts";
import { ep, sourceFile } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/source/check",
  summary:
    "Check a script or series config text (parse, load, build the final pass in memory); nothing is written. " +
    "Extra field `diagnostics`: [{severity (error|warning), file (script|series), line (1-based or null), col?, " +
    "message}], every error (`errors` keeps the first) and every warning in line order, each at the line that is " +
    "wrong, including lines read as action that look like dialogue or a key line",
  input: z.object({
    ep: ep
      .nullish()
      .describe(
        "The episode folder (an absolute path inside a root) the other file is read from; left out, the request carries it and nothing on disk is read (shipped targets, built-in default target)",
      ),
    file: sourceFile,
    text: z.string().describe("The proposed text of that file"),
    script: z
      .string()
      .nullish()
      .describe("The script to check a series config with (file series), instead of the episode's"),
    series: seriesText
      .nullish()
      .describe(
        "The series config to check a script with (file script), as JSON text or an object, instead of the episode's",
      ),
  }),
  async handler(input, ctx) {
    if (input[input.file] != null) {
      throw badRequest(
        `${input.file}: the ${input.file} is \`text\` here (file is ${input.file}); leave it out`,
      );
    }
    const texts = await textsToCompile(ctx, input, { script: false, series: input.file === "script" });
    return ctx.compile.run("check", {
      showDir: texts.showDir ?? texts.ep,
      settingsDir: texts.settingsDir,
      defaultTarget: texts.defaultTarget,
      file: input.file,
      scriptText: input.file === "script" ? input.text : texts.scriptText,
      seriesText: input.file === "series" ? input.text : texts.seriesText,
    });
  },
});
