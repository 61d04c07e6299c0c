// A save refused because the file changed on disk: the disk's version beside the user's (editable, with arrows that
// take a change from the disk), and the three ways out: keep mine, take the disk's, or save the merge made here.
import { MergeView } from "@codemirror/merge";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { useEffect, useRef } from "preact/hooks";
import { ErrorText } from "../../ui.tsx";
import type { SourceKind } from "./diagnostics.ts";
import { editorTheme, languageOf } from "./editor-setup.ts";
import type { Conflict } from "./source-pane.tsx";

export function ConflictPanel({
  file,
  conflict,
  busy,
  error,
  keepMine,
  takeDisk,
  saveMerged,
  close,
}: {
  file: SourceKind;
  conflict: Conflict;
  busy: boolean;
  error: string | null;
  keepMine: () => void;
  takeDisk: () => void;
  saveMerged: (text: string) => void;
  close: () => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const merge = useRef<MergeView | null>(null);
  useEffect(() => {
    if (!host.current) return;
    const common = [languageOf(file), editorTheme, EditorView.lineWrapping];
    merge.current = new MergeView({
      parent: host.current,
      a: {
        doc: conflict.disk,
        extensions: [
          ...common,
          EditorState.readOnly.of(true),
          EditorView.contentAttributes.of({ "aria-label": "The file on disk now (read only)" }),
        ],
      },
      b: {
        doc: conflict.mine,
        extensions: [
          ...common,
          EditorView.contentAttributes.of({ "aria-label": "Your text (editable merge)" }),
        ],
      },
      revertControls: "a-to-b",
      collapseUnchanged: { margin: 3, minSize: 6 },
    });
    return () => {
      merge.current?.destroy();
      merge.current = null;
    };
  }, [file, conflict]);
  return (
    <section class="conflict" aria-label="Save conflict">
      <header class="conflict-head">
        <p role="alert">
          <strong>The file changed on disk</strong> since you started editing. Left: the disk's version.
          Right: yours, which you can edit here; the arrows copy a change from the disk into yours.
        </p>
        <div class="row">
          <button type="button" onClick={keepMine} disabled={busy}>
            Keep mine
          </button>
          <button type="button" onClick={takeDisk} disabled={busy}>
            Take the disk's
          </button>
          <button
            type="button"
            class="primary"
            disabled={busy}
            onClick={() => merge.current && saveMerged(merge.current.b.state.doc.toString())}
          >
            Save the merge
          </button>
          <button type="button" class="ghost" onClick={close} disabled={busy}>
            Back to my text
          </button>
        </div>
        <ErrorText error={error} />
      </header>
      <div class="conflict-columns" aria-hidden="true">
        <span>On disk now</span>
        <span>Yours (merge here)</span>
      </div>
      <div class="conflict-merge" ref={host} />
    </section>
  );
}
