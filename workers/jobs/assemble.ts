// The assemble job: a pass's cut joined into one mp4 (lib/assemble/assemble.ts), with progress per clip. The answer
// the route returns is written beside the output for the route to take; a refused or failed assembly also fails
// the job with the same reason, so the queue shows it.
import { pruneAnswers, writeAnswer } from "../../lib/assemble/answer.ts";
import { assembleEpisode } from "../../lib/assemble/assemble.ts";
import { assemblePayload } from "../../lib/assemble/payload.ts";
import { defineJobKind } from "../../lib/jobs/kinds.ts";

export const assembleJob = defineJobKind({
  payload: assemblePayload,
  async run(job, ctx) {
    const p = job.payload;
    await pruneAnswers(p.ep, p.pass, ctx.services.now().getTime());
    const answer = await assembleEpisode(
      ctx.services,
      p.ep,
      p.pass,
      { partial: p.partial, size: p.size },
      {
        signal: ctx.signal,
        progress: ({ progress, step }) => ctx.progress({ progress, step }),
      },
    );
    await writeAnswer(p.ep, p.pass, job.id, answer);
    const r = answer.report;
    ctx.progress({
      log: answer.ok
        ? `${answer.output}: ${r.clips} clip(s), ${r.frames} frames, ${r.copied} copied, ${r.reencoded} re-encoded${r.missing.length ? `, missing ${r.missing.join(", ")}` : ""}`
        : `not assembled: ${answer.error}`,
    });
    if (!answer.ok) throw new Error(answer.error ?? "the assembly failed");
  },
});
