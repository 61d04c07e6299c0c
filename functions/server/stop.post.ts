// POST /studio/server/stop: answer first, then close sockets and exit (code 3 asks the launcher to restart).
import { z } from "zod";
import { StudioError } from "../../lib/errors.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/server/stop",
  summary: "Stop the server (403 unless called from this machine); restart: true exits with code 3",
  localOnly: true,
  input: z.object({
    restart: z.boolean().nullish().describe("Exit with code 3 so a launcher loop starts it again"),
  }),
  handler(input, ctx) {
    if (!ctx.server) throw new StudioError(501, "server/stop: this runtime has no server to stop");
    const restart = input.restart === true;
    ctx.server.stop(restart);
    return { ok: true, restart };
  },
});
