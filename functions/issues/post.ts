// POST /studio/issues: note what is wrong with a shot, snapshotting the script lines, prompt, refs and take.
import { z } from "zod";
import { addIssue } from "../../lib/episode/issues.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, pass, shotId, take } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/issues",
  summary: "Add an issue note about a shot of a pass (take defaults to the cut's, else the newest usable)",
  input: z.object({
    ep,
    pass,
    shot: shotId,
    note: z.string().describe("What is wrong, in a person's words"),
    take: take.nullish().describe("The take the note is about; left out: the cut's, else the newest usable"),
  }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    const pass = input.pass;
    const issue = await addIssue(
      ctx,
      ep,
      { pass, shot: input.shot, note: input.note, take: input.take },
      ctx.now(),
    );
    ctx.events.emit("studio.issues", { ep, pass, shot: issue.shot, id: issue.id });
    return issue;
  },
});
