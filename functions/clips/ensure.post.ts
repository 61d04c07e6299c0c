// POST /studio/clips/ensure: the Simple-mode Clips project (`<root>/Clips/` with its series config and the episode
// `clips/`), made when it is not there yet.
import { z } from "zod";
import { ensureClips } from "../../lib/clips/ensure.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/clips/ensure",
  summary:
    "Ensure the Simple-mode Clips project in a root: `<root>/Clips/series.json` (simple: true) and the episode " +
    "`<root>/Clips/clips/`. Answers {ep, made}; emits studio.episode when made; 409 when no root exists",
  input: z.object({
    root: z
      .string()
      .nullish()
      .describe("The folder to keep the project in, inside the roots; left out: the first configured root"),
  }),
  async handler(input, ctx) {
    const answer = await ensureClips(ctx, input.root);
    if (answer.made) ctx.events.emit("studio.episode", { ep: answer.ep });
    return answer;
  },
});
