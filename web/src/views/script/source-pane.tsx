// One authored file in its editor: loaded from the service (or from the unsaved draft kept in the browser), checked
// as it is typed, saved with the hash it was typed over, and a 409 turned into the conflict panel. Both panes stay
// mounted while the view is shown so switching files keeps each one's text, cursor and undo.
import { forceLinting, setDiagnostics } from "@codemirror/lint";
import { EditorSelection, EditorState, type Extension } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, api, errorText } from "../../api.ts";
import { useStudio } from "../../context.ts";
import type { CheckAnswer, SourceAnswer, SourceSaveAnswer } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import { ConflictPanel } from "./conflict-panel.tsx";
import {
  countText,
  type Placed,
  type Problem,
  placeAll,
  problemsOf,
  type SourceKind,
} from "./diagnostics.ts";
import { clearDraft, type DraftStore, opening, readDraft, writeDraft } from "./drafts.ts";
import { asDiagnostics, LABELS, sourceExtensions } from "./editor-setup.ts";
import { ProblemList } from "./problem-list.tsx";
import { SaveReport } from "./save-report.tsx";

/** What the view asks of a pane (going to a line, the text for a diff, restoring a version, reloading). */
export interface PaneApi {
  goto(line: number | null, col: number | null): void;
  text(): string;
  /** Put `text` in the editor as an edit (undo takes it back); unsaved until the user saves. */
  replace(text: string): void;
  /** Read the file again when nothing unsaved is in the editor; true when it did. */
  reloadIfClean(): Promise<boolean>;
  dirty(): boolean;
  save(): void;
  /** Check again now (the other file changed on disk, and this file's check reads it). */
  recheck(): void;
}

export interface Conflict {
  /** The file on disk now: its hash (the next save's base) and text. */
  hash: string;
  disk: string;
  /** The text the refused save carried. */
  mine: string;
  message: string;
}

interface Restored {
  at: number;
  base: string;
  diskChanged: boolean;
}

// localStorage can be missing or refuse access (privacy settings); drafts then simply are not kept.
const storage: DraftStore = {
  getItem: (k) => localStorage.getItem(k),
  setItem: (k, v) => localStorage.setItem(k, v),
  removeItem: (k) => localStorage.removeItem(k),
};

const DRAFT_EVERY_MS = 250;

export function SourcePane({
  ep,
  file,
  active,
  register,
  gotoOther,
  onSaved,
  onDirty,
  focusShot,
}: {
  ep: string;
  file: SourceKind;
  active: boolean;
  register: (file: SourceKind, api: PaneApi | null) => void;
  gotoOther: (file: SourceKind, line: number | null, col: number | null) => void;
  onSaved: (file: SourceKind) => void;
  onDirty: (file: SourceKind, dirty: boolean) => void;
  focusShot: string | null;
}) {
  const studio = useStudio();
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  /** The file on disk as last read or saved. */
  const disk = useRef<{ text: string; hash: string } | null>(null);
  /** The hash the editor's text was typed over: the next save's base_hash. */
  const base = useRef<string | null>(null);
  const dirtyRef = useRef(false);
  const [source, setSource] = useState<SourceAnswer | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [dirty, setDirty] = useState(false);
  const [draftRefused, setDraftRefused] = useState(false);
  const [restored, setRestored] = useState<Restored | null>(null);
  const [problems, setProblems] = useState<Problem[] | null>(null);
  const [checkError, setCheckError] = useState<string | null>(null);
  const [saved, setSaved] = useState<{ answer: SourceSaveAnswer; at: Date } | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const draftTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const markDirty = (d: boolean) => {
    dirtyRef.current = d;
    setDirty(d);
    onDirty(file, d);
  };

  const keepDraft = () => {
    clearTimeout(draftTimer.current);
    draftTimer.current = undefined;
    const v = view.current;
    if (!v || !disk.current || base.current === null) return;
    const text = v.state.doc.toString();
    if (text === disk.current.text && base.current === disk.current.hash) clearDraft(storage, ep, file);
    else setDraftRefused(!writeDraft(storage, ep, file, { text, base: base.current, at: Date.now() }));
  };

  /** Show `text` as the editor's whole document with fresh undo, e.g. after reading the file. */
  const open = (text: string) => {
    const v = view.current;
    if (!v) return;
    v.setState(EditorState.create({ doc: text, extensions: extensions.current }));
  };

  /** Read the file (and any kept draft) into the editor; `ifClean`: give up if typing started meanwhile. */
  const load = async (ifClean = false) => {
    setLoadError(null);
    let src: SourceAnswer;
    try {
      src = await api.get<SourceAnswer>("source", { ep, file });
    } catch (err) {
      setLoadError(errorText(err));
      return;
    }
    if (ifClean && dirtyRef.current) return;
    clearTimeout(draftTimer.current);
    draftTimer.current = undefined;
    setSource(src);
    disk.current = { text: src.text, hash: src.hash };
    const start = opening(readDraft(storage, ep, file), src);
    if (start.kind === "restored") {
      base.current = start.draft.base;
      open(start.draft.text);
      markDirty(true);
      setRestored({ at: start.draft.at, base: start.draft.base, diskChanged: start.diskChanged });
    } else {
      clearDraft(storage, ep, file);
      base.current = src.hash;
      open(src.text);
      markDirty(false);
      setRestored(null);
    }
    if (focusShot && file === "script") {
      const span = src.shots?.find((s) => s.id === focusShot);
      if (span) goto(span.line, null, false);
    }
  };

  const goto = (line: number | null, col: number | null, focus = true) => {
    const v = view.current;
    if (!v) return;
    const doc = v.state.doc;
    const l = doc.line(Math.min(Math.max(line ?? 1, 1), doc.lines));
    const at = Math.min(l.from + Math.max((col ?? 1) - 1, 0), l.to);
    v.dispatch({
      selection: EditorSelection.cursor(at),
      effects: EditorView.scrollIntoView(at, { y: "center" }),
    });
    if (focus) v.focus();
  };

  const showProblems = (answer: CheckAnswer, doc = view.current?.state.doc): Placed[] => {
    const list = problemsOf(answer, file);
    setProblems(list);
    setCheckError(null);
    return doc ? placeAll(list, file, doc) : [];
  };

  const save = useAction(async (text?: string, baseHash?: string) => {
    const v = view.current;
    if (!v || base.current === null) return;
    const body = text ?? v.state.doc.toString();
    const from = baseHash ?? base.current;
    let answer: SourceSaveAnswer;
    try {
      answer = await api.put<SourceSaveAnswer>("source", { ep, file, text: body, base_hash: from });
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        const b = err.body as { hash?: string; text?: string };
        if (typeof b?.hash === "string" && typeof b.text === "string") {
          setConflict({ hash: b.hash, disk: b.text, mine: body, message: err.message });
          return;
        }
      }
      throw err;
    }
    disk.current = { text: body, hash: answer.hash };
    base.current = answer.hash;
    setConflict(null);
    setRestored(null);
    setSaved({ answer, at: new Date() });
    // The editor shows what was saved (a merge saved from the conflict panel, say) unless typing went on meanwhile.
    if (text !== undefined && v.state.doc.toString() !== body) {
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: body } });
    }
    const now = v.state.doc.toString();
    markDirty(now !== body);
    keepDraft();
    if (now === body) v.dispatch(setDiagnostics(v.state, asDiagnostics(showProblems(answer.check))));
    onSaved(file);
    void studio.refreshEpisode();
  });
  const saveRef = useRef(save);
  saveRef.current = save;

  const check = async (v: EditorView) => {
    const doc = v.state.doc;
    // The empty document the editor starts with is no text of this file.
    if (!disk.current) return [];
    try {
      const answer = await api.post<CheckAnswer>("source/check", { ep, file, text: doc.toString() });
      // Typing went on: this answer is about an older text, and the next check is already coming.
      if (v.state.doc !== doc) return [];
      return asDiagnostics(showProblems(answer, doc));
    } catch (err) {
      if (v.state.doc === doc) setCheckError(errorText(err));
      return [];
    }
  };
  const checkRef = useRef(check);
  checkRef.current = check;

  const extensions = useRef<Extension>([]);

  // The editor lives as long as the pane; the pane lives as long as the episode is shown.
  useEffect(() => {
    if (!host.current) return;
    extensions.current = [
      sourceExtensions({
        file,
        label: `${LABELS[file]} text`,
        check: (v) => checkRef.current(v),
        save: () => void saveRef.current.run(),
      }),
      EditorView.updateListener.of((u) => {
        if (!u.docChanged || !disk.current) return;
        markDirty(u.state.doc.toString() !== disk.current.text || base.current !== disk.current.hash);
        if (draftTimer.current === undefined) draftTimer.current = setTimeout(keepDraft, DRAFT_EVERY_MS);
      }),
    ];
    view.current = new EditorView({
      parent: host.current,
      state: EditorState.create({ doc: "", extensions: extensions.current }),
    });
    void load();
    // A page closed within the draft interval still keeps what was typed last.
    const flush = () => {
      if (draftTimer.current !== undefined) keepDraft();
    };
    addEventListener("pagehide", flush);
    return () => {
      flush();
      removeEventListener("pagehide", flush);
      view.current?.destroy();
      view.current = null;
    };
  }, []);

  // Someone else saved (another tab, a promote): read it again when nothing unsaved would be lost.
  const reloadIfClean = async () => {
    if (dirtyRef.current || conflict) return false;
    await load(true);
    return true;
  };
  useEffect(
    () =>
      studio.on("studio.episode", async (data) => {
        const e = data as { ep?: string };
        if (e?.ep !== ep || dirtyRef.current || !disk.current) return;
        const now = await api.get<{ hash: string }>("source", { ep, file, hash_only: 1 }).catch(() => null);
        if (now && now.hash !== disk.current.hash && !dirtyRef.current) await load(true);
      }),
    [studio, ep, file],
  );

  // The problem list under the editor grows and shrinks with the check: keep the line being typed in sight.
  const shownProblems = problems?.length ?? 0;
  useEffect(() => {
    const v = view.current;
    if (v?.hasFocus) {
      v.dispatch({ effects: EditorView.scrollIntoView(v.state.selection.main.head, { y: "nearest" }) });
    }
  }, [shownProblems]);

  const apiRef = useRef<PaneApi | null>(null);
  apiRef.current = {
    goto: (line, col) => goto(line, col),
    text: () => view.current?.state.doc.toString() ?? "",
    replace: (text) => {
      const v = view.current;
      if (!v) return;
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text } });
      v.focus();
    },
    reloadIfClean,
    dirty: () => dirtyRef.current,
    save: () => void save.run(),
    recheck: () => {
      if (view.current) forceLinting(view.current);
    },
  };
  useEffect(() => {
    register(file, {
      goto: (l, c) => apiRef.current?.goto(l, c),
      text: () => apiRef.current?.text() ?? "",
      replace: (t) => apiRef.current?.replace(t),
      reloadIfClean: () => apiRef.current?.reloadIfClean() ?? Promise.resolve(false),
      dirty: () => apiRef.current?.dirty() ?? false,
      save: () => apiRef.current?.save(),
      recheck: () => apiRef.current?.recheck(),
    });
    return () => register(file, null);
  }, [register, file]);

  const discardRestored = () => {
    clearDraft(storage, ep, file);
    setRestored(null);
    void load();
  };

  const state = conflict ? "conflict with the disk" : dirty ? "unsaved changes" : "saved";

  return (
    <section class="source-pane" hidden={!active} aria-label={`${LABELS[file]} editor`}>
      <div class="source-status">
        <code class="source-path" title={source?.path}>
          {source?.path ?? LABELS[file]}
        </code>
        <span class={`save-state ${dirty || conflict ? "warn" : "muted"}`} role="status" aria-live="polite">
          {dirty ? "● " : ""}
          {state}
        </span>
        <span class="check-state" role="status" aria-live="polite">
          {checkError ? (
            <span class="bad">check failed: {checkError}</span>
          ) : problems ? (
            <span
              class={problems.some((p) => p.severity === "error") ? "bad" : problems.length ? "warn" : "ok"}
            >
              {countText(problems)}
            </span>
          ) : (
            <span class="muted">checking…</span>
          )}
        </span>
        <span class="grow" />
        <button
          type="button"
          class={dirty ? "primary" : ""}
          onClick={() => void save.run()}
          disabled={save.busy || !source || !!conflict}
          title="Save (Ctrl+S / ⌘S)"
          aria-keyshortcuts="Control+S Meta+S"
        >
          {save.busy ? "Saving…" : "Save"}
        </button>
      </div>
      <ErrorText error={loadError} />
      <ErrorText error={save.error} />
      {draftRefused ? (
        <p class="warn note" role="alert">
          The browser refused to keep a copy of your unsaved text: save before closing this page.
        </p>
      ) : null}
      {restored ? (
        <div class="note restored" role="status">
          <span>
            Unsaved changes restored from {new Date(restored.at).toLocaleString()}, typed over version{" "}
            <code>{restored.base.slice(0, 8)}</code>.
            {restored.diskChanged
              ? " The file changed on disk since: saving will show both versions."
              : " Save to keep them."}
          </span>
          <button type="button" class="ghost" onClick={discardRestored}>
            Discard them
          </button>
          <button type="button" class="ghost" aria-label="Hide this note" onClick={() => setRestored(null)}>
            ×
          </button>
        </div>
      ) : null}
      {conflict ? (
        <ConflictPanel
          file={file}
          conflict={conflict}
          busy={save.busy}
          error={save.error}
          keepMine={() => void save.run(conflict.mine, conflict.hash)}
          saveMerged={(text) => void save.run(text, conflict.hash)}
          takeDisk={() => {
            clearDraft(storage, ep, file);
            setConflict(null);
            void load();
          }}
          close={() => setConflict(null)}
        />
      ) : null}
      <div class="source-editor" ref={host} hidden={!!conflict} />
      <ProblemList
        file={file}
        problems={problems ?? []}
        goto={(p) => (p.file === file ? goto(p.line, p.col) : gotoOther(p.file, p.line, p.col))}
      />
      {saved ? <SaveReport answer={saved.answer} at={saved.at} /> : null}
    </section>
  );
}
