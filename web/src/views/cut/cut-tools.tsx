// Reset the pass's cut (script order, no trims, the clips' own sound, or all three) or copy those from the other
// pass, each behind a confirmation that says what it rewrites.
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import type { Pass } from "../../route.ts";
import { ErrorText, useAction } from "../../ui.tsx";

type What = "order" | "trims" | "audio" | "all";

const WHAT: Record<What, string> = {
  order: "the order",
  trims: "the trims",
  audio: "the sound choices",
  all: "order, trims and sound",
};

const RESET: Record<What, string> = {
  order: "puts the shots back in script order (picks, locks, notes, out and flags stay)",
  trims: "clears every trim except on locked clips",
  audio: "gives every clip its own sound again, except locked clips",
  all: "puts the script order back and clears trims and sound choices (locked clips keep theirs)",
};

export function CutTools({ ep, pass, onDone }: { ep: string; pass: Pass; onDone(): Promise<void> }) {
  const other: Pass = pass === "final" ? "proxy" : "final";
  const [what, setWhat] = useState<What>("all");
  const [asking, setAsking] = useState<"reset" | "copy" | null>(null);
  const run = useAction(async (kind: "reset" | "copy") => {
    if (kind === "reset") await api.post("cut/reset", { ep, pass, what });
    else await api.post("cut/copy", { ep, from: other, to: pass, what });
    setAsking(null);
    await onDone();
  });
  return (
    <div class="cut-tools">
      <label class="inline">
        <span class="muted">Cut:</span>
        <select
          value={what}
          aria-label="What to reset or copy"
          onChange={(e) => setWhat(e.currentTarget.value as What)}
        >
          <option value="all">Everything</option>
          <option value="order">Order</option>
          <option value="trims">Trims</option>
          <option value="audio">Sound</option>
        </select>
      </label>
      <button type="button" onClick={() => setAsking("reset")} aria-expanded={asking === "reset"}>
        Reset…
      </button>
      <button type="button" onClick={() => setAsking("copy")} aria-expanded={asking === "copy"}>
        Copy from {other}…
      </button>
      {asking ? (
        <div class="cut-confirm" role="alertdialog" aria-label="Confirm">
          <span>
            {asking === "reset"
              ? `Reset ${WHAT[what]} of the ${pass} cut? This ${RESET[what]}.`
              : `Copy ${WHAT[what]} of the ${other} cut onto the ${pass} cut? Picks, locks, notes and flags are not copied; locked clips keep theirs.`}
          </span>
          <button type="button" class="danger" disabled={run.busy} onClick={() => run.run(asking)}>
            {asking === "reset" ? "Reset" : "Copy"}
          </button>
          <button type="button" onClick={() => setAsking(null)}>
            Cancel
          </button>
        </div>
      ) : null}
      <ErrorText error={run.error} />
    </div>
  );
}
