// studio worker: a worker-only host, as `node workers/main.js` runs it: the job pool against the shared database.
import type { Command } from "../command.ts";

export const worker: Command = {
  name: "worker",
  summary: "run a worker: take jobs from the shared job database (no HTTP)",
  details: "Stops on Ctrl-C, letting running jobs finish for a few seconds.",
  spec: { positionals: [], flags: {} },
  async run(_args, ctx) {
    const { main } = await import("../../workers/main.ts");
    await main(ctx.env);
    return null;
  },
};
