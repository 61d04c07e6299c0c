// The saved versions of the file in the editor (the service's history copies), newest first: choosing one shows
// what restoring it would change in the current text; Restore puts it in the editor, unsaved until saved.
import { unifiedMergeView } from "@codemirror/merge";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api.ts";
import type { HistoryAnswer, VersionAnswer } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import type { SourceKind } from "./diagnostics.ts";
import { editorTheme, LABELS, languageOf } from "./editor-setup.ts";

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

function when(local: string): string {
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toLocaleString();
}

export function HistoryDrawer({
  ep,
  file,
  saves,
  current,
  restore,
  close,
}: {
  ep: string;
  file: SourceKind;
  /** Counts saves, so a new copy is listed as soon as a save made it. */
  saves: number;
  current: () => string;
  restore: (text: string) => void;
  close: () => void;
}) {
  const [list, setList] = useState<HistoryAnswer | null>(null);
  const [chosen, setChosen] = useState<VersionAnswer | null>(null);
  const load = useAction(async () => {
    setList(await api.get<HistoryAnswer>("source/history", { ep, file }));
  });
  const open = useAction(async (id: string) => {
    setChosen(await api.get<VersionAnswer>("source/version", { ep, file, id }));
  });
  useEffect(() => {
    setChosen(null);
    void load.run();
  }, [ep, file, saves]);
  return (
    <aside class="drawer" aria-label={`History of the ${LABELS[file].toLowerCase()}`}>
      <header class="drawer-head">
        <h2>History · {LABELS[file]}</h2>
        <button type="button" class="ghost" onClick={close} aria-label="Close the history">
          ×
        </button>
      </header>
      <ErrorText error={load.error} />
      {list && list.versions.length === 0 ? (
        <p class="muted">No saved versions yet: each save keeps the text it replaces here (the newest 30).</p>
      ) : null}
      <ul class="versions" aria-label="Saved versions">
        {list?.versions.map((v) => (
          <li key={v.id}>
            <button
              type="button"
              class={chosen?.id === v.id ? "version on" : "version"}
              aria-pressed={chosen?.id === v.id}
              onClick={() => void open.run(v.id)}
            >
              <span>{when(v.when)}</span>
              <span class="muted">{size(v.size)}</span>
            </button>
          </li>
        ))}
      </ul>
      <ErrorText error={open.error} />
      {chosen ? (
        <div class="version-diff">
          <div class="row">
            <span class="muted">
              Restoring {when(chosen.when)}: <span class="add">green</span> comes back,{" "}
              <span class="del">red</span> goes.
            </span>
            <button type="button" class="primary" onClick={() => restore(chosen.text)}>
              Restore this version
            </button>
          </div>
          <DiffView file={file} from={current()} to={chosen.text} />
        </div>
      ) : null}
    </aside>
  );
}

/** A read-only unified diff of two texts, coloured in the file's language. */
function DiffView({ file, from, to }: { file: SourceKind; from: string; to: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return;
    const view = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: to,
        extensions: [
          languageOf(file),
          editorTheme,
          EditorView.lineWrapping,
          EditorState.readOnly.of(true),
          EditorView.editable.of(false),
          EditorView.contentAttributes.of({ "aria-label": "Differences from the current text" }),
          unifiedMergeView({
            original: from,
            mergeControls: false,
            gutter: true,
            collapseUnchanged: { margin: 3, minSize: 6 },
          }),
        ],
      }),
    });
    return () => view.destroy();
  }, [file, from, to]);
  return <div class="diff-view" ref={host} />;
}
