// Runs queued prompts one at a time with ComfyUI's message sequences (engines A.13): execution_start,
// execution_cached, per node progress_state → executing → progress… → executed → progress_state, then
// execution_success, the history write, status, and finally executing{node:null}. Cached nodes replay their
// outputs; interrupts land at node boundaries and progress ticks; injected runtime faults end the run with
// execution_error (incl. OOM and ExecutionBlocked). A restart bumps the epoch and the in-flight run is abandoned.
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import path from "node:path";
import type { NodeDef } from "./catalogue.ts";
import type { RuntimeFault } from "./faults.ts";
import { annotated, type Dirs } from "./files.ts";
import type { MediaMaker } from "./media.ts";
import { runSaver } from "./outputs.ts";
import type { PromptQueue } from "./queue.ts";
import type { Graph, HistoryEntry, Message, NodeMeta, Task, UiOutput } from "./types.ts";
import type { WsHub } from "./ws-hub.ts";

export interface ExecEnv {
  queue: PromptQueue;
  hub: WsHub;
  media: MediaMaker;
  dirs: Dirs;
  def: (classType: string) => NodeDef | undefined;
  runtimeFaults: (graph: Graph, order: string[], samplers: string[]) => Map<string, RuntimeFault>;
  epoch: () => number;
  now: () => number;
  stepMs: () => number;
  steps: () => number;
  nodeMs: (classType: string) => number;
  previews: boolean;
  progressText: boolean;
  historyLagMs: number;
}

class Interrupted {
  readonly nodeId: string;
  readonly nodeType: string;
  constructor(nodeId: string, nodeType: string) {
    this.nodeId = nodeId;
    this.nodeType = nodeType;
  }
}
class NodeFailure {
  readonly nodeId: string;
  readonly nodeType: string;
  readonly fault: RuntimeFault | null;
  readonly message: string;
  constructor(nodeId: string, nodeType: string, fault: RuntimeFault | null, message: string) {
    this.nodeId = nodeId;
    this.nodeType = nodeType;
    this.fault = fault;
    this.message = message;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));
const isLink = (v: unknown): v is [string, number] =>
  Array.isArray(v) && v.length === 2 && typeof v[0] === "string";

const OOM_MESSAGE =
  "Allocation on device \nThis error means you ran out of memory on your GPU.\n\nTIPS: If the workflow worked before you might have accidentally set the batch_size to a large number.";

export class Executor {
  interruptRequested = false;
  clientId: string | null = null;
  lastNode: string | null = null;
  /** Output cache keyed by input signature (holds the last prompt's nodes, like the classic cache). */
  private cache = new Map<string, { ui?: UiOutput }>();
  private busy = false;
  private freeMemory = false;

  private readonly env: ExecEnv;

  constructor(env: ExecEnv) {
    this.env = env;
  }

  kick(): void {
    if (this.busy) return;
    this.busy = true;
    setImmediate(() => {
      this.loop().finally(() => {
        this.busy = false;
        if (this.env.queue.pending().length > 0 && !this.env.queue.running) this.kick();
      });
    });
  }

  /** `POST /free {free_memory: true}`: caches are dropped between prompts. */
  requestFree(): void {
    if (this.env.queue.running) this.freeMemory = true;
    else this.cache.clear();
  }

  reset(): void {
    this.interruptRequested = false;
    this.clientId = null;
    this.lastNode = null;
    this.cache.clear();
    this.freeMemory = false;
  }

  private async loop(): Promise<void> {
    for (;;) {
      const epoch = this.env.epoch();
      const task = this.env.queue.next();
      if (!task) return;
      if (task.lost) continue;
      try {
        await this.run(task, epoch);
      } catch {
        // an abandoned run (restart / close) may throw after its files vanished
      }
    }
  }

  private signatures(graph: Graph): Map<string, string> {
    const memo = new Map<string, string>();
    const { dirs } = this.env;
    const sig = (id: string, stack: Set<string>): string => {
      const known = memo.get(id);
      if (known) return known;
      if (stack.has(id)) return "cycle";
      stack.add(id);
      const node = graph[id];
      const parts: unknown[] = [node?.class_type];
      for (const name of Object.keys(node?.inputs ?? {}).sort()) {
        const v = node.inputs?.[name];
        parts.push(name, isLink(v) && v[0] in graph ? ["link", sig(v[0], stack), v[1]] : v);
      }
      const loads = ["LoadImage", "LoadAudio", "LoadVideo"];
      if (loads.includes(String(node?.class_type)) && node.inputs) {
        const value = node.inputs.image ?? node.inputs.audio ?? node.inputs.file;
        if (typeof value === "string") {
          const [name, dir] = annotated(dirs, value);
          try {
            const st = statSync(path.join(dir ?? dirs.input, name));
            parts.push(st.size, st.mtimeMs);
          } catch {
            parts.push("missing");
          }
        }
      }
      stack.delete(id);
      const s = createHash("sha1").update(JSON.stringify(parts)).digest("hex");
      memo.set(id, s);
      return s;
    };
    for (const id of Object.keys(graph)) sig(id, new Set());
    return memo;
  }

  private order(graph: Graph, outputs: string[]): string[] {
    const out: string[] = [];
    const seen = new Set<string>();
    const visit = (id: string) => {
      if (seen.has(id)) return;
      seen.add(id);
      for (const v of Object.values(graph[id]?.inputs ?? {})) if (isLink(v) && v[0] in graph) visit(v[0]);
      out.push(id);
    };
    for (const o of outputs) visit(o);
    return out;
  }

  private async run(task: Task, epoch: number): Promise<void> {
    const env = this.env;
    const alive = () => env.epoch() === epoch;
    const promptId = task.promptId;
    const clientId = typeof task.extraData.client_id === "string" ? task.extraData.client_id : null;
    const { hub, queue } = env;
    this.clientId = clientId;
    this.lastNode = null;
    this.interruptRequested = false;
    const messages: Message[] = [];
    queue.runningMessages = messages;
    const addMessage = (event: string, data: Record<string, unknown>, broadcast: boolean) => {
      const d = { ...data, timestamp: env.now() };
      messages.push([event, d]);
      if (clientId !== null || broadcast) hub.send(event, d, clientId);
    };
    const toClient = (type: string, data: Record<string, unknown>) => {
      if (clientId !== null) hub.send(type, data, clientId);
    };

    const graph = task.prompt;
    addMessage("execution_start", { prompt_id: promptId }, false);
    if (!alive()) return;
    const sigs = this.signatures(graph);
    const order = this.order(graph, task.outputs);
    const cached = Object.keys(graph).filter((id) => this.cache.has(sigs.get(id) ?? ""));
    addMessage("execution_cached", { nodes: cached, prompt_id: promptId }, false);
    if (!alive()) return;

    const defOf = (id: string) => env.def(String(graph[id]?.class_type));
    const samplers = order.filter((id) => defOf(id)?.behaviour === "sampler");
    const faults = env.runtimeFaults(graph, order, samplers);
    const states: Record<string, { value: number; max: number; state: "running" | "finished" }> = {};
    const progressState = () => {
      const nodes: Record<string, unknown> = {};
      for (const [id, s] of Object.entries(states)) {
        nodes[id] = {
          value: s.value,
          max: s.max,
          state: s.state,
          node_id: id,
          prompt_id: promptId,
          display_node_id: id,
          parent_node_id: null,
          real_node_id: id,
        };
      }
      hub.send("progress_state", { prompt_id: promptId, nodes }, clientId);
    };
    const executed: string[] = [];
    const outputs: Record<string, UiOutput> = {};
    const meta: Record<string, NodeMeta> = {};
    const metaOf = (id: string): NodeMeta => ({
      node_id: id,
      display_node: id,
      parent_node: null,
      real_node_id: id,
    });
    const usedSigs = new Set(sigs.values());

    const finish = (success: boolean) => {
      for (const key of [...this.cache.keys()]) if (!usedSigs.has(key)) this.cache.delete(key);
      if (this.freeMemory) {
        this.cache.clear();
        this.freeMemory = false;
      }
      const entry: HistoryEntry = {
        task,
        outputs,
        meta,
        status: { status_str: success ? "success" : "error", completed: success, messages },
      };
      queue.finish(entry);
      toClient("executing", { node: null, prompt_id: promptId });
      this.clientId = null;
      this.lastNode = null;
    };

    try {
      for (const id of order) {
        if (!alive()) return;
        const classType = String(graph[id].class_type);
        const def = env.def(classType);
        const key = sigs.get(id) ?? "";
        const hit = this.cache.get(key);
        if (hit) {
          states[id] = { value: 1, max: 1, state: "finished" };
          executed.push(id);
          if (hit.ui) {
            outputs[id] = hit.ui;
            meta[id] = metaOf(id);
            toClient("executed", { node: id, display_node: id, output: hit.ui, prompt_id: promptId });
            progressState();
          }
          continue;
        }
        states[id] = { value: 0, max: 1, state: "running" };
        progressState();
        this.lastNode = id;
        toClient("executing", { node: id, display_node: id, prompt_id: promptId });
        if (!alive()) return;
        if (this.interruptRequested) throw new Interrupted(id, classType);
        const fault = faults.get(id) ?? null;
        const failAt = fault && fault.kind !== "blocked" ? (fault.afterSteps ?? 0) : 0;
        if (fault && failAt === 0) throw new NodeFailure(id, classType, fault, "");
        if (def?.behaviour === "sampler") {
          const steps = Math.max(1, env.steps());
          for (let i = 1; i <= steps; i++) {
            await sleep(env.stepMs());
            if (!alive()) return;
            if (this.interruptRequested) throw new Interrupted(id, classType);
            states[id] = { value: i, max: steps, state: "running" };
            hub.send("progress", { value: i, max: steps, prompt_id: promptId, node: id }, clientId);
            if (!alive()) return;
            progressState();
            if (env.previews) {
              const jpeg = await env.media.preview();
              if (!alive()) return;
              hub.preview(
                jpeg,
                {
                  node_id: id,
                  prompt_id: promptId,
                  display_node_id: id,
                  parent_node_id: id,
                  real_node_id: id,
                },
                clientId,
              );
            }
            if (env.progressText) hub.text(id, `step ${i}/${steps}`, clientId);
            if (fault && failAt === i) throw new NodeFailure(id, classType, fault, "");
          }
          states[id] = { value: steps, max: steps, state: "running" };
        } else {
          await sleep(env.nodeMs(classType));
          if (!alive()) return;
          if (this.interruptRequested) throw new Interrupted(id, classType);
          if (fault && failAt > 0) throw new NodeFailure(id, classType, fault, "");
        }
        let ui: UiOutput | undefined;
        if (def?.behaviour && def.behaviour !== "sampler") {
          try {
            ui = await runSaver(def.behaviour, {
              graph,
              nodeId: id,
              dirs: env.dirs,
              media: env.media,
              def: env.def,
            });
          } catch (err) {
            if (!alive()) return;
            throw new NodeFailure(id, classType, null, (err as Error).message);
          }
          if (!alive()) return;
        }
        states[id] = { ...states[id], value: states[id].max, state: "finished" };
        this.cache.set(key, { ui });
        executed.push(id);
        if (ui) {
          outputs[id] = ui;
          meta[id] = metaOf(id);
          toClient("executed", { node: id, display_node: id, output: ui, prompt_id: promptId });
        }
        progressState();
      }
    } catch (err) {
      if (!alive()) return;
      if (err instanceof Interrupted) {
        addMessage(
          "execution_interrupted",
          { prompt_id: promptId, node_id: err.nodeId, node_type: err.nodeType, executed: [...executed] },
          true,
        );
      } else if (err instanceof NodeFailure) {
        addMessage("execution_error", this.errorPayload(task, err, executed), false);
      } else {
        addMessage(
          "execution_error",
          this.errorPayload(task, new NodeFailure(this.lastNode ?? "", "", null, String(err)), executed),
          false,
        );
      }
      if (!alive()) return;
      finish(false);
      return;
    }
    addMessage("execution_success", { prompt_id: promptId }, false);
    // execution_success goes out before the history entry exists (clients reading history on it can race).
    await sleep(env.historyLagMs);
    if (!alive()) return;
    finish(true);
  }

  private errorPayload(task: Task, err: NodeFailure, executed: string[]): Record<string, unknown> {
    const base = {
      prompt_id: task.promptId,
      node_id: err.nodeId,
      node_type: err.nodeType,
      executed: [...executed],
    };
    const f = err.fault;
    if (f?.kind === "blocked") {
      return {
        ...base,
        exception_message: `Execution Blocked: ${f.message ?? "blocked by an upstream node"}`,
        exception_type: "ExecutionBlocked",
        traceback: [],
        current_inputs: [],
        current_outputs: [],
      };
    }
    const type =
      f?.kind === "oom"
        ? "torch.cuda.OutOfMemoryError"
        : f?.kind === "execution_error"
          ? (f.exceptionType ?? "Exception")
          : "Exception";
    const message =
      f?.kind === "oom"
        ? OOM_MESSAGE
        : f?.kind === "execution_error"
          ? (f.message ?? `Injected failure in node ${err.nodeId} (${err.nodeType})`)
          : err.message;
    const inputs: Record<string, unknown[]> = {};
    for (const [name, v] of Object.entries(task.prompt[err.nodeId]?.inputs ?? {})) {
      inputs[name] = isLink(v) ? [`<output ${v[1]} of node ${v[0]}>`] : [v];
    }
    return {
      ...base,
      exception_message: message,
      exception_type: type,
      traceback: [
        '  File "/ComfyUI/execution.py", line 496, in execute\n    output_data, output_ui, has_subgraph, has_pending_tasks = await get_output_data(prompt_id, unique_id, obj, input_data_all, execution_block_cb=execution_block_cb, pre_execute_cb=pre_execute_cb, hidden_inputs=hidden_inputs)\n',
        '  File "/ComfyUI/execution.py", line 315, in get_output_data\n    return_values = await _async_map_node_over_list(prompt_id, unique_id, obj, input_data_all, obj.FUNCTION, allow_interrupt=True, execution_block_cb=execution_block_cb, pre_execute_cb=pre_execute_cb, hidden_inputs=hidden_inputs)\n',
        `  File "/ComfyUI/comfy_double.py", line 1, in ${err.nodeType}\n    raise ${type}(${JSON.stringify(message)})\n`,
      ],
      current_inputs: inputs,
      current_outputs: [...executed],
    };
  }
}
