// The double's state and the operations routes share: POST /prompt semantics (counter, front, explicit float
// number, prompt_id rules per profile, validation, secrets), interrupt, queue delete, jobs cancel, restart reset.
import { randomUUID } from "node:crypto";
import {
  type CatalogueContext,
  DEFAULT_MODELS,
  DEFAULT_NODES,
  NODE_DEFS,
  type NodeDef,
} from "./catalogue.ts";
import { Executor } from "./executor.ts";
import { Faults } from "./faults.ts";
import { annotatedExists, type Dirs, inputFiles, type Reply } from "./files.ts";
import { MediaMaker } from "./media.ts";
import { PyFloat, pyBool, pyFloat, pyJson, pyStr } from "./py.ts";
import { PromptQueue, SENSITIVE_KEYS } from "./queue.ts";
import type {
  ComfyDoubleOptions,
  Graph,
  Profile,
  ReceivedPrompt,
  ReceivedRequest,
  ReceivedUpload,
  Task,
} from "./types.ts";
import { type ErrorRecord, validatePrompt } from "./validate.ts";
import { WsHub } from "./ws-hub.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isCanonicalUuid(v: unknown): v is string {
  return typeof v === "string" && UUID.test(v);
}

export class DoubleCore {
  readonly profile: Profile;
  readonly models: Record<string, string[]>;
  readonly classes: Set<string>;
  readonly faults = new Faults();
  readonly queue: PromptQueue;
  readonly hub: WsHub;
  readonly executor: Executor;
  readonly media = new MediaMaker();
  readonly prompts: ReceivedPrompt[] = [];
  readonly uploads: ReceivedUpload[] = [];
  readonly requests: ReceivedRequest[] = [];
  epoch = 0;
  stepMs: number;
  readonly maxUploadBytes: number;
  readonly version: string;
  readonly now: () => number;
  private readonly newId: () => string;
  /** Called by fault hooks that restart the server mid-run (set by index.ts). */
  onRestartFault: (hard: boolean) => void = () => {};

  readonly dirs: Dirs;
  readonly opts: ComfyDoubleOptions;

  constructor(dirs: Dirs, opts: ComfyDoubleOptions) {
    this.dirs = dirs;
    this.opts = opts;
    this.profile = opts.profile ?? "old";
    this.models = structuredClone(opts.models ?? DEFAULT_MODELS);
    this.classes = new Set(opts.nodes ?? DEFAULT_NODES);
    this.stepMs = opts.stepMs ?? 20;
    this.maxUploadBytes = opts.maxUploadBytes ?? 100 * 1024 * 1024;
    this.version = opts.comfyuiVersion ?? (this.profile === "old" ? "0.3.64" : "0.36.0");
    this.now = opts.now ?? Date.now;
    this.newId = opts.newId ?? randomUUID;
    this.queue = new PromptQueue(
      () => opts.historyCap ?? 10_000,
      () => this.hub.status(),
    );
    this.hub = new WsHub({
      profile: this.profile,
      queueRemaining: () => this.queue.remaining(),
      owner: () => ({ clientId: this.executor.clientId, lastNode: this.executor.lastNode }),
      serverFlags: () => this.features(),
      beforeSend: (type) => this.beforeSend(type),
    });
    this.executor = new Executor({
      queue: this.queue,
      hub: this.hub,
      media: this.media,
      dirs,
      def: (c) => this.def(c),
      runtimeFaults: (g, order, samplers) => this.faults.runtimeFor(g, order, samplers),
      epoch: () => this.epoch,
      now: this.now,
      stepMs: () => this.stepMs,
      steps: () => opts.steps ?? 3,
      nodeMs: (c) => opts.nodeMs?.[c] ?? 0,
      previews: opts.previews === true,
      progressText: opts.progressText === true,
      historyLagMs: opts.historyLagMs ?? 10,
    });
  }

  def(classType: string): NodeDef | undefined {
    return this.classes.has(classType) && Object.hasOwn(NODE_DEFS, classType)
      ? NODE_DEFS[classType]
      : undefined;
  }

  catalogue(): CatalogueContext {
    return { profile: this.profile, models: this.models, inputFiles: (kind) => inputFiles(this.dirs, kind) };
  }

  features(): Record<string, unknown> {
    return { supports_preview_metadata: true, max_upload_size: this.maxUploadBytes };
  }

  private beforeSend(type: string): boolean {
    const f = this.faults.takeOnEvent(type);
    if (!f) return true;
    if (f.kind === "drop_ws") this.hub.dropAll();
    else this.onRestartFault(f.hard === true);
    return false;
  }

  /** POST /prompt. */
  submit(
    json: unknown,
    headers: Record<string, string | string[] | undefined>,
  ): Reply & { record: Partial<ReceivedPrompt> } {
    const error500 = {
      status: 500,
      headers: { "Content-Type": "text/plain" },
      body: "500 Internal Server Error\n\nServer got itself in trouble",
      record: {},
    };
    if (json === null || typeof json !== "object" || Array.isArray(json)) return error500;
    const body = json as Record<string, unknown>;
    let number: number;
    let numberIsFloat = false;
    if ("number" in body) {
      try {
        number = pyFloat(body.number);
      } catch {
        return error500;
      }
      numberIsFloat = true;
    } else {
      number = this.queue.number;
      if ("front" in body && pyBool(body.front)) number = -number;
      this.queue.number += 1;
    }
    const respond = (status: number, value: unknown, record: Partial<ReceivedPrompt> = {}) => ({
      status,
      headers: { "Content-Type": "application/json; charset=utf-8" },
      body: pyJson(value),
      record,
    });
    if (!("prompt" in body)) {
      const error = {
        type: "no_prompt",
        message: "No prompt provided",
        details: "No prompt provided",
        extra_info: {},
      };
      return respond(400, { error, node_errors: {} });
    }
    let promptId: string;
    if (this.profile === "new") {
      const given = body.prompt_id;
      if (given === undefined || given === null) promptId = this.newId();
      else if (!isCanonicalUuid(given)) {
        const error = {
          type: "invalid_prompt_id",
          message: "Invalid prompt_id format",
          details: `prompt_id must be a canonical lowercase UUID, got ${pyStr(given)}`,
          extra_info: {},
        };
        return respond(400, { error, node_errors: {} });
      } else promptId = given;
      if (this.queue.known(promptId))
        return respond(409, { error: "prompt_id already exists" }, { prompt_id: promptId });
    } else {
      promptId = "prompt_id" in body ? pyStr(body.prompt_id) : this.newId();
    }
    const prompt = body.prompt;
    if (prompt === null || typeof prompt !== "object" || Array.isArray(prompt)) return error500;
    const graph = structuredClone(prompt) as Graph;
    const injected = new Map<string, ErrorRecord[]>();
    const firstOutput = Object.keys(graph).filter((id) => {
      const c = graph[id]?.class_type;
      return typeof c === "string" && this.def(c)?.outputNode;
    });
    for (const [id, f] of this.faults.validationFor(graph, firstOutput)) {
      injected.set(id, [
        {
          type: f.errorType ?? "custom_validation_failed",
          message: f.message ?? "Custom validation failed for node",
          details: f.details ?? "injected fault",
          extra_info: {},
        },
      ]);
    }
    const v = validatePrompt(graph, body.partial_execution_targets, {
      profile: this.profile,
      def: (c) => this.def(c),
      ctx: this.catalogue(),
      fileExists: (value) => annotatedExists(this.dirs, value),
      injected: (id) => injected.get(id) ?? [],
    });
    let extraData: Record<string, unknown> = {};
    if ("extra_data" in body) {
      const e = body.extra_data;
      if (e === null || typeof e !== "object" || Array.isArray(e)) {
        if ("client_id" in body) return error500;
      } else extraData = structuredClone(e) as Record<string, unknown>;
    }
    if ("client_id" in body) extraData.client_id = body.client_id;
    if (this.profile === "new") {
      extraData.create_time = this.now();
      const source = headers["comfy-usage-source"];
      if (typeof source === "string") extraData.comfy_usage_source = source;
    }
    const record: Partial<ReceivedPrompt> = {
      prompt_id: promptId,
      client_id: typeof body.client_id === "string" ? body.client_id : undefined,
    };
    if (!v.ok) return respond(400, { error: v.error, node_errors: v.nodeErrors }, record);
    const sensitive: Record<string, unknown> = {};
    for (const k of SENSITIVE_KEYS) {
      if (k in extraData) {
        sensitive[k] = extraData[k];
        delete extraData[k];
      }
    }
    const task: Task = {
      number,
      numberIsFloat,
      promptId,
      prompt: graph,
      extraData,
      outputs: v.outputs,
      sensitive,
      lost: this.faults.takeLose(),
    };
    this.queue.put(task);
    this.executor.kick();
    return respond(
      200,
      {
        prompt_id: promptId,
        number: numberIsFloat ? new PyFloat(number) : number,
        node_errors: v.nodeErrors,
      },
      record,
    );
  }

  /** POST /interrupt: global, or only if `promptId` is the running one. */
  interrupt(promptId: unknown): void {
    const running = this.queue.running;
    if (promptId) {
      if (running && running.promptId === promptId) this.executor.interruptRequested = true;
      return;
    }
    if (running) this.executor.interruptRequested = true;
  }

  /** Jobs API cancel: running → interrupt, pending → dequeue; false when finished/unknown. */
  cancel(id: string): boolean {
    if (this.queue.running?.promptId === id) {
      this.executor.interruptRequested = true;
      return true;
    }
    return this.queue.deletePending(id);
  }

  /** Forget everything in memory (files stay); the in-flight run is abandoned. */
  resetState(): void {
    this.epoch += 1;
    this.queue.reset();
    this.executor.reset();
  }
}
