// What a handler receives besides its input: the services of the process and the request at hand.
export interface Logger {
  /** Detail for tracing a problem: shown only with STUDIO_LOG=debug. */
  debug(message: string, extra?: Record<string, unknown>): void;
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
}

export interface EventSink {
  /** Broadcast `{"type": kind, "data": data}` to every page socket. */
  emit(kind: string, data: unknown): void;
}

export interface ServerControl {
  host: string;
  port: number;
  /** Close sockets, write what must be written, exit 0 (or 3 to ask for a restart). */
  stop(restart: boolean): void;
}

export interface Services {
  /** The settings folder (`STUDIO_HOME`, else the per-user default). */
  home: string;
  /** Environment as the process saw it at start (tests pass their own). */
  env: Record<string, string | undefined>;
  roles: string[];
  version: string;
  log: Logger;
  events: EventSink;
  now(): Date;
  server?: ServerControl;
}

export interface Ctx extends Services {
  /** The web-standard request (headers, url, raw body for uploads). */
  request: Request;
  /** Address of the caller, when the transport knows it. */
  remoteAddress: string | undefined;
  signal: AbortSignal;
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
