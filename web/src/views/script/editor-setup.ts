// What every source editor is made of: line numbers, undo, the file's language and colours, the lint gutter, Ctrl/Cmd+S,
// and the dark theme; the check itself is handed in (it needs the episode).
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { bracketMatching, syntaxHighlighting } from "@codemirror/language";
import { type Diagnostic, type LintSource, linter, lintGutter } from "@codemirror/lint";
import type { Extension } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import type { Placed, SourceKind } from "./diagnostics.ts";
import { highlightClasses, jsonLanguage, scriptLanguage } from "./languages.ts";

/** How long typing must pause before the text is checked. */
export const CHECK_DELAY_MS = 400;

export const LABELS: Record<SourceKind, string> = { script: "Script", series: "Series config" };

export const editorTheme = EditorView.theme(
  {
    "&": { height: "100%", backgroundColor: "var(--bg)", color: "var(--text)" },
    ".cm-scroller": {
      fontFamily: 'ui-monospace, "SF Mono", Menlo, Consolas, monospace',
      fontSize: "13px",
      lineHeight: "1.55",
    },
    ".cm-content": { caretColor: "var(--accent)", padding: "8px 0" },
    ".cm-gutters": {
      backgroundColor: "var(--panel)",
      color: "var(--muted)",
      borderRight: "1px solid var(--line)",
    },
    ".cm-activeLine": { backgroundColor: "rgba(255,255,255,0.035)" },
    ".cm-activeLineGutter": { backgroundColor: "var(--raised)", color: "var(--text)" },
    "&.cm-focused .cm-cursor": { borderLeftColor: "var(--accent)" },
    "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": {
      backgroundColor: "rgba(90,169,255,0.28)",
    },
    ".cm-tooltip": {
      backgroundColor: "var(--raised)",
      border: "1px solid var(--line)",
      color: "var(--text)",
    },
    ".cm-diagnostic-error": { borderLeftColor: "var(--bad)" },
    ".cm-diagnostic-warning": { borderLeftColor: "var(--warn)" },
    ".cm-lintRange-error": { backgroundImage: "none", textDecoration: "underline wavy var(--bad)" },
    ".cm-lintRange-warning": { backgroundImage: "none", textDecoration: "underline wavy var(--warn)" },
    ".cm-lintRange-info": { backgroundImage: "none", textDecoration: "underline dotted var(--muted)" },
  },
  { dark: true },
);

export function asDiagnostics(placed: readonly Placed[]): Diagnostic[] {
  return placed.map((p) => ({ from: p.from, to: p.to, severity: p.severity, message: p.message }));
}

/** The read-only look shared by the diff views (history, conflict). */
export function languageOf(file: SourceKind): Extension {
  return [file === "script" ? scriptLanguage : jsonLanguage, syntaxHighlighting(highlightClasses)];
}

export function sourceExtensions(opts: {
  file: SourceKind;
  label: string;
  check: LintSource;
  save: () => void;
}): Extension {
  return [
    lineNumbers(),
    highlightActiveLineGutter(),
    history(),
    drawSelection(),
    highlightActiveLine(),
    opts.file === "series" ? bracketMatching() : EditorView.lineWrapping,
    languageOf(opts.file),
    linter(opts.check, { delay: CHECK_DELAY_MS }),
    lintGutter(),
    keymap.of([
      {
        key: "Mod-s",
        preventDefault: true,
        run: () => {
          opts.save();
          return true;
        },
      },
      ...defaultKeymap,
      ...historyKeymap,
    ]),
    EditorView.contentAttributes.of({ "aria-label": opts.label }),
    editorTheme,
  ];
}
