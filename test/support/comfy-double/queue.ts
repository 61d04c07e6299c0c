// The in-memory prompt queue: a Python heapq of (number, prompt_id) with the server's `number` counter, at
// most one running item, and the history dict (insertion order, capped, overwritten in place on duplicates).
import { PyFloat, PyHeap, pyStrLess } from "./py.ts";
import type { HistoryEntry, Message, Task } from "./types.ts";

export const SENSITIVE_KEYS = ["api_key_comfy_org", "auth_token_comfy_org"];

export class PromptQueue {
  /** Next `number` for submissions without an explicit one (reset to 0 by a restart). */
  number = 0;
  readonly heap = new PyHeap<Task>(
    (a, b) => a.number < b.number || (a.number === b.number && pyStrLess(a.promptId, b.promptId)),
  );
  running: Task | null = null;
  /** Messages of the running prompt so far (the jobs API reads its start time). */
  runningMessages: Message[] = [];
  readonly history = new Map<string, HistoryEntry>();

  private readonly cap: () => number;
  private readonly changed: () => void;

  constructor(cap: () => number, changed: () => void) {
    this.cap = cap;
    this.changed = changed;
  }

  put(task: Task): void {
    this.heap.push(task);
    this.changed();
  }

  /** The worker takes the next item (it becomes "running"); a lost item just vanishes. */
  next(): Task | undefined {
    const task = this.heap.pop();
    if (task && !task.lost) this.running = task;
    if (task) this.changed();
    return task;
  }

  finish(entry: HistoryEntry): void {
    this.running = null;
    this.runningMessages = [];
    const id = entry.task.promptId;
    if (this.history.size > this.cap()) {
      const oldest = this.history.keys().next().value;
      if (oldest !== undefined) this.history.delete(oldest);
    }
    this.history.set(id, entry);
    this.changed();
  }

  remaining(): number {
    return this.heap.items.length + (this.running ? 1 : 0);
  }

  pending(): Task[] {
    return this.heap.items;
  }

  /** `delete_queue_item`: removes the first pending match only. */
  deletePending(promptId: string): boolean {
    const i = this.heap.items.findIndex((t) => t.promptId === promptId);
    if (i < 0) return false;
    if (this.heap.items.length === 1) this.heap.items.length = 0;
    else {
      this.heap.items.splice(i, 1);
      this.heap.heapify();
    }
    this.changed();
    return true;
  }

  clearPending(): void {
    this.heap.items.length = 0;
    this.changed();
  }

  known(promptId: string): boolean {
    return (
      this.running?.promptId === promptId ||
      this.heap.items.some((t) => t.promptId === promptId) ||
      this.history.has(promptId)
    );
  }

  /** A restart: nothing in memory survives, the counter starts again at 0. */
  reset(): void {
    this.heap.items.length = 0;
    this.running = null;
    this.runningMessages = [];
    this.history.clear();
    this.number = 0;
  }
}

/** A task as the 5-element wire array; `withSecrets` puts the popped secrets back (old /queue). */
export function queueItem(task: Task, withSecrets: boolean): unknown[] {
  const extra = withSecrets ? { ...task.extraData, ...task.sensitive } : task.extraData;
  return [
    task.numberIsFloat ? new PyFloat(task.number) : task.number,
    task.promptId,
    task.prompt,
    extra,
    task.outputs,
  ];
}

/** A history entry as `/history` shows it (without the `{id: ...}` wrapper). */
export function historyJson(entry: HistoryEntry): Record<string, unknown> {
  return {
    prompt: queueItem(entry.task, false),
    outputs: entry.outputs,
    status: entry.status,
    meta: entry.meta,
  };
}
