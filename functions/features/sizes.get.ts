// GET /studio/features/sizes: the size of each recorded download, asked of its server once.
import { downloadSizes } from "../../lib/features/sizes.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/features/sizes",
  queue: true,
  summary:
    "The size in bytes of every recorded download address (null when its server does not say), asked of each server once per process",
  handler(_input, ctx) {
    return downloadSizes(ctx);
  },
});
