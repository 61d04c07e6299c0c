// The /ws hub: every page socket gets every event as one text frame {"type": kind, "data": payload}.
import type { EventSink } from "../lib/context.ts";
import { toJsonText } from "./respond.ts";

export interface HubSocket {
  send(data: string): void;
  close(code?: number, reason?: string): void;
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
