// DELETE /studio/issues: remove notes by id (comma-separated), or a pass's notes with clear=1 [+ addressed=1].
import { z } from "zod";
import { removeIssues } from "../../lib/episode/issues.ts";
import { badRequest } from "../../lib/errors.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, passFilter, queryFlag } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "DELETE",
  path: "/issues",
  summary: "Remove issue notes: id=a,b or pass with clear=1 (addressed=1: only the addressed ones)",
  input: z.object({
    ep,
    id: z.string().optional().describe("The ids of the notes to remove, comma-separated"),
    pass: passFilter,
    clear: queryFlag.describe("1: remove the pass's notes (all, or the addressed ones with addressed=1)"),
    addressed: queryFlag.describe("With clear=1: only the notes already addressed"),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const ids = (input.id ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const pass = input.pass;
    let result: Awaited<ReturnType<typeof removeIssues>>;
    if (ids.length) result = await removeIssues(ctx, ep, { ids }, pass);
    else if (input.clear) {
      result = await removeIssues(ctx, ep, { pass, addressedOnly: input.addressed }, pass);
    } else {
      throw badRequest("give id (comma-separated for several) or pass with clear=1 to remove issue notes");
    }
    ctx.events.emit("studio.issues", { ep, pass, removed: result.removed });
    return result;
  },
});
