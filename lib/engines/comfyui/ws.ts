// The engine's one websocket to ComfyUI (`/api/ws?clientId=<id>`): typed events to listeners, a ping watchdog for
// silent stalls, and reconnection under the same clientId — only after the old socket has finished closing.
import type WebSocket from "ws";
import type { Logger } from "../../context.ts";
import { ComfyDownError, downError } from "./http.ts";
import { type ComfyEvent, parseBinary, parseText } from "./messages.ts";

export interface SocketOptions {
  /** HTTP base of the server (`http://127.0.0.1:8188`). */
  base: string;
  clientId: string;
  headers?: Record<string, string>;
  log: Logger;
  /** Handshake timeout (ms); default 5000. */
  connectMs?: number;
  /** Ping interval (ms); a ping unanswered by the next one drops the socket. 0 disables. Default 15000. */
  pingMs?: number;
  /** First and longest delay between reconnect attempts (ms); default 200 and 5000. */
  retryMs?: readonly [number, number];
  /** Close the socket this long after the last hold is released (ms); default 30000. */
  idleMs?: number;
}

export interface ComfySocket {
  readonly clientId: string;
  readonly connected: boolean;
  /** Connections opened so far (the first included). */
  readonly opens: number;
  /** Connections lost without our asking. */
  readonly drops: number;
  on(listener: (ev: ComfyEvent) => void): () => void;
  /** Called after each open: `reconnect` is true for every open after the first. */
  onOpen(listener: (reconnect: boolean) => void): () => void;
  onDrop(listener: () => void): () => void;
  /** Keep the socket up (reconnecting after drops) until the returned release is called. */
  hold(): () => void;
  /** Open now when it is not; rejects (a ComfyDownError when the server is down) if this attempt fails. */
  ready(timeoutMs?: number): Promise<void>;
  /** Drop the connection as a network failure would (tests; a stalled socket). Reconnects while held. */
  drop(): Promise<void>;
  close(): Promise<void>;
}

export function wsUrl(base: string, clientId: string): string {
  const u = new URL(`${base}/api/ws`);
  u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
  u.searchParams.set("clientId", clientId);
  return u.toString();
}

export function createSocket(opts: SocketOptions): ComfySocket {
  const url = wsUrl(opts.base, opts.clientId);
  const connectMs = opts.connectMs ?? 5000;
  const pingMs = opts.pingMs ?? 15_000;
  const [retryMin, retryMax] = opts.retryMs ?? [200, 5000];
  const idleMs = opts.idleMs ?? 30_000;
  const listeners = new Set<(ev: ComfyEvent) => void>();
  const openListeners = new Set<(reconnect: boolean) => void>();
  const dropListeners = new Set<() => void>();

  let sock: WebSocket | null = null;
  let isOpen = false;
  let opening: Promise<void> | null = null;
  let closing: Promise<void> | null = null;
  let holds = 0;
  let closed = false;
  let opens = 0;
  let drops = 0;
  let attempt = 0;
  let retryTimer: NodeJS.Timeout | null = null;
  let idleTimer: NodeJS.Timeout | null = null;
  let pingTimer: NodeJS.Timeout | null = null;
  let awaitingPong = false;

  const emit = <T>(set: Set<(x: T) => void>, x: T) => {
    for (const l of [...set]) {
      try {
        l(x);
      } catch (err) {
        opts.log.warn("comfyui: a socket listener failed", { error: String(err) });
      }
    }
  };

  function stopPing() {
    if (pingTimer) clearInterval(pingTimer);
    pingTimer = null;
    awaitingPong = false;
  }

  function startPing(ws: WebSocket) {
    stopPing();
    if (pingMs <= 0) return;
    pingTimer = setInterval(() => {
      if (awaitingPong) {
        opts.log.warn("comfyui: websocket stalled (no pong); reconnecting", { url: opts.base });
        ws.terminate();
        return;
      }
      awaitingPong = true;
      try {
        ws.ping();
      } catch {
        ws.terminate();
      }
    }, pingMs);
    pingTimer.unref();
  }

  function scheduleRetry() {
    if (closed || holds === 0 || retryTimer || opening || isOpen) return;
    const delay = Math.min(retryMax, retryMin * 2 ** Math.min(attempt, 10));
    attempt++;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      if (closed || holds === 0 || isOpen) return;
      connect().catch(() => scheduleRetry());
    }, delay);
    retryTimer.unref();
  }

  function connect(timeoutMs = connectMs): Promise<void> {
    if (closed) return Promise.reject(new Error("the ComfyUI engine is closed"));
    if (isOpen) return Promise.resolve();
    if (opening) return opening;
    // Never two sockets under one clientId: an old one must have finished closing (older servers drop the id
    // from their registry when the old socket's cleanup runs, cutting the new socket off).
    const wait = closing ?? Promise.resolve();
    // ws is loaded with the first connection, not when the engine module is imported.
    opening = Promise.all([wait, import("ws")]).then(
      ([, { default: WebSocketClass }]) =>
        new Promise<void>((resolve, reject) => {
          const ws = new WebSocketClass(url, { headers: opts.headers, handshakeTimeout: timeoutMs });
          ws.binaryType = "nodebuffer";
          sock = ws;
          let settled = false;
          let done: () => void = () => {};
          closing = new Promise<void>((r) => {
            done = r;
          });
          ws.on("open", () => {
            settled = true;
            isOpen = true;
            attempt = 0;
            opens++;
            opening = null;
            startPing(ws);
            resolve();
            emit(openListeners, opens > 1);
          });
          ws.on("message", (data, isBinary) => {
            awaitingPong = false;
            const buf = Array.isArray(data)
              ? Buffer.concat(data)
              : data instanceof ArrayBuffer
                ? Buffer.from(data)
                : data;
            const ev = isBinary ? parseBinary(buf) : parseText(buf.toString("utf8"));
            if (ev) emit(listeners, ev);
          });
          ws.on("pong", () => {
            awaitingPong = false;
          });
          ws.on("error", (err) => {
            if (!settled) {
              settled = true;
              opening = null;
              reject(downError(opts.base, err) ?? err);
            }
          });
          ws.on("unexpected-response", (_req, res) => {
            if (!settled) {
              settled = true;
              opening = null;
              reject(new Error(`ComfyUI at ${opts.base} refused the websocket (HTTP ${res.statusCode})`));
            }
            ws.terminate();
          });
          ws.on("close", () => {
            const wasOpen = isOpen && sock === ws;
            if (sock === ws) {
              sock = null;
              isOpen = false;
            }
            stopPing();
            done();
            if (!settled) {
              settled = true;
              opening = null;
              reject(new ComfyDownError(opts.base, "ECONNRESET", "websocket closed while connecting"));
            }
            if (wasOpen) {
              drops++;
              emit(dropListeners, undefined);
            }
            scheduleRetry();
          });
        }),
    );
    return opening;
  }

  function closeSocket(): Promise<void> {
    const ws = sock;
    if (!ws) return closing ?? Promise.resolve();
    const wait = closing ?? Promise.resolve();
    if (ws.readyState === ws.OPEN) ws.close(1000);
    else ws.terminate();
    const t = setTimeout(() => ws.terminate(), 2000);
    t.unref();
    return wait.finally(() => clearTimeout(t));
  }

  return {
    clientId: opts.clientId,
    get connected() {
      return isOpen;
    },
    get opens() {
      return opens;
    },
    get drops() {
      return drops;
    },
    on(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    onOpen(l) {
      openListeners.add(l);
      return () => openListeners.delete(l);
    },
    onDrop(l) {
      dropListeners.add(l);
      return () => dropListeners.delete(l);
    },
    hold() {
      holds++;
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = null;
      if (!isOpen && !opening) connect().catch(() => scheduleRetry());
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holds--;
        if (holds === 0 && !closed) {
          if (retryTimer) clearTimeout(retryTimer);
          retryTimer = null;
          idleTimer = setTimeout(() => {
            idleTimer = null;
            if (holds === 0) void closeSocket();
          }, idleMs);
          idleTimer.unref();
        }
      };
    },
    ready(timeoutMs) {
      return connect(timeoutMs);
    },
    async drop() {
      const ws = sock;
      if (!ws) return;
      ws.terminate();
      await (closing ?? Promise.resolve());
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      if (idleTimer) clearTimeout(idleTimer);
      retryTimer = null;
      idleTimer = null;
      await opening?.catch(() => {});
      await closeSocket();
      stopPing();
    },
  };
}
