// GET /studio/targets: every target (of one kind), a show's own with `ep`, readiness on the local engine with `ready`.
import { z } from "zod";
import { defineFunction } from "../../lib/fn.ts";
import { resolveEpisode } from "../../lib/paths/index.ts";
import { listTargets, parseKind, parseReady, showDirOf } from "../../lib/targets/listing.ts";

export default defineFunction({
  method: "GET",
  path: "/targets",
  summary:
    "The targets (video, image, audio) with the machine defaults; `ep` adds the show's own, `ready` readiness",
  input: z.object({ kind: z.string().optional(), ep: z.string().optional(), ready: z.string().optional() }),
  async handler(input, ctx) {
    const kind = parseKind(input.kind);
    const ready = parseReady(input.ready);
    const showDir = input.ep ? await showDirOf(await resolveEpisode(input.ep, ctx)) : null;
    return listTargets(ctx, { kind, ready, showDir });
  },
});
