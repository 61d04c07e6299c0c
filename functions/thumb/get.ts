// GET /studio/thumb: a small JPEG of a picture of the episode, cached on disk; anything else is served as is.
import { z } from "zod";
import { servedFile } from "../../lib/episode/served-file.ts";
import { badRequest } from "../../lib/errors.ts";
import { thumbnail, thumbWidth } from "../../lib/media/thumbs.ts";
import { realRoots, rootsFence } from "../../lib/paths/index.ts";
import { ep } from "../../lib/schema/fields.ts";
import { defineFunction, FileReply } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/thumb",
  summary: "A picture made small (width 128, 256, 512 or 1024; JPEG on white); a non-picture is served as is",
  input: z.object({
    ep,
    path: z.string().describe("The picture: a path relative to the episode folder"),
    w: z.string().describe("The width in pixels, rounded up to 128, 256, 512 or 1024"),
  }),
  async handler(input, ctx) {
    const w = input.w.trim();
    if (!/^\d+$/.test(w) || Number(w) < 1) {
      throw badRequest(
        `w must be a width in pixels, a whole number of at least 1 (got ${JSON.stringify(input.w)})`,
      );
    }
    const file = await servedFile(ctx, input.ep, input.path);
    // The served file may lie above the episode (the show's refs, a sibling's candidates): the roots fence it.
    const fence = rootsFence(await realRoots(ctx));
    const thumb = await thumbnail(ctx, fence, file, thumbWidth(Number(w)));
    return thumb ? new FileReply(thumb, "image/jpeg") : new FileReply(file);
  },
});
