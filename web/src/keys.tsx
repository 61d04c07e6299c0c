// Keyboard shortcuts: each view declares its keys with a description while it is shown; typing in a field or the
// script editor never triggers them; `?` lists the ones in force.
import { type Signal, signal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";

export interface Shortcut {
  /** `KeyboardEvent.key` values ("j", "ArrowDown", " ", "1"). */
  keys: string[];
  label: string;
  run(e: KeyboardEvent): void;
}

export interface Keys {
  list: Signal<Shortcut[]>;
  add(s: Shortcut): () => void;
  close(): void;
}

/** True when the key goes to a text field, a select or an editor rather than to the page. */
export function typingInto(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") {
    const type = (target as HTMLInputElement).type;
    return !["checkbox", "radio", "button", "submit", "range"].includes(type);
  }
  return false;
}

export function createKeys(): Keys {
  const list = signal<Shortcut[]>([]);
  const onKey = (e: KeyboardEvent) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typingInto(e.target)) return;
    // A focused button takes space and enter itself.
    if ((e.key === " " || e.key === "Enter") && e.target instanceof HTMLButtonElement) return;
    const hit = [...list.value].reverse().find((s) => s.keys.includes(e.key));
    if (!hit) return;
    e.preventDefault();
    hit.run(e);
  };
  addEventListener("keydown", onKey);
  return {
    list,
    add(s) {
      list.value = [...list.value, s];
      return () => {
        list.value = list.value.filter((x) => x !== s);
      };
    },
    close() {
      removeEventListener("keydown", onKey);
    },
  };
}

/** Keep `shortcuts` in force while the component is shown; the latest handlers run (no stale closures). */
export function useShortcuts(keys: Keys, shortcuts: Shortcut[]): void {
  const latest = useRef(shortcuts);
  latest.current = shortcuts;
  const signature = shortcuts.map((s) => `${s.keys.join("+")}:${s.label}`).join("|");
  useEffect(() => {
    const offs = latest.current.map((s, i) =>
      keys.add({ keys: s.keys, label: s.label, run: (e) => latest.current[i]?.run(e) }),
    );
    return () => {
      for (const off of offs) off();
    };
  }, [keys, signature]);
}

const SHOWN: Record<string, string> = {
  " ": "Space",
  ArrowDown: "↓",
  ArrowUp: "↑",
  ArrowLeft: "←",
  ArrowRight: "→",
};

export function keyName(k: string): string {
  return SHOWN[k] ?? k;
}
