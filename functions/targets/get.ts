// GET /studio/targets: every target (of one kind), a show's own with `ep`, readiness on the local engine with `ready`.
import { z } from "zod";
import { resolveEpisode } from "../../lib/paths/index.ts";
import { ep, queryFlag } from "../../lib/schema/fields.ts";
import { listTargets, parseKind, showDirOf } from "../../lib/targets/listing.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/targets",
  summary:
    "The targets (video, image, audio) with the machine defaults; `ep` adds the show's own, `ready` readiness",
  input: z.object({
    kind: z.string().optional().describe("Only targets of this kind: video, image or audio"),
    ep: ep.optional().describe("An episode, so the show's own targets are listed too"),
    ready: queryFlag.describe(
      "1: say which targets the local engine can run now and which files are missing",
    ),
  }),
  async handler(input, ctx) {
    const kind = parseKind(input.kind);
    const showDir = input.ep ? await showDirOf(ctx, await resolveEpisode(input.ep, ctx)) : null;
    return listTargets(ctx, { kind, ready: input.ready, showDir });
  },
});
