// POST /studio/features/cancel: stop installing; the download under way keeps its partial file to resume.
import { cancelInstall } from "../../lib/features/install.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/features/cancel",
  queue: true,
  summary:
    "Stop the install: waiting install jobs end, the running one stops its current download (the partial file is kept and resumes on the next install) and starts no other; answers the canceled job ids and the tasks",
  handler(_input, ctx) {
    return cancelInstall(ctx);
  },
});
