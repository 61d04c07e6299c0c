// GET /studio/assemble/last (an extra route): the pass's last assembled cut, so a page opened later can play it.
import { z } from "zod";
import { lastAssembled } from "../../lib/assemble/assemble.ts";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { ep, pass } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/assemble/last",
  summary:
    "Extra: the pass's last assembled cut: {assembled: {output, shots_file, modified} or null} (paths episode-relative)",
  input: z.object({ ep, pass }),
  async handler(input, ctx) {
    const ep = await resolveEpisode(input.ep, ctx);
    return { assembled: await lastAssembled(ctx, ep, input.pass) };
  },
});
