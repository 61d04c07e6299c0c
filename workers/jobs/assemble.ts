// The assemble job: a pass's cut joined into one mp4 (lib/assemble/assemble.ts), with progress per clip; with
// `upscaled` each clip plays its take's fresh upscale (`<ep>_up.mp4`), with `publish` the cut is then wrapped with
// the show's intro and outro into `<ep>/publish/`. The answer the route returns is written beside the output for
// the route to take; a refused or failed assembly also fails the job with the same reason, so the queue shows it.
import { pruneAnswers, writeAnswer } from "../../lib/assemble/answer.ts";
import { type AssembleAnswer, assembledNames, assembleEpisode } from "../../lib/assemble/assemble.ts";
import { assemblePayload } from "../../lib/assemble/payload.ts";
import { publishCut } from "../../lib/assemble/publish.ts";
import { episodeName } from "../../lib/episode/cut.ts";
import { defineJobKind } from "../../lib/jobs/kinds.ts";
import { episodeProbe } from "../../lib/upscale/fresh.ts";
import { playedVersion } from "../../lib/upscale/versions.ts";

export const assembleJob = defineJobKind({
  payload: assemblePayload,
  async run(job, ctx) {
    const p = job.payload;
    const services = ctx.services;
    await pruneAnswers(p.ep, p.pass, services.now().getTime());
    const probe = episodeProbe(services, p.ep);
    let answer: AssembleAnswer = await assembleEpisode(
      services,
      p.ep,
      p.pass,
      {
        partial: p.partial,
        size: p.size,
        ...(p.upscaled
          ? {
              names: assembledNames(await episodeName(services, p.ep), p.pass, true),
              play: async (c) => {
                const v = await playedVersion(services, p.ep, c.pass, c.shot, c.take, {
                  upscaled: true,
                  post: "off",
                  probe,
                });
                return { file: v.file ?? c.file, kind: v.kind, why: v.why };
              },
            }
          : {}),
      },
      {
        signal: ctx.signal,
        progress: ({ progress, step }) => ctx.progress({ progress, step }),
      },
    );
    if (p.publish && answer.ok && answer.output) {
      const cut = answer.output;
      try {
        const done = await publishCut(services, p.ep, p.pass, cut, {
          signal: ctx.signal,
          progress: ({ step }) => ctx.progress({ step: `publishing: ${step}` }),
        });
        answer = { ...answer, output: done.published, cut, published: done.published };
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        const why = err instanceof Error ? err.message : String(err);
        answer = { ...answer, ok: false, output: cut, cut, published: null, error: `not published: ${why}` };
      }
    }
    await writeAnswer(p.ep, p.pass, job.id, answer);
    const r = answer.report;
    ctx.progress({
      log: answer.ok
        ? `${answer.output}: ${r.clips} clip(s), ${r.frames} frames, ${r.copied} copied, ${r.reencoded} re-encoded${r.missing.length ? `, missing ${r.missing.join(", ")}` : ""}${r.scaled_up?.length ? `, scaled up from their takes ${r.scaled_up.join(", ")}` : ""}`
        : `not assembled: ${answer.error}`,
    });
    if (!answer.ok) throw new Error(answer.error ?? "the assembly failed");
  },
});
