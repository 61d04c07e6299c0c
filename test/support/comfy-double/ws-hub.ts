// The /ws socket registry and event routing (engines A.13): `status` on connect (with `sid`) plus an
// `executing {node}` for the owner of the running prompt, the optional feature_flags handshake, broadcast vs
// per-client delivery, binary previews (type 1 or type 4 by the client's flags) and type-3 text frames, and
// the old build's registry bug (closing a replaced socket unregisters the id).
import WebSocket from "ws";
import type { Profile } from "./types.ts";

export interface HubEnv {
  profile: Profile;
  queueRemaining: () => number;
  /** The running prompt's client id and its current node. */
  owner: () => { clientId: string | null; lastNode: string | null };
  serverFlags: () => Record<string, unknown>;
  /** Fault hook before an event goes out; false = do not send it. */
  beforeSend: (type: string) => boolean;
}

export interface SentFrame {
  type: string;
  sid: string | null;
  data: unknown;
}

export class WsHub {
  private readonly registry = new Map<string, WebSocket>();
  private readonly open = new Set<WebSocket>();
  private readonly flags = new WeakMap<WebSocket, Record<string, unknown>>();
  private stalledUntil = 0;
  /** Every event the server emitted (whether or not a socket was there to get it). */
  readonly sent: SentFrame[] = [];

  private readonly env: HubEnv;

  constructor(env: HubEnv) {
    this.env = env;
  }

  attach(ws: WebSocket, clientId: string): void {
    this.open.add(ws);
    this.registry.set(clientId, ws);
    let first = true;
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      const wasFirst = first;
      first = false;
      try {
        const msg = JSON.parse(data.toString()) as { type?: unknown; data?: unknown };
        if (wasFirst && msg.type === "feature_flags") {
          this.flags.set(ws, (msg.data as Record<string, unknown>) ?? {});
          this.raw(ws, JSON.stringify({ type: "feature_flags", data: this.env.serverFlags() }));
        }
      } catch {
        // other client messages are ignored
      }
    });
    ws.on("close", () => {
      this.open.delete(ws);
      // 0.3.64 removes the id whatever socket holds it now; newer builds only remove their own entry.
      if (this.env.profile === "old" || this.registry.get(clientId) === ws) this.registry.delete(clientId);
    });
    ws.on("error", () => {});
    this.raw(
      ws,
      JSON.stringify({
        type: "status",
        data: { status: { exec_info: { queue_remaining: this.env.queueRemaining() } }, sid: clientId },
      }),
    );
    const owner = this.env.owner();
    if (owner.clientId === clientId && owner.lastNode !== null) {
      this.raw(ws, JSON.stringify({ type: "executing", data: { node: owner.lastNode } }));
    }
  }

  private stalled(): boolean {
    return Date.now() < this.stalledUntil;
  }

  private raw(ws: WebSocket, payload: string | Buffer): void {
    if (this.stalled() || ws.readyState !== WebSocket.OPEN) return;
    ws.send(payload);
  }

  private targets(sid: string | null): WebSocket[] {
    if (sid === null) return [...this.registry.values()];
    const ws = this.registry.get(sid);
    return ws ? [ws] : [];
  }

  /** `send_sync(event, data, sid)`: sid null = every registered socket. */
  send(type: string, data: Record<string, unknown>, sid: string | null): void {
    this.sent.push({ type, sid, data });
    if (!this.env.beforeSend(type)) return;
    const text = JSON.stringify({ type, data });
    for (const ws of this.targets(sid)) this.raw(ws, text);
  }

  status(): void {
    this.send("status", { status: { exec_info: { queue_remaining: this.env.queueRemaining() } } }, null);
  }

  /** A preview: type 4 with metadata for clients that declared `supports_preview_metadata`, else type 1. */
  preview(jpeg: Buffer, meta: Record<string, unknown>, sid: string | null): void {
    for (const ws of this.targets(sid)) {
      if (this.flags.get(ws)?.supports_preview_metadata === true) {
        const m = Buffer.from(JSON.stringify({ ...meta, image_type: "image/jpeg" }));
        const head = Buffer.alloc(8);
        head.writeUInt32BE(4, 0);
        head.writeUInt32BE(m.length, 4);
        this.raw(ws, Buffer.concat([head, m, jpeg]));
      } else {
        const head = Buffer.alloc(8);
        head.writeUInt32BE(1, 0);
        head.writeUInt32BE(1, 4);
        this.raw(ws, Buffer.concat([head, jpeg]));
      }
    }
  }

  /** Type-3 progress text frame. */
  text(nodeId: string, text: string, sid: string | null): void {
    const id = Buffer.from(nodeId);
    const head = Buffer.alloc(8);
    head.writeUInt32BE(3, 0);
    head.writeUInt32BE(id.length, 4);
    const frame = Buffer.concat([head, id, Buffer.from(text)]);
    for (const ws of this.targets(sid)) this.raw(ws, frame);
  }

  stall(ms: number): void {
    this.stalledUntil = Date.now() + ms;
  }

  /** Hard drop: TCP reset without a close frame (clients see 1006). */
  dropAll(): void {
    for (const ws of this.open) ws.terminate();
    this.registry.clear();
  }

  /** Orderly close with a close frame. */
  closeAll(code = 1001): void {
    for (const ws of this.open) ws.close(code, "server going away");
    this.registry.clear();
  }

  connected(): string[] {
    return [...this.registry.keys()];
  }
}
