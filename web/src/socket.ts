// The live connection to /ws: every service event reaches the listeners; a lost socket is retried with a growing
// pause (shown as "reconnecting"), and once back the page refreshes what may have changed meanwhile. Mounted in
// ComfyUI, /ws is ComfyUI's own socket: it also carries ComfyUI's events and binary preview frames, which are
// skipped here unless a listener asked for that type.
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

/** The part of the browser's WebSocket this module uses (the tests hand in the `ws` package's). */
interface SocketLike {
  binaryType: string;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: unknown) => void) | null;
  close(): void;
}

export interface SocketOptions {
  /** The page's is `socketUrl(location, newClientId())`. */
  url: string;
  /** Default: the browser's WebSocket. */
  WebSocket?: new (
    url: string,
  ) => SocketLike;
}

const FIRST_PAUSE = 300;
const LONGEST_PAUSE = 5000;

/**
 * Mounted in ComfyUI, the pack copies ComfyUI's progress for the studio's renders only to sockets whose client id
 * starts with this (the pack's side uses the same text), so ComfyUI's own graph-editor tabs never see it.
 */
export const EDITOR_CLIENT_PREFIX = "studio-page-";

/**
 * The page's client id: the editor's prefix and 32 hex digits. ComfyUI keys its sockets by it; the standalone
 * server ignores it. getRandomValues works on plain-http pages reached by a LAN address, where randomUUID does not.
 */
export function newClientId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return EDITOR_CLIENT_PREFIX + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `/ws?clientId=` on the page's host, `wss` on an https page. */
export function socketUrl(where: { protocol: string; host: string }, clientId: string): string {
  const scheme = where.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${where.host}/ws?clientId=${encodeURIComponent(clientId)}`;
}

/** A text frame `{"type": string, "data": …}` as an event; null for binary frames and anything else. */
export function parseFrame(data: unknown): StudioEvent | null {
  if (typeof data !== "string") return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const { type, data: payload } = parsed as { type?: unknown; data?: unknown };
  return typeof type === "string" ? { type, data: payload ?? null } : null;
}

export function connectSocket(opts: SocketOptions): Socket {
  const { url } = opts;
  const Impl = opts.WebSocket ?? (WebSocket as unknown as new (url: string) => SocketLike);
  const state = signal<Link>("connecting");
  const listeners = new Map<string, Set<(data: unknown) => void>>();
  const reconnected = new Set<() => void>();
  let ws: SocketLike | null = null;
  let pause = FIRST_PAUSE;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lost = false;
  let closed = false;

  const open = () => {
    const socket = new Impl(url);
    ws = socket;
    // Preview images stay bytes rather than becoming Blobs the page would never read.
    socket.binaryType = "arraybuffer";
    socket.onopen = () => {
      pause = FIRST_PAUSE;
      state.value = "open";
      if (lost) for (const l of reconnected) l();
      lost = false;
    };
    socket.onmessage = (m) => {
      const event = parseFrame(m.data);
      if (!event) return;
      for (const l of listeners.get(event.type) ?? []) {
        // One listener's mistake must not cost the others their event, nor close the socket.
        try {
          l(event.data);
        } catch (err) {
          console.error(`listener of ${event.type} failed:`, err);
        }
      }
    };
    socket.onclose = () => {
      if (ws !== socket) return;
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
