// The align job: one alignment run (lib/align/run.ts) with its progress, its answer — or its refusal with the
// recogniser's log — written beside the episode for the route that waits on it. A refused or failed run also
// fails the job with the same reason, so the queue shows it.
import { alignPayload, pruneAlignAnswers, writeAlignAnswer } from "../../lib/align/payload.ts";
import { alignFailure, runAlign } from "../../lib/align/run.ts";
import { defineJobKind } from "../../lib/jobs/kinds.ts";

export const alignJob = defineJobKind({
  payload: alignPayload,
  async run(job, ctx) {
    const p = job.payload;
    await pruneAlignAnswers(p.ep, ctx.services.now().getTime());
    try {
      const answer = await runAlign(ctx.services, p, {
        signal: ctx.signal,
        emit: (kind, data) => ctx.emit(kind, data),
        progress: (progress, step) => ctx.progress({ progress, step }),
      });
      await writeAlignAnswer(p.ep, job.id, answer);
      ctx.progress({
        log: `${answer.changes.length} window(s)${answer.dry_run ? " (dry run)" : " written"} from ${answer.words} words`,
      });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      const failure = alignFailure(err);
      await writeAlignAnswer(p.ep, job.id, { ok: false, ...failure });
      throw new Error(failure.error);
    }
  },
});
