// The page's socket against a real websocket server on loopback: it sends the editor's clientId, skips
// binary preview frames, broken and unknown frames without a fault, delivers {type, data} frames, and reconnects.
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import {
  connectSocket,
  EDITOR_CLIENT_PREFIX,
  newClientId,
  parseFrame,
  type Socket,
  socketUrl,
} from "../web/src/socket.ts";
import { poller } from "./support/e2e.ts";

const until = poller({ ms: 10_000, everyMs: 20 });

let server: WebSocketServer;
let url: string;
const paths: string[] = [];
let socket: Socket | null = null;

beforeEach(async () => {
  paths.length = 0;
  server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  server.on("connection", (_ws, req) => paths.push(req.url ?? ""));
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws?clientId=${newClientId()}`;
});
afterEach(async () => {
  socket?.close();
  socket = null;
  for (const c of server.clients) c.terminate();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const open = () => connectSocket({ url, WebSocket: WebSocket as never });
const sendAll = (frame: string | Buffer) => {
  for (const c of server.clients) c.send(frame);
};

describe("parseFrame", () => {
  it("reads {type, data} text frames only", () => {
    expect(parseFrame('{"type":"studio.job","data":{"id":"j1"}}')).toEqual({
      type: "studio.job",
      data: { id: "j1" },
    });
    expect(parseFrame('{"type":"status"}')).toEqual({ type: "status", data: null });
    for (const bad of ["", "not json", "null", "[1]", '"text"', '{"data":{}}', '{"type":3}'])
      expect(parseFrame(bad)).toBeNull();
    expect(parseFrame(new ArrayBuffer(8))).toBeNull();
    expect(parseFrame(Buffer.from('{"type":"x","data":1}'))).toBeNull();
  });
});

describe("socketUrl and the client id", () => {
  it("opens /ws on the page's host with the editor's prefix and 32 hex digits as clientId, wss on https", () => {
    const id = newClientId();
    expect(EDITOR_CLIENT_PREFIX).toBe("studio-page-");
    expect(id).toMatch(/^studio-page-[0-9a-f]{32}$/);
    expect(newClientId()).not.toBe(id);
    expect(socketUrl({ protocol: "http:", host: "127.0.0.1:8188" }, id)).toBe(
      `ws://127.0.0.1:8188/ws?clientId=${id}`,
    );
    expect(socketUrl({ protocol: "https:", host: "box.lan" }, "a b")).toBe("wss://box.lan/ws?clientId=a%20b");
  });
});

describe("connectSocket", () => {
  it("sends the clientId, skips binary, broken and unknown frames, and delivers the rest in order", async () => {
    socket = open();
    const got: unknown[] = [];
    socket.on("studio.job", (d) => got.push(["job", d]));
    socket.on("progress", (d) => got.push(["progress", d]));
    await until("the socket open", async () => socket?.state.value === "open" && server.clients.size === 1);
    expect(paths[0]).toMatch(/^\/ws\?clientId=studio-page-[0-9a-f]{32}$/);
    // A preview image as ComfyUI sends it: 4-byte big-endian event type, then the picture.
    sendAll(Buffer.concat([Buffer.from([0, 0, 0, 1]), Buffer.from([0, 0, 0, 2]), Buffer.alloc(64, 0xff)]));
    sendAll("not json");
    sendAll('{"type":"status","data":{"status":{"exec_info":{"queue_remaining":0}},"sid":"abc"}}');
    sendAll('{"type":"progress","data":{"value":3,"max":8,"prompt_id":"p1","node":"3"}}');
    sendAll('{"type":"studio.job","data":{"id":"j1","status":"running"}}');
    await until("two events", async () => got.length === 2);
    expect(got).toEqual([
      ["progress", { value: 3, max: 8, prompt_id: "p1", node: "3" }],
      ["job", { id: "j1", status: "running" }],
    ]);
    expect(socket.state.value).toBe("open");
  });

  it("keeps delivering when a listener throws", async () => {
    socket = open();
    const got: unknown[] = [];
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args[0]);
    try {
      socket.on("studio.take", () => {
        throw new Error("listener bug");
      });
      socket.on("studio.take", (d) => got.push(d));
      await until("the socket open", async () => server.clients.size === 1);
      sendAll('{"type":"studio.take","data":{"take":1}}');
      sendAll('{"type":"studio.take","data":{"take":2}}');
      await until("both takes", async () => got.length === 2);
      expect(errors).toEqual(["listener of studio.take failed:", "listener of studio.take failed:"]);
    } finally {
      console.error = original;
    }
  });

  it("reconnects after the server drops it, and says so", async () => {
    socket = open();
    let reconnects = 0;
    socket.onReconnect(() => reconnects++);
    await until("the socket open", async () => server.clients.size === 1);
    for (const c of server.clients) c.terminate();
    await until("reconnected", async () => reconnects === 1 && socket?.state.value === "open");
    expect(paths).toHaveLength(2);
    expect(paths[1]).toBe(paths[0]);
  });
});
