// Unsaved text kept in the browser per episode and file as it is typed, with the hash of the disk version it was
// typed over, so a reload restores it and a disk that changed meanwhile still raises the save's conflict.

/** The part of `localStorage` drafts use (a test gives a Map-backed one). */
export interface DraftStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface Draft {
  text: string;
  /** The hash of the file on disk the text was typed over: the save's `base_hash`. */
  base: string;
  /** When it was last typed (ms since the epoch). */
  at: number;
}

export function draftKey(ep: string, file: string): string {
  return `episode-studio.draft.${file}:${ep}`;
}

export function readDraft(store: DraftStore, ep: string, file: string): Draft | null {
  let raw: string | null;
  try {
    raw = store.getItem(draftKey(ep, file));
  } catch {
    return null;
  }
  if (!raw) return null;
  try {
    const d = JSON.parse(raw) as Partial<Draft>;
    if (typeof d.text !== "string" || typeof d.base !== "string") return null;
    return { text: d.text, base: d.base, at: typeof d.at === "number" ? d.at : 0 };
  } catch {
    return null;
  }
}

/** Keep the draft; false when the browser refused it (storage full or off), so the page can say so. */
export function writeDraft(store: DraftStore, ep: string, file: string, draft: Draft): boolean {
  try {
    store.setItem(draftKey(ep, file), JSON.stringify(draft));
    return true;
  } catch {
    return false;
  }
}

export function clearDraft(store: DraftStore, ep: string, file: string): void {
  try {
    store.removeItem(draftKey(ep, file));
  } catch {
    // Storage switched off: there is nothing kept to clear.
  }
}

export type Opening = { kind: "disk" } | { kind: "restored"; draft: Draft; diskChanged: boolean };

/**
 * What the editor opens with: the disk's text, or a kept draft that differs from it. A draft equal to the disk's
 * text is spent (it was saved, or typed back), so the caller drops it.
 */
export function opening(draft: Draft | null, disk: { text: string; hash: string }): Opening {
  if (!draft || draft.text === disk.text) return { kind: "disk" };
  return { kind: "restored", draft, diskChanged: draft.base !== disk.hash };
}
