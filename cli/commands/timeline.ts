// studio timeline <ep> --format otio: the pass's cut as a timeline file another editor opens (GET /studio/timeline),
// on stdout or written to --out.
import path from "node:path";
import { writeFileAtomic } from "../../lib/store/atomic.ts";
import { textFlag, usageError } from "../args.ts";
import { answered } from "../client.ts";
import { type Command, EP, episodeArg, PASS_FLAG, withClient } from "../command.ts";
import { result } from "../output.ts";

const FORMATS = ["otio", "fcpxml", "edl", "mlt"] as const;

export const timeline: Command = {
  name: "timeline",
  summary: "export the pass's cut as a timeline (otio, fcpxml, edl, mlt)",
  spec: {
    ...EP,
    flags: {
      ...PASS_FLAG,
      format: { value: true, choices: FORMATS, help: "otio, fcpxml, edl or mlt (required)" },
      out: { value: true, help: "write the timeline to this file instead of stdout" },
    },
  },
  async run(args, ctx) {
    const ep = episodeArg(args, ctx);
    const format = textFlag(args, "format");
    if (!format) throw usageError(`--format is required (${FORMATS.join(", ")})`);
    const outFlag = textFlag(args, "out");
    const query = { ep, pass: textFlag(args, "pass") ?? "proxy", format };
    const text = await withClient(ctx, { runJobs: false }, async (client) => {
      const body = answered<unknown>(await client.call("GET", "/timeline", query));
      return typeof body === "string" ? body : JSON.stringify(body, null, 2);
    });
    if (!outFlag) {
      ctx.io.out(text.endsWith("\n") ? text : `${text}\n`);
      return 0;
    }
    const out = path.resolve(ctx.cwd, outFlag);
    await writeFileAtomic(out, text);
    result(ctx.io, { output: out, format }, () => [out]);
    return 0;
  },
};
