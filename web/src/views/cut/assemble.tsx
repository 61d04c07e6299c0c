// Assemble the pass's cut into one mp4 (POST /studio/assemble waits until it is done): the job's progress while it
// runs, then the answer's report (each shot used, missing or left out and why, copied or re-encoded, its sound)
// and the assembled file playable in place.
import { useEffect, useState } from "preact/hooks";
import { api, fileUrl } from "../../api.ts";
import { useStudio } from "../../context.ts";
import type { Pass } from "../../route.ts";
import { ErrorText, Panel, seconds, useAction } from "../../ui.tsx";

interface ReportRow {
  shot: string;
  take: number | null;
  pass: Pass;
  status: "used" | "missing" | "out";
  why: string;
  frames: number | null;
  picture: "copied" | "re-encoded" | null;
  sound: string | null;
}

interface AssembleAnswer {
  ok: boolean;
  output: string | null;
  error?: string;
  report: {
    fps: number;
    width: number;
    height: number;
    clips: number;
    frames: number;
    seconds: number;
    copied: number;
    reencoded: number;
    missing: string[];
    out: string[];
    shots_file: string | null;
    rows: ReportRow[];
  } | null;
}

interface LastAssembled {
  output: string;
  shots_file: string | null;
  modified: string;
}

export function AssemblePanel({ ep, pass }: { ep: string; pass: Pass }) {
  const studio = useStudio();
  const [partial, setPartial] = useState(false);
  const [answer, setAnswer] = useState<(AssembleAnswer & { at: number }) | null>(null);
  const [last, setLast] = useState<LastAssembled | null>(null);
  // The cut assembled before the page was opened (or on another pass) plays too, until a new one is made.
  useEffect(() => {
    let live = true;
    setLast(null);
    api
      .get<{ assembled: LastAssembled | null }>("assemble/last", { ep, pass })
      .then((a) => live && setLast(a.assembled))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [ep, pass]);
  const run = useAction(async () => {
    setAnswer(null);
    const a = await api.post<AssembleAnswer>("assemble", { ep, pass, partial });
    setAnswer({ ...a, at: Date.now() });
  });
  const job = run.busy
    ? studio.jobs.value.value?.jobs.find(
        (j) => j.kind === "assemble" && j.info.ep === ep && j.info.pass === pass && j.status === "running",
      )
    : undefined;
  const r = answer?.report;
  return (
    <Panel
      title="Assemble"
      actions={
        <>
          <label class="inline">
            <input type="checkbox" checked={partial} onChange={(e) => setPartial(e.currentTarget.checked)} />
            Leave out shots with no usable take
          </label>
          <button type="button" class="primary" disabled={run.busy} onClick={() => run.run()}>
            {run.busy ? "Assembling…" : `Assemble the ${pass} cut`}
          </button>
        </>
      }
    >
      {run.busy ? (
        <div class="cut-progress" role="status">
          <progress max={1} value={job?.progress ?? undefined} aria-label="Assembly progress" />
          <span class="muted">
            {job?.log?.[job.log.length - 1] ?? job?.title ?? "waiting for the builtin lane…"}
          </span>
        </div>
      ) : null}
      <ErrorText error={run.error} />
      {!answer && !run.busy && last ? (
        <section class="cut-report" aria-label="Last assembled cut">
          <p>
            <code>{last.output}</code>
            <span class="muted"> · assembled {new Date(last.modified).toLocaleString()}</span>
            {last.shots_file ? (
              <>
                {" · "}
                <a href={fileUrl(ep, last.shots_file)} target="_blank" rel="noreferrer">
                  shot list
                </a>
              </>
            ) : null}
          </p>
          {/* biome-ignore lint/a11y/useMediaCaption: an assembled cut has no caption track */}
          <video
            class="cut-result"
            controls
            preload="metadata"
            src={`${fileUrl(ep, last.output)}&v=${encodeURIComponent(last.modified)}`}
            aria-label="The assembled cut"
          />
        </section>
      ) : null}
      {answer ? (
        <section class="cut-report" aria-label="Assembly report">
          {answer.ok ? (
            <p class="ok" role="status">
              Assembled {r?.clips} clip{r?.clips === 1 ? "" : "s"} · {seconds(r?.seconds)} · {r?.frames}{" "}
              frames at {r?.fps} fps · {r?.width}×{r?.height} · {r?.copied} copied, {r?.reencoded} re-encoded
            </p>
          ) : (
            <ErrorText error={answer.error ?? "the assembly failed"} />
          )}
          {answer.output ? (
            <>
              <p>
                <code>{answer.output}</code>
                {r?.shots_file ? (
                  <>
                    {" · "}
                    <a href={fileUrl(ep, r.shots_file)} target="_blank" rel="noreferrer">
                      shot list
                    </a>
                  </>
                ) : null}
              </p>
              {/* biome-ignore lint/a11y/useMediaCaption: an assembled cut has no caption track */}
              <video
                key={answer.at}
                class="cut-result"
                controls
                preload="metadata"
                src={`${fileUrl(ep, answer.output)}&v=${answer.at}`}
                aria-label="The assembled cut"
              />
            </>
          ) : null}
          {r && (r.missing.length || r.out.length) ? (
            <p class="warn">
              {r.missing.length ? `Missing: ${r.missing.join(", ")}. ` : ""}
              {r.out.length ? `Left out: ${r.out.join(", ")}.` : ""}
            </p>
          ) : null}
          {r?.rows.length ? (
            <table class="cut-rows">
              <thead>
                <tr>
                  <th scope="col">Shot</th>
                  <th scope="col">Take</th>
                  <th scope="col">Status</th>
                  <th scope="col">Frames</th>
                  <th scope="col">Picture</th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                {r.rows.map((row) => (
                  <tr key={row.shot} class={row.status}>
                    <td>{row.shot}</td>
                    <td>
                      {row.take === null ? "–" : `t${String(row.take).padStart(2, "0")}`}
                      {row.pass !== pass ? ` (${row.pass})` : ""}
                    </td>
                    <td>{row.status}</td>
                    <td class="num">{row.frames ?? "–"}</td>
                    <td>{row.picture ?? "–"}</td>
                    <td>{row.why}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </section>
      ) : null}
    </Panel>
  );
}
