// The check's problems under the editor, one row per error or warning; choosing a row puts the cursor on its line
// (in the other file's editor when the problem is there).
import type { Problem, SourceKind } from "./diagnostics.ts";
import { LABELS } from "./editor-setup.ts";

export function ProblemList({
  file,
  problems,
  goto,
}: {
  file: SourceKind;
  problems: Problem[];
  goto: (p: Problem) => void;
}) {
  if (problems.length === 0) return null;
  return (
    <ul class="problem-list" aria-label={`Problems in the ${LABELS[file].toLowerCase()} check`}>
      {problems.map((p, i) => (
        <li key={`${i}:${p.line}:${p.message}`} class={`problem sev-${p.severity}`}>
          <button type="button" class="problem-go" onClick={() => goto(p)}>
            <span class="problem-sev">{p.severity}</span>
            <span class="problem-where">
              {p.file === file ? "" : `${LABELS[p.file]} `}
              {p.line === null ? "—" : `line ${p.line}${p.col !== null ? `:${p.col}` : ""}`}
            </span>
            <span class="problem-msg">{p.message}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
