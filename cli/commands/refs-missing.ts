// studio refs missing <ep>: the references a pass's renders read and nothing provides yet, and how each would be
// filled (POST /studio/refs/generate-missing as a dry run: nothing is written or queued).
import { textFlag } from "../args.ts";
import { answered } from "../client.ts";
import { type Command, EP, episodeArg, PASS_FLAG, withClient } from "../command.ts";
import { result } from "../output.ts";

interface MissingAnswer {
  queued: { ref: string; view?: string | null; method: string; target?: string }[];
  picked: { ref: string; method: string }[];
  skipped: { ref: string; reason: string }[];
  errors: { ref?: string; error: string }[];
}

export const refsMissing: Command = {
  name: "refs missing",
  summary: "list the references a pass reads and lacks (writes nothing)",
  spec: { ...EP, flags: { ...PASS_FLAG } },
  async run(args, ctx) {
    const ep = episodeArg(args, ctx);
    const body = { ep, pass: textFlag(args, "pass") ?? "proxy", dry_run: true };
    const answer = await withClient(ctx, { runJobs: false }, async (client) =>
      answered<MissingAnswer>(await client.call("POST", "/refs/generate-missing", body)),
    );
    result(ctx.io, answer, () => {
      const lines = [
        ...answer.queued.map(
          (q) =>
            `${q.ref}${q.view ? ` ${q.view}` : ""}: missing; would be made (${q.method}${q.target ? ` on ${q.target}` : ""})`,
        ),
        ...answer.picked.map((p) => `${p.ref}: missing; would be filled by ${p.method}`),
        ...answer.errors.map((e) => `${e.ref ?? "?"}: missing; cannot be made: ${e.error}`),
      ];
      return lines.length ? lines : ["nothing missing"];
    });
    return 0;
  },
};
