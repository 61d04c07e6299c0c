// createApp: the routes of createRouter on a Node server, replies written with Node's streams and gzip, plus the page
// socket (/ws) and the editor page.
import { upgradeWebSocket } from "@hono/node-server";
import type { Hono } from "hono";
import type { StudioFunction } from "../functions/fn.ts";
import { mountedComfy } from "../lib/config/mounted.ts";
import type { Services } from "../lib/context.ts";
import type { GuardOptions } from "./guard.ts";
import { guardOptions } from "./guard-options.ts";
import { mountPage, type PageSource } from "./page.ts";
import { fileResponse, jsonResponse, jsonTextResponse } from "./respond.ts";
import { answerRequest as answerWith, createRouter, type FunctionCall, type Responder } from "./router.ts";
import type { HubSocket, WsHub } from "./ws.ts";

export { type FunctionCall, isLoopback, mountsOf, PREFIXES } from "./router.ts";

export interface AppOptions {
  /** The page socket hub; without it /ws is not served (per-function deployments). */
  hub?: WsHub;
  /** Who may call: Host names, origins, token. Default: from the environment, for a loopback listener. */
  guard?: GuardOptions;
  /** The editor page at /studio/; without it the page is not served (per-function deployments, tests). */
  page?: PageSource;
}

const NODE_RESPONDER: Responder = { json: jsonResponse, jsonText: jsonTextResponse, file: fileResponse };

export function createApp(
  services: Services,
  functions: readonly StudioFunction[],
  opts: AppOptions = {},
): Hono {
  return createRouter(services, functions, {
    respond: NODE_RESPONDER,
    guard: opts.guard ?? guardOptions(services.env),
    mount: (app) => {
      if (opts.hub) {
        const hub = opts.hub;
        app.get(
          "/ws",
          upgradeWebSocket(() => {
            let socket: HubSocket | undefined;
            return {
              onOpen(_event, ws) {
                const raw = ws.raw as { bufferedAmount?: number } | undefined;
                socket = {
                  send: (data) => ws.send(data),
                  close: (code, reason) => ws.close(code, reason),
                  buffered: () => raw?.bufferedAmount ?? 0,
                };
                hub.add(socket);
              },
              // The page sends nothing the service acts on; a binary frame is not from the page.
              onMessage(event, ws) {
                if (typeof event.data !== "string") ws.close(1003, "binary frames are not accepted");
              },
              onClose() {
                if (socket) hub.remove(socket);
              },
              onError() {
                if (socket) hub.remove(socket);
              },
            };
          }),
        );
      }

      if (opts.page) mountPage(app, opts.page, { framedBySelf: mountedComfy(services.env) !== null });
    },
  });
}

/** One call of a function on a request, replies written as the Node server writes them (tests call through here). */
export function answerRequest(fn: StudioFunction, services: Services, call: FunctionCall): Promise<Response> {
  return answerWith(fn, services, call, NODE_RESPONDER);
}
