// POST /studio/clips/new: a Simple-mode project of its own, its show folder named from the title.
import { z } from "zod";
import { newSimpleProject } from "../../lib/clips/new-clip.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/clips/new",
  summary:
    "Make a Simple-mode project: `<root>/<folder named from the title>/series.json` (simple: true) and its " +
    "episode `clips/`. Answers {ep}; emits studio.episode. 400 a title with no letters or digits; 409 the " +
    "folder exists or no root exists",
  input: z.object({
    title: z.string().max(200).describe("The project's title; its show folder is named from it"),
    root: z
      .string()
      .nullish()
      .describe("The folder to make the project in, inside the roots; left out: the first configured root"),
  }),
  async handler(input, ctx) {
    const answer = await newSimpleProject(ctx, input.title, input.root);
    ctx.events.emit("studio.episode", { ep: answer.ep });
    return answer;
  },
});
