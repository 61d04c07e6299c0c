// Issue notes on a shot (GET/POST/DELETE /studio/issues): what was wrong when watching it, each a snapshot of the
// shot then; the service marks a note addressed once the shot's story changed or a newer usable take exists.
import { useCallback, useEffect, useState } from "preact/hooks";
import { api, errorText } from "../../api.ts";
import { useStudio } from "../../context.ts";
import type { Pass } from "../../route.ts";
import type { Issue } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import { OPEN_DELAY_MS } from "./use-shot.ts";

/** The longest note the service keeps. */
const NOTE_MAX = 4000;

export function IssueNotes({ ep, pass, shot }: { ep: string; pass: Pass; shot: string }) {
  const studio = useStudio();
  const [issues, setIssues] = useState<Issue[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [note, setNote] = useState("");
  const load = useCallback(async () => {
    try {
      const a = await api.get<{ issues: Issue[] }>("issues", { ep, pass });
      setIssues(a.issues.filter((i) => i.shot === shot));
      setLoadError(null);
    } catch (err) {
      setLoadError(errorText(err));
    }
  }, [ep, pass, shot]);
  useEffect(() => {
    const first = setTimeout(() => void load(), OPEN_DELAY_MS);
    const offs = [
      studio.on("studio.issues", () => void load()),
      // Addressed is worked out on every read: a new take or a script change can flip it.
      studio.on("studio.take", (data) => {
        const e = data as { ep?: string; shot?: string; status?: string };
        if (e?.ep === ep && e.shot === shot && e.status !== "queued") void load();
      }),
      studio.on("studio.episode", (data) => {
        const e = data as { ep?: string } | null;
        if (!e?.ep || e.ep === ep) void load();
      }),
    ];
    return () => {
      clearTimeout(first);
      for (const off of offs) off();
    };
  }, [studio, load, ep, shot]);
  const add = useAction(async () => {
    await api.post("issues", { ep, pass, shot, note });
    setNote("");
    await load();
  });
  const remove = useAction(async (ids: string[]) => {
    await api.del("issues", {}, { ep, id: ids.join(",") });
    await load();
  });
  const addressed = (issues ?? []).filter((i) => i.addressed).map((i) => i.id);
  return (
    <div class="issues">
      <ErrorText error={loadError} />
      {issues?.length ? (
        <ul class="issue-list">
          {issues.map((i) => (
            <li key={i.id} class={i.addressed ? "addressed" : ""}>
              <p class="issue-note">{i.note}</p>
              <p class="muted small">
                {new Date(i.when).toLocaleString()}
                {i.take !== null ? ` · on t${String(i.take).padStart(2, "0")}` : ""}
                {i.addressed ? <span class="tag ok">addressed</span> : <span class="tag warn">open</span>}
                <button
                  type="button"
                  class="link-button"
                  onClick={() => remove.run([i.id])}
                  disabled={remove.busy}
                  aria-label={`Remove the note “${i.note.slice(0, 40)}”`}
                >
                  Remove
                </button>
              </p>
            </li>
          ))}
        </ul>
      ) : issues ? (
        <p class="muted">No notes on this shot.</p>
      ) : null}
      {addressed.length ? (
        <button type="button" onClick={() => remove.run(addressed)} disabled={remove.busy}>
          Remove the {addressed.length} addressed note{addressed.length === 1 ? "" : "s"}
        </button>
      ) : null}
      <ErrorText error={remove.error} />
      <form
        class="issue-add"
        onSubmit={(e) => {
          e.preventDefault();
          if (note.trim()) void add.run();
        }}
      >
        <label>
          New note on {shot} ({pass})
          <textarea
            rows={2}
            maxLength={NOTE_MAX}
            value={note}
            placeholder="What is wrong with this shot?"
            onInput={(e) => setNote(e.currentTarget.value)}
          />
        </label>
        <div class="row">
          <button type="submit" disabled={!note.trim() || add.busy}>
            Add note
          </button>
          <span class="muted small" aria-live="polite">
            {note.length > NOTE_MAX - 400 ? `${NOTE_MAX - note.length} characters left` : ""}
          </span>
        </div>
        <ErrorText error={add.error} />
      </form>
    </div>
  );
}
