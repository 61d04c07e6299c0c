// studio build <ep>: compile the episode's script into both passes' shot lists (POST /studio/build).
import { answered } from "../client.ts";
import { type Command, EP, episodeArg, withClient } from "../command.ts";
import { type DiagnosticLine, diagnosticLines, result } from "../output.ts";

interface BuildAnswer {
  ok: boolean;
  error?: string;
  passes: Record<
    string,
    { ok: boolean; report: { target: string; shots: number } | null; error: string | null }
  >;
  diagnostics: DiagnosticLine[];
}

export const build: Command = {
  name: "build",
  summary: "compile the script into the shot lists of both passes",
  spec: { ...EP, flags: {} },
  async run(args, ctx) {
    const ep = episodeArg(args, ctx);
    const answer = await withClient(ctx, { runJobs: false }, async (client) =>
      answered<BuildAnswer>(await client.call("POST", "/build", { ep })),
    );
    result(ctx.io, answer, () => [
      ...Object.entries(answer.passes).map(([pass, p]) =>
        p.ok && p.report
          ? `${pass}: ${p.report.shots} shots on ${p.report.target}`
          : `${pass}: failed${p.error ? `: ${p.error}` : ""}`,
      ),
      ...diagnosticLines(answer.diagnostics),
      ...(answer.ok ? [] : [`build failed${answer.error ? `: ${answer.error}` : ""}`]),
    ]);
    return answer.ok ? 0 : 1;
  },
};
