// What a save answered: whether the bytes changed, and the rebuild's outcome (per pass only where the passes differ).
import type { Pass } from "../../route.ts";
import type { SourceSaveAnswer } from "../../types.ts";

export function SaveReport({ answer, at }: { answer: SourceSaveAnswer; at: Date }) {
  const build = answer.build;
  const passes = build ? (Object.keys(build.passes) as Pass[]) : [];
  const warnings = passes.reduce((n, p) => n + (build?.passes[p]?.report?.warnings?.length ?? 0), 0);
  const failed = passes.filter((p) => build?.passes[p] && !build.passes[p]?.ok);
  return (
    <div class="save-report" role="status">
      <span>{answer.changed ? `Saved at ${at.toLocaleTimeString()}.` : "Nothing changed on disk."}</span>
      {build === null ? <span class="muted">Not rebuilt.</span> : null}
      {build?.ok ? (
        <span class="ok">
          Built {passes.join(" and ")}
          {warnings ? (
            <span class="warn">
              {" "}
              ({warnings} warning{warnings === 1 ? "" : "s"})
            </span>
          ) : null}
          .
        </span>
      ) : null}
      {build && !build.ok ? (
        <span class="bad">
          Not built: {build.error ?? build.passes[failed[0]]?.error ?? "the build failed"}
        </span>
      ) : null}
      {build && !build.ok
        ? failed
            .filter((p) => build.passes[p]?.error && build.passes[p]?.error !== build.error)
            .map((p) => (
              <span key={p} class="bad">
                {p}: {build.passes[p]?.error}
              </span>
            ))
        : null}
    </div>
  );
}
