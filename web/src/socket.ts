// The live connection to /ws: every service event reaches the listeners; a lost socket is retried with a growing
// pause (shown as "reconnecting"), and once back the page refreshes what may have changed meanwhile.
import { type Signal, signal } from "@preact/signals";
import type { StudioEvent } from "./types.ts";

export type Link = "connecting" | "open" | "reconnecting";

export interface Socket {
  state: Signal<Link>;
  on(type: string, listener: (data: unknown) => void): () => void;
  /** Called after a socket opens again after a loss (not on the first open). */
  onReconnect(listener: () => void): () => void;
  close(): void;
}

const FIRST_PAUSE = 300;
const LONGEST_PAUSE = 5000;

export function connectSocket(
  url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`,
): Socket {
  const state = signal<Link>("connecting");
  const listeners = new Map<string, Set<(data: unknown) => void>>();
  const reconnected = new Set<() => void>();
  let ws: WebSocket | null = null;
  let pause = FIRST_PAUSE;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lost = false;
  let closed = false;

  const open = () => {
    ws = new WebSocket(url);
    ws.onopen = () => {
      pause = FIRST_PAUSE;
      state.value = "open";
      if (lost) for (const l of reconnected) l();
      lost = false;
    };
    ws.onmessage = (m) => {
      let event: StudioEvent;
      try {
        event = JSON.parse(String(m.data));
      } catch {
        return;
      }
      for (const l of listeners.get(event.type) ?? []) l(event.data);
    };
    ws.onclose = () => {
      ws = null;
      if (closed) return;
      lost = true;
      state.value = "reconnecting";
      timer = setTimeout(open, pause);
      pause = Math.min(pause * 2, LONGEST_PAUSE);
    };
  };
  open();

  return {
    state,
    on(type, listener) {
      const set = listeners.get(type) ?? new Set();
      listeners.set(type, set);
      set.add(listener);
      return () => set.delete(listener);
    },
    onReconnect(listener) {
      reconnected.add(listener);
      return () => reconnected.delete(listener);
    },
    close() {
      closed = true;
      clearTimeout(timer);
      ws?.close();
    },
  };
}
