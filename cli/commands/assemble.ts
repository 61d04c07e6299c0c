// studio assemble <ep>: join a pass's cut into one mp4 (POST /studio/assemble, which answers when the job ends) and
// print its path; exit 1 when the cut could not be assembled.
import path from "node:path";
import { answered } from "../client.ts";
import { type Command, EP, episodeArg, PASS_FLAG, withClient } from "../command.ts";
import { note, result } from "../output.ts";

interface AssembleAnswer {
  ok: boolean;
  output: string | null;
  error?: string;
}

export const assemble: Command = {
  name: "assemble",
  summary: "assemble a pass's cut into one mp4 and print its path",
  spec: {
    ...EP,
    flags: {
      ...PASS_FLAG,
      partial: {
        value: false,
        help: "assemble even when shots have no usable take (placeholders fill them)",
      },
    },
  },
  async run(args, ctx) {
    const ep = episodeArg(args, ctx);
    const body = { ep, pass: args.flags.pass ?? "proxy", partial: args.flags.partial === true || undefined };
    const answer = await withClient(ctx, { runJobs: true }, async (client) => {
      note(ctx.io, "assembling...");
      return answered<AssembleAnswer>(await client.call("POST", "/assemble", body));
    });
    if (!answer.ok && !ctx.io.json) {
      ctx.io.err(`assemble failed: ${answer.error ?? "no output"}\n`);
      return 1;
    }
    // The route names the file inside the episode folder; a shell wants the whole path.
    const file = answer.output ? path.resolve(ep, answer.output) : null;
    result(ctx.io, { ...answer, path: file }, () => [file ?? ""]);
    return answer.ok ? 0 : 1;
  },
};
