// Shared types of the ComfyUI test double: graphs, queue items, history entries, faults and options.

export type Profile = "old" | "new";

/** One node of an API-format graph, as submitted (anything may be missing or malformed). */
export interface GraphNode {
  class_type?: unknown;
  inputs?: Record<string, unknown>;
  _meta?: { title?: string };
  [key: string]: unknown;
}
export type Graph = Record<string, GraphNode>;

/** A queued prompt; `/queue` and history show it as the 5-array `[number, prompt_id, prompt, extra_data, outputs]`. */
export interface Task {
  number: number;
  /** The caller supplied `number`, so Python held a float (serialised as `5.0`). */
  numberIsFloat: boolean;
  promptId: string;
  prompt: Graph;
  extraData: Record<string, unknown>;
  outputs: string[];
  /** Secrets popped from `extra_data` (`api_key_comfy_org`, `auth_token_comfy_org`). */
  sensitive: Record<string, unknown>;
  /** Injected "lost" fault: accepted, then vanishes from the queue without running. */
  lost?: boolean;
}

export type Message = [string, Record<string, unknown>];

export interface HistoryEntry {
  task: Task;
  outputs: Record<string, UiOutput>;
  meta: Record<string, NodeMeta>;
  status: { status_str: "success" | "error"; completed: boolean; messages: Message[] };
}

export interface NodeMeta {
  node_id: string;
  display_node: string;
  parent_node: null;
  real_node_id: string;
}

export interface FileItem {
  filename: string;
  subfolder: string;
  type: "output" | "temp" | "input";
  [extra: string]: unknown;
}
/** A node's UI output: arrays keyed by kind (`images`, `animated`, `audio`, `gifs`, `text`, ...). */
export type UiOutput = Record<string, unknown[]>;

/** WebSocket event names a fault can be tied to. */
export type WsEvent =
  | "status"
  | "execution_start"
  | "execution_cached"
  | "executing"
  | "progress"
  | "progress_state"
  | "executed"
  | "execution_success"
  | "execution_error"
  | "execution_interrupted";

/** Where a node-targeted fault applies: a node id, a class, or (neither) the first sampler-like node. */
export interface NodeTarget {
  node?: string;
  classType?: string;
}

/**
 * Faults for `inject()` (engines D, "Failure injection"). `times` (default 1) is how many
 * prompts/requests/events consume the fault; `Infinity` keeps it armed until `clearFaults()`.
 */
export type Fault =
  /** Validation: the node gets an error of `errorType` (default `custom_validation_failed`) → 400 with node_errors. */
  | ({
      kind: "node_error";
      errorType?: string;
      message?: string;
      details?: string;
      times?: number;
    } & NodeTarget)
  /** Runtime: `execution_error` when the node runs (after `afterSteps` progress ticks, default 0). */
  | ({
      kind: "execution_error";
      exceptionType?: string;
      message?: string;
      afterSteps?: number;
      times?: number;
    } & NodeTarget)
  /** Runtime: a `torch.cuda.OutOfMemoryError` execution error. */
  | ({ kind: "oom"; afterSteps?: number; times?: number } & NodeTarget)
  /** Runtime: the `ExecutionBlocked` variant (empty traceback/inputs). */
  | ({ kind: "blocked"; message?: string; times?: number } & NodeTarget)
  /** The next accepted prompt(s) get a 200 and then vanish from the queue without running or history. */
  | { kind: "lose"; times?: number }
  /** Terminate every WebSocket (no close frame) just before the next event of this type would be sent. */
  | { kind: "drop_ws"; on?: WsEvent; times?: number }
  /** Restart the server (forget queue/history) just before the next event of this type would be sent. */
  | { kind: "restart"; on?: WsEvent; hard?: boolean; times?: number }
  /** Keep sockets open but send nothing for `ms` (events in the window are lost, never replayed). */
  | { kind: "ws_stall"; ms: number }
  /** Refuse TCP connections for `ms`, then listen again on the same port. */
  | { kind: "refuse"; ms: number }
  /** Delay HTTP answers by `ms` (optionally only paths containing `path`). */
  | { kind: "slow_http"; ms: number; path?: string; times?: number }
  /** Change the per-step sampler delay from now on (slow progress). */
  | { kind: "slow_progress"; stepMs: number }
  /** Remove a model file from a folder list (a loader naming it then fails with `value_not_in_list`). */
  | { kind: "missing_model"; folder: string; file: string };

export interface ReceivedPrompt {
  at: number;
  path: string;
  /** Parsed JSON body, or the raw text when it did not parse. */
  body: unknown;
  status: number;
  response: unknown;
  prompt_id?: string;
  client_id?: string;
}

export interface ReceivedUpload {
  at: number;
  path: string;
  /** The file part's own filename. */
  filename: string;
  /** The stored name returned to the client. */
  name: string;
  subfolder: string;
  type: string;
  overwrite: string | null;
  size: number;
  sha1: string;
  deduped: boolean;
  file: string;
}

export interface ReceivedRequest {
  at: number;
  method: string;
  path: string;
  status: number;
}

export interface ComfyDoubleOptions {
  /** "old" = 0.3.64 behaviour (no jobs API, any prompt_id); "new" = jobs API, UUID-only ids, 409 duplicates. */
  profile?: Profile;
  /** Model files per folder (`diffusion_models`, `text_encoders`, `vae`, ...). Default: the files the ltx2,
   * flux2_klein, flux2_klein_edit and ltx2_voice targets want (targets 2.5). */
  models?: Record<string, string[]>;
  /** Node classes offered (default: every class the double knows but the finishing packs', DEFAULT_NODES). */
  nodes?: string[];
  /** Delay per sampler step (ms); default 20. */
  stepMs?: number;
  /** Steps a sampler node reports; default 3. */
  steps?: number;
  /** Extra duration per node class (ms) for non-sampler work. */
  nodeMs?: Record<string, number>;
  /** `system.comfyui_version` (default "0.3.64" old, "0.36.0" new). */
  comfyuiVersion?: string;
  /** History cap (real: 10 000); when exceeded the oldest entry is dropped. */
  historyCap?: number;
  /** Body limit in bytes (real default 100 MB) → 413 above it. */
  maxUploadBytes?: number;
  /** Send binary preview frames (type 1 / type 4) on every sampler step. */
  previews?: boolean;
  /** Send binary type-3 text frames on every sampler step. */
  progressText?: boolean;
  /** Gap between `execution_success` and the history write (ms); default 10. */
  historyLagMs?: number;
  /** Clock for timestamps (ms epoch). */
  now?: () => number;
  /** Mints prompt ids when the caller sends none (default `crypto.randomUUID`). */
  newId?: () => string;
  /** Base folder holding input/, output/, temp/, user/ (default: a fresh temp dir removed on close). */
  baseDir?: string;
  /** Saved workflows to seed under user/default/workflows/ (name → JSON). */
  workflows?: Record<string, unknown>;
  /** Fixed port (default: one chosen by the OS). */
  port?: number;
}
