// The master: the plan's size and counts, what stands before an assembly, the choices a master takes (post-processes,
// conform, gaps, ProRes, queue order), the three actions (queue what is missing, assemble, ProRes) each with the
// service's answer beside it, the master job's live stage, and the master itself to play.
import { useState } from "preact/hooks";
import { api, fileUrl, thumbUrl } from "../../api.ts";
import type { Pass } from "../../route.ts";
import type { MasterAnswer } from "../../types.ts";
import { ErrorText, Panel, useAction } from "../../ui.tsx";
import { countsText, jobFraction, jobLine, planHint } from "./finishing-model.ts";
import type { Finishing, PostMode } from "./use-finishing.ts";

export interface MasterChoices {
  post: PostMode;
  conform: boolean;
  allowGaps: boolean;
  prores: boolean;
  order: "cut" | "target";
}

export function MasterPanel({
  ep,
  pass,
  fin,
  choices,
  choose,
}: {
  ep: string;
  pass: Pass;
  fin: Finishing;
  choices: MasterChoices;
  choose(c: Partial<MasterChoices>): void;
}) {
  const { plan } = fin;
  const body = (action: string) => ({
    ep,
    pass,
    action,
    post: choices.post,
    conform: choices.conform,
    allow_gaps: choices.allowGaps,
    prores: choices.prores,
    order: choices.order,
  });
  const [queued, setQueued] = useState<Pick<MasterAnswer, "queued" | "errors"> | null>(null);
  const queue = useAction(async () => {
    setQueued(null);
    const a = await api.post<MasterAnswer>("master", body("queue"));
    fin.took(a);
    setQueued({ queued: a.queued ?? [], errors: a.errors ?? [] });
  });
  const assemble = useAction(async () => fin.took(await api.post<MasterAnswer>("master", body("assemble"))));
  const prores = useAction(async () => {
    const a = await api.post<MasterAnswer>("master", { ep, pass, action: "prores" });
    fin.reload();
    return a;
  });
  const job =
    fin.job && (fin.job.pass === pass || fin.job.pass === null || fin.job.elsewhere) ? fin.job : null;
  const line = job ? jobLine(job) : null;
  const fraction = job ? jobFraction(job) : null;
  const running = job?.state === "running";
  const hint = plan ? planHint(plan, choices.allowGaps) : null;
  const toQueue = plan ? plan.counts.upscale + plan.counts.post : 0;
  const master = fin.existing;
  const stamp = fin.job?.finished ?? "";
  return (
    <Panel
      title={`Master · ${pass}`}
      actions={
        plan ? (
          <span class="muted master-facts">
            {plan.size[0]}×{plan.size[1]} · {plan.fit} · {plan.quality}
          </span>
        ) : null
      }
    >
      <ErrorText error={fin.planError} />
      <div class={master ? "master-body with-result" : "master-body"}>
        <div class="master-controls">
          <fieldset class="master-choices" aria-label="Master choices">
            <label>
              Post-processes{" "}
              <select
                value={choices.post}
                onChange={(e) => choose({ post: e.currentTarget.value as PostMode })}
              >
                <option value="off">off (upscales only)</option>
                <option value="present">where present</option>
                <option value="recipe">by the post recipe</option>
              </select>
            </label>
            <label>
              Queue order{" "}
              <select
                value={choices.order}
                onChange={(e) => choose({ order: e.currentTarget.value as MasterChoices["order"] })}
              >
                <option value="cut">cut order</option>
                <option value="target">grouped by model</option>
              </select>
            </label>
            <label class="inline">
              <input
                type="checkbox"
                checked={choices.conform}
                onChange={(e) => choose({ conform: e.currentTarget.checked })}
              />
              Redo upscales made with other settings
            </label>
            <label class="inline">
              <input
                type="checkbox"
                checked={choices.allowGaps}
                onChange={(e) => choose({ allowGaps: e.currentTarget.checked })}
              />
              Allow gaps (scaled up from their takes)
            </label>
            <label class="inline">
              <input
                type="checkbox"
                checked={choices.prores}
                onChange={(e) => choose({ prores: e.currentTarget.checked })}
              />
              ProRes 422 HQ copy
            </label>
          </fieldset>
          {plan && hint ? (
            <p class="master-summary" role="status">
              <span>{countsText(plan)}</span>
              <span class={`tone-${hint.tone}`}>{hint.text}</span>
            </p>
          ) : null}
          <div class="master-actions">
            <button
              type="button"
              disabled={queue.busy || !plan}
              onClick={() => queue.run()}
              title="Queue the upscales (and post-processes) the plan lacks"
            >
              {queue.busy ? "Queueing…" : toQueue ? `Queue ${toQueue} missing` : "Queue missing"}
            </button>
            <button
              type="button"
              class="primary"
              disabled={assemble.busy || running || !plan}
              onClick={() => assemble.run()}
            >
              {assemble.busy ? "Assembling…" : "Assemble master"}
            </button>
            <button
              type="button"
              disabled={prores.busy || running || !master}
              onClick={() => prores.run()}
              title="A ProRes 422 HQ .mov of the master as it is"
            >
              {prores.busy ? "Making ProRes…" : "ProRes of this master"}
            </button>
          </div>
          <ErrorText error={queue.error} />
          {queued ? (
            <p class="muted" role="status">
              {queued.queued?.length ? `Queued ${queued.queued.join(", ")}` : "Nothing to queue"}
            </p>
          ) : null}
          {queued?.errors?.length ? (
            <ul class="master-errors" aria-label="Not queued">
              {queued.errors.map((e) => (
                <li key={e.shot} class="error">
                  {e.shot}: {e.error}
                </li>
              ))}
            </ul>
          ) : null}
          <ErrorText error={assemble.error} />
          <ErrorText error={prores.error} />
          {line ? (
            <div class="master-job" role="status" aria-live="polite">
              {running ? (
                <progress max={1} value={fraction ?? undefined} aria-label="Master progress" />
              ) : null}
              <span class={`tone-${line.tone}`}>{line.text}</span>
            </div>
          ) : null}
          {!master && plan ? <p class="muted">No master at {plan.size.join("×")} yet.</p> : null}
        </div>
        {master ? (
          <section class="master-result" aria-label="Master output">
            {/* biome-ignore lint/a11y/useMediaCaption: a master has no caption track */}
            <video
              key={`${master.output}${stamp}`}
              controls
              preload="metadata"
              src={`${fileUrl(ep, master.output)}&v=${encodeURIComponent(stamp)}`}
              poster={`${thumbUrl(ep, master.output, 640)}&v=${encodeURIComponent(stamp)}`}
              aria-label="The master"
            />
            <p>
              <code>{master.output}</code>
              {master.mov ? (
                <>
                  {" · "}
                  <a href={fileUrl(ep, master.mov)} download>
                    ProRes .mov
                  </a>
                </>
              ) : null}
              {fin.job?.report && fin.job.state === "done" ? (
                <>
                  {" · "}
                  <a href={fileUrl(ep, fin.job.report)} target="_blank" rel="noreferrer">
                    report
                  </a>
                </>
              ) : null}
            </p>
          </section>
        ) : null}
      </div>
    </Panel>
  );
}
