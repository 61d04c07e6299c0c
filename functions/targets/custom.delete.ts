// DELETE /studio/targets/custom: remove a show's own target (its folder under <show>/targets); 404 when none.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/index.ts";
import { ep, targetId } from "../../lib/schema/fields.ts";
import { deleteCustomTarget } from "../../lib/targets/custom.ts";
import { showDirOf } from "../../lib/targets/listing.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "DELETE",
  path: "/targets/custom",
  summary: "Remove a custom target from the show; 404 when the show has none of that id",
  input: z.object({
    ep,
    id: targetId.describe("The custom target to remove"),
  }),
  async handler(input, ctx) {
    const epReal = await resolveEpisode(input.ep, ctx);
    const answer = await deleteCustomTarget(ctx, await showDirOf(ctx, epReal), input.id);
    ctx.events.emit("studio.episode", { ep: epReal });
    return answer;
  },
});
