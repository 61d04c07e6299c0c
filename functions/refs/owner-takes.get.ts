// GET /studio/refs/owner-takes: when a sibling episode's pick wrote a live file this episode shares, that
// sibling's candidates of the reference, read-only.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/episode.ts";
import { refField } from "../../lib/refs/ids.ts";
import { ownerTakes } from "../../lib/refs/listing.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/refs/owner-takes",
  summary:
    "The candidates of the sibling episode whose pick wrote a shared live file (read-only; paths like ../<sibling>/refs/_takes/...); no takes when this episode owns the file or nobody does",
  input: z.object({ ep, ref: refField }),
  async handler(input, ctx) {
    const epReal = await resolveEpisode(input.ep, ctx);
    return ownerTakes(ctx, epReal, input.ref);
  },
});
