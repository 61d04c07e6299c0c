// studio serve: the server, as `node runtime/serve.js` runs it (its port, address and graceful stop).
import { textFlag } from "../args.ts";
import type { Command } from "../command.ts";

export const serve: Command = {
  name: "serve",
  summary: "run the server (the editor page, every route, the job queue)",
  details: "Stops on Ctrl-C; while it runs, the other commands on this machine send their work to it.",
  spec: {
    positionals: [],
    flags: {
      host: { value: true, help: "address to listen on (default 127.0.0.1, or STUDIO_HOST)" },
      port: { value: true, help: "port (default 8190, or PORT; 0 picks a free one)" },
    },
  },
  async run(args, ctx) {
    const argv: string[] = [];
    const host = textFlag(args, "host");
    const port = textFlag(args, "port");
    if (host !== undefined) argv.push("--host", host);
    if (port !== undefined) argv.push("--port", port);
    const { main } = await import("../../runtime/serve.ts");
    await main(argv, ctx.env);
    return null;
  },
};
