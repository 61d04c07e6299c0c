// Following one prompt to its end: websocket events (progress, node, terminal frames) and reconciliation by
// polling `/history` and `/queue`, so a dropped socket, a stall or a server restart never loses the outcome.
import type { Logger } from "../../context.ts";
import type { EngineProgress, RunHooks } from "../types.ts";
import { executionFailure } from "./errors.ts";
import { type ComfyHttp, ComfyHttpError, ComfyTimeoutError, downError } from "./http.ts";
import type { ComfyEvent, ExecutionError } from "./messages.ts";
import { historyState, queuePlace } from "./outputs.ts";
import type { ComfySocket } from "./ws.ts";

export interface WatchTiming {
  /** Poll interval while the socket is up (a safety net for lost frames); default 5000 ms. */
  pollMs: number;
  /** Poll interval while the socket is down or the prompt looks lost; default 1000 ms. */
  fastPollMs: number;
  /** How long a prompt may be in neither queue nor history before it counts as lost; default 2000 ms. */
  lostGraceMs: number;
  /** How long the server may stay unreachable before collect gives up; default 120000 ms. */
  downLimitMs: number;
  /** Per-call timeout of the polls (ms); default 10000. */
  pollTimeoutMs: number;
}

export const DEFAULT_WATCH_TIMING: WatchTiming = {
  pollMs: 5000,
  fastPollMs: 1000,
  lostGraceMs: 2000,
  downLimitMs: 120_000,
  pollTimeoutMs: 10_000,
};

export const RESTARTED = "the engine restarted and lost the prompt";
export const canceled = () => new Error("canceled");

type Terminal = { kind: "finished" } | { kind: "error"; error: ExecutionError } | { kind: "interrupted" };

export interface WatchDeps {
  http: ComfyHttp;
  socket: ComfySocket;
  log: Logger;
  timing: WatchTiming;
}

export interface Watch {
  promptId: string;
  /** Set by cancel: a prompt that then vanishes (deleted while pending) ends "canceled". */
  canceled: boolean;
  /** The graph, for naming nodes in progress steps. */
  graph: Record<string, { class_type?: unknown }> | undefined;
  /** Follow the prompt to its end; answers the history `outputs` of a successful run. */
  wait(hooks: RunHooks): Promise<Record<string, unknown>>;
  /** Wake a waiting poll loop now (after cancel). */
  poke(): void;
  dispose(): void;
}

export function createWatch(
  deps: WatchDeps,
  promptId: string,
  graph?: Record<string, { class_type?: unknown }>,
): Watch {
  const { http, socket, log, timing } = deps;
  let terminal: Terminal | null = null;
  // Read through a call: the listeners set it, which the loop's narrowing cannot see.
  const terminalNow = (): Terminal | null => terminal;
  let last: EngineProgress | null = null;
  let listener: ((p: EngineProgress) => void) | null = null;
  let wake: (() => void) | null = null;
  let dropped = false;
  let pollSoon = false;

  const label = (node: string | null): string | undefined => {
    if (node === null) return undefined;
    const cls = watch.graph?.[node]?.class_type;
    return typeof cls === "string" ? `${cls} #${node}` : `node ${node}`;
  };

  const report = (p: EngineProgress) => {
    last = p;
    try {
      listener?.(p);
    } catch {
      // A failing progress listener must not break following the prompt.
    }
  };

  const poke = () => {
    const w = wake;
    wake = null;
    w?.();
  };

  const onEvent = (ev: ComfyEvent) => {
    if (!("promptId" in ev) || ev.promptId !== watch.promptId || terminal) return;
    switch (ev.type) {
      case "execution_start":
        report({ progress: 0, step: "started" });
        break;
      case "execution_cached":
        if (ev.nodes.length > 0)
          report({ ...(last ?? { progress: 0 }), log: `${ev.nodes.length} nodes cached` });
        break;
      case "executing":
        if (ev.node === null) {
          terminal = { kind: "finished" };
          poke();
        } else {
          const step = label(ev.node);
          report({ progress: last?.progress ?? 0, ...(step ? { step } : {}) });
        }
        break;
      case "progress": {
        if (ev.max <= 0) break;
        const progress = Math.min(0.99, Math.max(0, ev.value / ev.max));
        const step = label(ev.node) ?? last?.step;
        report({ progress, ...(step ? { step } : {}), steps: ev.max });
        break;
      }
      case "execution_error":
        terminal = { kind: "error", error: ev.error };
        poke();
        break;
      case "execution_interrupted":
        terminal = { kind: "interrupted" };
        poke();
        break;
      default:
        break;
    }
  };

  const offEvent = socket.on(onEvent);
  const offDrop = socket.onDrop(() => {
    dropped = true;
    poke();
  });
  const offOpen = socket.onOpen((reconnect) => {
    if (reconnect) {
      // Nothing that happened while disconnected is replayed: reconcile at once.
      pollSoon = true;
      poke();
    }
  });

  const sleep = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        signal.removeEventListener("abort", done);
        if (wake === done) wake = null;
        resolve();
      }
      wake = done;
      signal.addEventListener("abort", done, { once: true });
    });

  const route = () => `/api/history/${encodeURIComponent(watch.promptId)}`;

  async function readHistory(signal?: AbortSignal) {
    const a = await http.call("GET", route(), undefined, { timeoutMs: timing.pollTimeoutMs, signal });
    return historyState(a.json, watch.promptId);
  }

  function settle(h: ReturnType<typeof historyState>): Record<string, unknown> | null {
    switch (h.state) {
      case "success":
      case "unknown":
        return h.outputs;
      case "error":
        throw new Error(executionFailure(h.error));
      case "interrupted":
        throw canceled();
      case "absent":
        return null;
    }
  }

  /** After `executing{node:null}` the history is written; a brief retry covers a proxy or a slow write. */
  async function finish(signal: AbortSignal): Promise<Record<string, unknown>> {
    for (let i = 0; i < 5; i++) {
      const out = settle(await readHistory(signal));
      if (out) return out;
      await new Promise((r) => setTimeout(r, 200 * (i + 1)));
    }
    throw new Error(`ComfyUI finished prompt ${watch.promptId} but has no history entry for it`);
  }

  const watch: Watch = {
    promptId,
    canceled: false,
    graph,
    poke,

    async wait(hooks) {
      listener = hooks.onProgress;
      if (last) report(last);
      let missingSince: number | null = null;
      let troubleSince: number | null = null;
      let sawDown = false;
      let lastPlace = "";
      let nextPoll = 0;
      try {
        for (;;) {
          if (hooks.signal.aborted) throw canceled();
          const t = terminalNow();
          if (t?.kind === "error") throw new Error(executionFailure(t.error));
          if (t?.kind === "interrupted") throw canceled();
          try {
            if (t?.kind === "finished") return await finish(hooks.signal);
            const now = Date.now();
            if (pollSoon || now >= nextPoll || !socket.connected) {
              pollSoon = false;
              const h = await readHistory(hooks.signal);
              const done = settle(h);
              if (done) return done;
              const q = await http.call("GET", "/api/queue", undefined, {
                timeoutMs: timing.pollTimeoutMs,
                signal: hooks.signal,
              });
              const place = queuePlace(q.json, watch.promptId);
              troubleSince = null;
              if (place.state === "absent") {
                // Not in the queue: it may have finished between the two reads, so ask the history again.
                const again = settle(await readHistory(hooks.signal));
                if (again) return again;
                missingSince ??= Date.now();
                if (watch.canceled) throw canceled();
                if (Date.now() - missingSince >= timing.lostGraceMs) {
                  if (dropped || sawDown) throw new Error(RESTARTED);
                  throw new Error(
                    "the engine lost the prompt: it is neither queued, running nor in its history " +
                      "(deleted from ComfyUI's queue elsewhere?)",
                  );
                }
              } else {
                missingSince = null;
                const where = place.state === "pending" ? `queued (${place.ahead} ahead)` : "running";
                if (place.state === "pending" && where !== lastPlace)
                  report({ progress: 0, step: "queued", log: `ComfyUI: ${where}` });
                lastPlace = where;
              }
              const fast = missingSince !== null || !socket.connected;
              nextPoll = Date.now() + (fast ? timing.fastPollMs : timing.pollMs);
            }
          } catch (err) {
            const down = downError(http.base, err);
            const transient =
              down !== null ||
              err instanceof ComfyTimeoutError ||
              (err instanceof ComfyHttpError && err.status >= 500);
            if (!transient) throw err;
            if (down) sawDown = true;
            troubleSince ??= Date.now();
            if (Date.now() - troubleSince >= timing.downLimitMs) {
              throw down ?? err;
            }
            log.warn("comfyui: poll failed; retrying", { prompt: watch.promptId, error: String(err) });
            nextPoll = Date.now() + timing.fastPollMs;
            if (terminal?.kind === "finished") terminal = null;
          }
          const wait = Math.max(0, nextPoll - Date.now());
          if (terminal === null && !pollSoon)
            await sleep(socket.connected ? wait : Math.min(wait, timing.fastPollMs), hooks.signal);
        }
      } finally {
        listener = null;
      }
    },

    dispose() {
      offEvent();
      offDrop();
      offOpen();
      poke();
    },
  };
  return watch;
}
