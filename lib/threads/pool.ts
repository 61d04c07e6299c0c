// A small pool of worker threads running one task module, so CPU-bound work (compiles) never blocks the event loop.
import { Worker } from "node:worker_threads";

interface Pending {
  slot: Slot;
  resolve(value: unknown): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  busy: number;
}

const BOOTSTRAP = new URL("./worker.js", import.meta.url);

export class ThreadPool {
  private readonly slots: Slot[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly moduleUrl: string;
  private readonly size: number;

  constructor(moduleUrl: URL, size = 1) {
    this.moduleUrl = moduleUrl.href;
    this.size = Math.max(1, size);
  }

  /** Call `method(arg)` of the task module on the least busy thread. Arguments and answers are structured-cloned. */
  run<T>(method: string, arg: unknown): Promise<T> {
    const slot = this.pick();
    const id = this.nextId++;
    slot.busy++;
    // A thread with work keeps the process alive; an idle one must not.
    slot.worker.ref();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { slot, resolve: (v) => resolve(v as T), reject });
      slot.worker.postMessage({ id, method, arg });
    });
  }

  /** Start a thread now, when none runs, so the first call does not wait for it to load its module. */
  warm(): void {
    if (!this.slots.length) this.spawn();
  }

  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private pick(): Slot {
    if (this.slots.length < this.size && this.slots.every((s) => s.busy > 0)) return this.spawn();
    return this.slots.reduce((a, b) => (b.busy < a.busy ? b : a));
  }

  private spawn(): Slot {
    const worker = new Worker(BOOTSTRAP, { workerData: { module: this.moduleUrl } });
    const slot: Slot = { worker, busy: 0 };
    worker.unref();
    worker.on("message", (msg: { id?: number; ok?: boolean; value?: unknown; error?: Error }) => {
      if (msg.id === undefined) return;
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      slot.busy--;
      if (slot.busy === 0) worker.unref();
      if (msg.ok) p.resolve(msg.value);
      else p.reject(Object.assign(new Error(msg.error?.message ?? "worker task failed"), msg.error));
    });
    const fail = (err: Error) => {
      // A dead thread fails what it held; the next call starts a fresh one.
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      for (const [id, p] of this.pending) {
        if (p.slot !== slot) continue;
        this.pending.delete(id);
        p.reject(err);
      }
    };
    worker.on("error", fail);
    worker.on("exit", (code) => {
      if (this.slots.includes(slot)) fail(new Error(`compile thread exited with code ${code}`));
    });
    this.slots.push(slot);
    return slot;
  }
}
