// A ComfyUI test double speaking the native protocol (HTTP + WS on one loopback port), as a faithful
// double must (engines D).
// Start it with startComfyDouble(); drive faults with inject(), restart(), dropSockets(), setRefusing().
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { WebSocketServer } from "ws";
import { DoubleCore } from "./core.ts";
import type { Dirs } from "./files.ts";
import { requestHandler, upgradeHandler } from "./http.ts";
import type {
  ComfyDoubleOptions,
  Fault,
  Profile,
  ReceivedPrompt,
  ReceivedRequest,
  ReceivedUpload,
} from "./types.ts";
import type { SentFrame } from "./ws-hub.ts";

export { DEFAULT_MODELS, DEFAULT_NODES, FINISHING_PACK_NODES, NODE_DEFS } from "./catalogue.ts";
export type {
  ComfyDoubleOptions,
  Fault,
  Profile,
  ReceivedPrompt,
  ReceivedRequest,
  ReceivedUpload,
  SentFrame,
};

export interface ComfyDouble {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  port: number;
  profile: Profile;
  baseDir: string;
  outputDir: string;
  inputDir: string;
  tempDir: string;
  userDir: string;
  /** Every POST /prompt received, with its status and parsed answer. */
  prompts: ReceivedPrompt[];
  /** Every upload stored (or deduplicated). */
  uploads: ReceivedUpload[];
  /** Every HTTP request answered (method, path+query, status). */
  requests: ReceivedRequest[];
  /** Every WS event the server emitted, with its addressee (null = broadcast). */
  events: SentFrame[];
  /** Arm a fault: a failure the double injects until consumed. */
  inject(fault: Fault): void;
  clearFaults(): void;
  /** Replace one model folder's file list. */
  setModels(folder: string, files: string[]): void;
  /** Queue/history state in memory now. */
  state(): {
    queueRemaining: number;
    running: string | null;
    pending: string[];
    history: string[];
    clients: string[];
  };
  /** Resolves when nothing is queued or running (rejects after `timeoutMs`). */
  idle(timeoutMs?: number): Promise<void>;
  /** Forget queue, running item, history, cache and counter; close sockets (hard = no close frame);
   * the port refuses connections for `downMs`. Files on disk stay. */
  restart(opts?: { hard?: boolean; downMs?: number }): Promise<void>;
  /** Terminate every WebSocket without a close frame; HTTP keeps working. */
  dropSockets(): void;
  /** Stop/start accepting TCP connections on the port (refused while on); open WebSockets are left alone. */
  setRefusing(on: boolean): Promise<void>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function startComfyDouble(opts: ComfyDoubleOptions = {}): Promise<ComfyDouble> {
  const ownBase = !opts.baseDir;
  const base = opts.baseDir ?? (await mkdtemp(path.join(os.tmpdir(), "comfy-double-")));
  const dirs: Dirs = {
    base,
    input: path.join(base, "input"),
    output: path.join(base, "output"),
    temp: path.join(base, "temp"),
    user: path.join(base, "user"),
  };
  for (const d of [dirs.input, dirs.output, dirs.temp, path.join(dirs.user, "default", "workflows")]) {
    await mkdir(d, { recursive: true });
  }
  for (const [name, wf] of Object.entries(opts.workflows ?? {})) {
    const file = path.join(dirs.user, "default", "workflows", name.endsWith(".json") ? name : `${name}.json`);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify(wf, null, 2));
  }

  const core = new DoubleCore(dirs, opts);
  const wss = new WebSocketServer({ noServer: true });
  const onRequest = requestHandler(core);
  const onUpgrade = upgradeHandler(core, wss);
  let server: http.Server | null = null;
  const httpSockets = new Set<Socket>();
  let closed = false;
  const timers = new Set<NodeJS.Timeout>();

  const listen = async (port: number): Promise<number> => {
    const s = http.createServer({ keepAliveTimeout: 5_000 }, onRequest);
    s.on("connection", (sock: Socket) => {
      httpSockets.add(sock);
      sock.on("close", () => httpSockets.delete(sock));
    });
    s.on("upgrade", (req, sock: Socket, head) => {
      httpSockets.delete(sock);
      onUpgrade(req, sock, head);
    });
    await new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => {
        s.off("error", reject);
        resolve();
      });
    });
    server = s;
    return (s.address() as AddressInfo).port;
  };
  const stopListening = () => {
    const s = server;
    server = null;
    if (!s) return;
    s.close();
    for (const sock of httpSockets) sock.destroy();
    httpSockets.clear();
  };

  const port = await listen(opts.port ?? 0);

  const setRefusing = async (on: boolean) => {
    if (closed) return;
    if (on) stopListening();
    else if (!server) await listen(port);
  };

  const restart = async (r: { hard?: boolean; downMs?: number } = {}) => {
    if (closed) return;
    core.resetState();
    if (r.hard) core.hub.dropAll();
    else core.hub.closeAll(1001);
    const wasUp = server !== null;
    stopListening();
    if (r.downMs) await sleep(r.downMs);
    if (wasUp && !closed) await listen(port);
  };
  core.onRestartFault = (hard) => {
    void restart({ hard });
  };

  const double: ComfyDouble = {
    url: `http://127.0.0.1:${port}`,
    port,
    profile: core.profile,
    baseDir: base,
    outputDir: dirs.output,
    inputDir: dirs.input,
    tempDir: dirs.temp,
    userDir: dirs.user,
    prompts: core.prompts,
    uploads: core.uploads,
    requests: core.requests,
    events: core.hub.sent,
    inject(fault) {
      switch (fault.kind) {
        case "ws_stall":
          core.hub.stall(fault.ms);
          return;
        case "refuse": {
          void setRefusing(true);
          const t = setTimeout(() => {
            timers.delete(t);
            void setRefusing(false);
          }, fault.ms);
          timers.add(t);
          return;
        }
        case "slow_progress":
          core.stepMs = fault.stepMs;
          return;
        case "missing_model":
          core.models[fault.folder] = (core.models[fault.folder] ?? []).filter((f) => f !== fault.file);
          return;
        default:
          core.faults.add(fault);
      }
    },
    clearFaults: () => core.faults.clear(),
    setModels(folder, files) {
      core.models[folder] = [...files];
    },
    state: () => ({
      queueRemaining: core.queue.remaining(),
      running: core.queue.running?.promptId ?? null,
      pending: core.queue.pending().map((t) => t.promptId),
      history: [...core.queue.history.keys()],
      clients: core.hub.connected(),
    }),
    async idle(timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (core.queue.remaining() > 0) {
        if (Date.now() > until) throw new Error("comfy double: still busy");
        await sleep(10);
      }
    },
    restart,
    dropSockets: () => core.hub.dropAll(),
    setRefusing,
    async close() {
      if (closed) return;
      closed = true;
      for (const t of timers) clearTimeout(t);
      core.resetState();
      core.hub.dropAll();
      core.media.stopAll();
      stopListening();
      wss.close();
      if (ownBase) await rm(base, { recursive: true, force: true, maxRetries: 3 });
    },
  };
  return double;
}
