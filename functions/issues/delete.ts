// DELETE /studio/issues: remove notes by id (comma-separated), or a pass's notes with clear=1 [+ addressed=1].
import { z } from "zod";
import { queryFlag, removeIssues } from "../../lib/episode/issues.ts";
import { badRequest } from "../../lib/errors.ts";
import { defineFunction } from "../../lib/fn.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";

export default defineFunction({
  method: "DELETE",
  path: "/issues",
  summary: "Remove issue notes: id=a,b or pass with clear=1 (addressed=1: only the addressed ones)",
  input: z.object({
    ep: z.string(),
    id: z.string().optional(),
    pass: z.enum(["final", "proxy"]).or(z.literal("")).optional(),
    clear: z.string().optional(),
    addressed: z.string().optional(),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const ids = (input.id ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const pass = input.pass || null;
    let result: Awaited<ReturnType<typeof removeIssues>>;
    if (ids.length) result = await removeIssues(ep, { ids }, pass);
    else if (queryFlag(input.clear, "clear")) {
      result = await removeIssues(ep, { pass, addressedOnly: queryFlag(input.addressed, "addressed") }, pass);
    } else {
      throw badRequest("give id (comma-separated for several) or pass with clear=1 to remove issue notes");
    }
    ctx.events.emit("studio.issues", { ep, pass, removed: result.removed });
    return result;
  },
});
