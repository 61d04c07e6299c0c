// The /ws hub on a real loopback server: every socket receives every event as {"type", "data"}.
import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createApp } from "../runtime/app.ts";
import { createSocketServer, type HubSocket, WS_MAX_BUFFERED, WsHub } from "../runtime/ws.ts";
import { makeTestEnv, type TestEnv } from "./support/ctx.ts";

let env: TestEnv;
let server: ServerType;
let port = 0;
const hub = new WsHub();

beforeAll(async () => {
  env = await makeTestEnv();
  const app = createApp({ ...env.services, events: hub }, [], { hub });
  const wss = createSocketServer();
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0, websocket: { server: wss } }, () =>
      resolve(),
    );
  });
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  hub.closeAll();
  await new Promise((r) => server.close(r));
  await env.cleanup();
});

function connect(): Promise<{ ws: WebSocket; frames: unknown[] }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?clientId=page1`);
  const frames: unknown[] = [];
  ws.on("message", (data, isBinary) => {
    expect(isBinary).toBe(false);
    frames.push(JSON.parse(data.toString()));
  });
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve({ ws, frames }));
    ws.once("error", reject);
  });
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe("/ws", () => {
  it("broadcasts each event to every connected socket", async () => {
    const a = await connect();
    const b = await connect();
    await until(() => hub.size === 2);
    expect(hub.size).toBe(2);
    hub.emit("studio.episode", { ep: "/shows/x/ep01" });
    await until(() => a.frames.length === 1 && b.frames.length === 1);
    expect(a.frames).toEqual([{ type: "studio.episode", data: { ep: "/shows/x/ep01" } }]);
    expect(b.frames).toEqual(a.frames);

    a.ws.close();
    await until(() => hub.size === 1);
    expect(hub.size).toBe(1);
    hub.emit("studio.issues", { ep: "/e", pass: "proxy", shot: "sh010", id: "i1" });
    await until(() => b.frames.length === 2);
    expect(b.frames[1]).toEqual({
      type: "studio.issues",
      data: { ep: "/e", pass: "proxy", shot: "sh010", id: "i1" },
    });
    expect(a.frames).toHaveLength(1);

    const closed = new Promise<number>((r) => b.ws.once("close", (code) => r(code)));
    hub.closeAll();
    expect(await closed).toBe(1001);
  });

  it("closes a socket that sends a frame over 1 MB (1009) or a binary frame (1003)", async () => {
    const big = await connect();
    const bigClosed = new Promise<number>((r) => big.ws.once("close", (code) => r(code)));
    big.ws.send("x".repeat(1024 * 1024 + 1));
    expect(await bigClosed).toBe(1009);
    const bin = await connect();
    const binClosed = new Promise<number>((r) => bin.ws.once("close", (code) => r(code)));
    bin.ws.send(Buffer.from([1, 2, 3]));
    expect(await binClosed).toBe(1003);
    const small = await connect();
    small.ws.send(JSON.stringify({ type: "hello" }));
    hub.emit("studio.episode", { ep: "/still/here" });
    await until(() => small.frames.length === 1);
    expect(small.frames).toEqual([{ type: "studio.episode", data: { ep: "/still/here" } }]);
    small.ws.close();
  });

  it("drops a page that stops reading instead of queueing its events without bound", () => {
    const local = new WsHub();
    const sent: string[] = [];
    const closed: number[] = [];
    const stuck: HubSocket = {
      send: (d) => sent.push(d),
      close: (code) => closed.push(code ?? 0),
      buffered: () => WS_MAX_BUFFERED + 1,
    };
    local.add(stuck);
    local.emit("studio.episode", {});
    expect(sent).toEqual([]);
    expect(closed).toEqual([1008]);
    expect(local.size).toBe(0);
  });
});
