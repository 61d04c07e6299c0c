// The /ws hub: every page socket gets every event as one text frame {"type": kind, "data": payload}.
import { WebSocketServer } from "ws";
import type { EventSink } from "../lib/context.ts";
import { toJsonText } from "./respond.ts";

/** Frames from the page are small control messages; a larger one closes the socket (1009). */
export const WS_MAX_PAYLOAD = 1024 * 1024;
/** A page that stops reading is dropped once this much waits to be sent to it, rather than held in memory. */
export const WS_MAX_BUFFERED = 8 * 1024 * 1024;

/** The socket server the HTTP server hands its upgrades to. */
export function createSocketServer(): WebSocketServer {
  return new WebSocketServer({ noServer: true, maxPayload: WS_MAX_PAYLOAD });
}

export interface HubSocket {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  /** Bytes queued but not yet sent, when the transport knows. */
  buffered?(): number;
}

export class WsHub implements EventSink {
  private readonly sockets = new Set<HubSocket>();

  add(socket: HubSocket): void {
    this.sockets.add(socket);
  }

  remove(socket: HubSocket): void {
    this.sockets.delete(socket);
  }

  get size(): number {
    return this.sockets.size;
  }

  emit(kind: string, data: unknown): void {
    if (this.sockets.size === 0) return;
    const frame = toJsonText({ type: kind, data });
    for (const socket of this.sockets) {
      try {
        if ((socket.buffered?.() ?? 0) > WS_MAX_BUFFERED) {
          socket.close(1008, "not reading its events");
          this.sockets.delete(socket);
          continue;
        }
        socket.send(frame);
      } catch {
        // A socket that fails to send is closing; its close handler removes it.
      }
    }
  }

  /** Close every page connection ("going away"), as a stop or restart does. */
  closeAll(): void {
    for (const socket of this.sockets) {
      try {
        socket.close(1001, "server stopping");
      } catch {
        // already closed
      }
    }
    this.sockets.clear();
  }
}
