// Armed faults (engines D, "Failure injection"): each is consumed when it fires, `times` over.
import type { Fault, Graph, NodeTarget, WsEvent } from "./types.ts";

type Armed = Fault & { left: number };

export class Faults {
  private armed: Armed[] = [];

  add(fault: Fault): void {
    const times = "times" in fault && typeof fault.times === "number" ? fault.times : 1;
    this.armed.push({ ...fault, left: times });
  }

  clear(): void {
    this.armed = [];
  }

  list(): Fault[] {
    return this.armed.map(({ left: _left, ...f }) => f as Fault);
  }

  private use(f: Armed): void {
    f.left -= 1;
    if (f.left <= 0) this.armed = this.armed.filter((x) => x !== f);
  }

  /** Validation faults that hit a node of this graph; consumed per prompt. Returns node id → fault. */
  validationFor(graph: Graph, outputs: string[]): Map<string, Extract<Fault, { kind: "node_error" }>> {
    const hits = new Map<string, Extract<Fault, { kind: "node_error" }>>();
    for (const f of [...this.armed]) {
      if (f.kind !== "node_error") continue;
      const ids = matching(graph, f, outputs.slice(0, 1));
      if (ids.length === 0) continue;
      for (const id of ids) hits.set(id, f);
      this.use(f);
    }
    return hits;
  }

  /** Runtime faults for a run, bound to node ids; the default target is the first sampler node. */
  runtimeFor(graph: Graph, order: string[], samplers: string[]): Map<string, RuntimeFault> {
    const hits = new Map<string, RuntimeFault>();
    for (const f of [...this.armed]) {
      if (f.kind !== "execution_error" && f.kind !== "oom" && f.kind !== "blocked") continue;
      const fallback = samplers.length > 0 ? samplers.slice(0, 1) : order.slice(-1);
      const ids = matching(graph, f, fallback).filter((id) => order.includes(id));
      if (ids.length === 0) continue;
      hits.set(ids[0], f);
      this.use(f);
    }
    return hits;
  }

  takeLose(): boolean {
    const f = this.armed.find((x) => x.kind === "lose");
    if (!f) return false;
    this.use(f);
    return true;
  }

  /** A drop/restart fault tied to this outgoing event type. */
  takeOnEvent(type: string): Extract<Fault, { kind: "drop_ws" } | { kind: "restart" }> | null {
    const f = this.armed.find(
      (x) => (x.kind === "drop_ws" || x.kind === "restart") && ((x.on ?? "progress") as WsEvent) === type,
    );
    if (!f) return null;
    this.use(f);
    return f as Extract<Fault, { kind: "drop_ws" } | { kind: "restart" }>;
  }

  takeSlow(path: string): number {
    const f = this.armed.find((x) => x.kind === "slow_http" && (!x.path || path.includes(x.path)));
    if (f?.kind !== "slow_http") return 0;
    this.use(f);
    return f.ms;
  }
}

export type RuntimeFault = Extract<Fault, { kind: "execution_error" | "oom" | "blocked" }>;

function matching(graph: Graph, target: NodeTarget, fallback: string[]): string[] {
  if (target.node !== undefined) return target.node in graph ? [target.node] : [];
  if (target.classType !== undefined) {
    return Object.keys(graph).filter((id) => graph[id]?.class_type === target.classType);
  }
  return fallback;
}
