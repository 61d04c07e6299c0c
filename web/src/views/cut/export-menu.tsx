// The Cut view's Export menu: the pass's cut as a timeline file for another editor (GET /studio/timeline), saved
// as a download; the service's refusal (nothing plays, the pass not built) shows beside the button.
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api.ts";
import type { Pass } from "../../route.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import { EXPORT_FORMATS, exportFileName, exportText, type TimelineFormat } from "./export-formats.ts";

export function ExportMenu({ ep, pass, episode }: { ep: string; pass: Pass; episode: string }) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const run = useAction(async (format: TimelineFormat) => {
    setOpen(false);
    const answer = await api.get<unknown>("timeline", { ep, pass, format });
    save(exportText(answer), exportFileName(episode, pass, format));
  });
  // A click anywhere else closes the menu, as menus do.
  useEffect(() => {
    if (!open) return;
    const away = (e: MouseEvent) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", away);
    box.current?.querySelector<HTMLButtonElement>("[role=menuitem]")?.focus();
    return () => document.removeEventListener("mousedown", away);
  }, [open]);
  const onKey = (e: KeyboardEvent) => {
    const items = [...(box.current?.querySelectorAll<HTMLButtonElement>("[role=menuitem]") ?? [])];
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    if (e.key === "Escape") {
      setOpen(false);
      button.current?.focus();
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      items[(at + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length]?.focus();
    } else return;
    e.preventDefault();
    e.stopPropagation();
  };
  return (
    <div class="cut-export" ref={box}>
      <button
        ref={button}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        disabled={run.busy}
        onClick={() => {
          run.clear();
          setOpen(!open);
        }}
      >
        {run.busy ? "Exporting…" : "Export ▾"}
      </button>
      {open ? (
        <div class="cut-export-menu" role="menu" aria-label={`Export the ${pass} cut as`} onKeyDown={onKey}>
          {EXPORT_FORMATS.map((f) => (
            <button key={f.id} type="button" role="menuitem" onClick={() => run.run(f.id)}>
              <span>{f.label}</span>
              <span class="muted">
                .{f.id} · {f.opens}
              </span>
            </button>
          ))}
        </div>
      ) : null}
      <ErrorText error={run.error} />
    </div>
  );
}

/** Hand the text to the browser as a file to save. */
function save(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: "application/octet-stream" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
