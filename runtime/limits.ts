// Connection limits for the HTTP server: a client that trickles its headers or body, or idles on a kept-alive
// socket, is cut off after a bounded time, so thousands of slow sockets cannot hold the server.
import type { ServerOptions } from "node:http";

export interface ConnectionLimits {
  /** Time to receive a request's headers. */
  headersTimeout: number;
  /** Time to receive a whole request, body included. */
  requestTimeout: number;
  /** How long an idle kept-alive socket stays open. */
  keepAliveTimeout: number;
  /** How often the server looks for sockets past those times. */
  checkInterval: number;
}

export const DEFAULT_LIMITS: ConnectionLimits = {
  headersTimeout: 15_000,
  requestTimeout: 120_000,
  keepAliveTimeout: 5_000,
  checkInterval: 2_000,
};

/** Options for `http.createServer` (through the adapter's `serverOptions`). */
export function serverOptions(limits: ConnectionLimits = DEFAULT_LIMITS): ServerOptions {
  return {
    headersTimeout: limits.headersTimeout,
    requestTimeout: limits.requestTimeout,
    keepAliveTimeout: limits.keepAliveTimeout,
    connectionsCheckingInterval: limits.checkInterval,
  };
}
