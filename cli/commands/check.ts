// studio check <ep>: check the episode's script against its series config as they are on disk, writing nothing
// (the script read with GET /studio/source, checked with POST /studio/source/check).
import { answered } from "../client.ts";
import { type Command, EP, episodeArg, withClient } from "../command.ts";
import { type DiagnosticLine, diagnosticLines, result } from "../output.ts";

interface CheckAnswer {
  ok: boolean;
  shots: unknown[];
  diagnostics: DiagnosticLine[];
}

export const check: Command = {
  name: "check",
  summary: "check the script and series config; exit 1 when they have errors",
  spec: { ...EP, flags: {} },
  async run(args, ctx) {
    const ep = episodeArg(args, ctx);
    const answer = await withClient(ctx, { runJobs: false }, async (client) => {
      const source = answered<{ text: string }>(
        await client.call("GET", "/source", { ep, file: "script" }),
        "reading the script",
      );
      return answered<CheckAnswer>(
        await client.call("POST", "/source/check", { ep, file: "script", text: source.text }),
      );
    });
    result(ctx.io, answer, () => [
      ...diagnosticLines(answer.diagnostics),
      answer.ok ? `ok: ${answer.shots.length} shots` : "the script does not build",
    ]);
    return answer.ok ? 0 : 1;
  },
};
