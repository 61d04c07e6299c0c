// PUT /studio/config: replace the roots (each must be an existing folder); review_copy keeps its value when omitted.
import { z } from "zod";
import { writeConfig } from "../../lib/config/config.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "PUT",
  path: "/config",
  summary: "Set the roots (each must exist) and optionally review_copy; answers the new config",
  input: z.object({
    roots: z
      .array(z.string())
      .describe("The folders episodes are opened from: absolute paths of existing folders"),
    review_copy: z
      .boolean()
      .nullish()
      .describe("Keep a review copy of each assembled cut; left out: unchanged"),
  }),
  handler(input, ctx) {
    return writeConfig(ctx, { roots: input.roots, review_copy: input.review_copy ?? undefined });
  },
});
