// GET /studio/browse: a folder picker over the whole machine (not limited to roots) that marks episode folders.
import { z } from "zod";
import { configRoots } from "../../lib/config/config.ts";
import { isEpisodeFolder } from "../../lib/episode/files.ts";
import { badRequest } from "../../lib/errors.ts";
import { FILE_KINDS, listFolder, startingPoints } from "../../lib/paths/folder-listing.ts";
import { checkAbsolutePath } from "../../lib/paths/text.ts";
import { oneOf } from "../../lib/store/json-guards.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/browse",
  summary:
    "List the folders (and optionally image, audio or video files) of a folder; no path: starting points",
  input: z.object({
    path: z.string().optional().describe("The absolute folder to list; left out: the starting points"),
    files: z.string().optional().describe("Also list files of this kind: image, audio or video"),
  }),
  async handler(input, ctx) {
    const kind = input.files ? input.files : null;
    if (kind !== null && !oneOf(FILE_KINDS, kind)) {
      throw badRequest(`files: "${kind}" is not a file type; use image, audio or video`);
    }
    if (input.path) return listFolder(checkAbsolutePath(input.path, "path"), kind, isEpisodeFolder);
    const roots = await configRoots(ctx).catch(() => []);
    const listing = await startingPoints(ctx.env, roots, isEpisodeFolder);
    return kind === null ? listing : { ...listing, files: [] };
  },
});
