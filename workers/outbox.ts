// The event outbox between processes: every event a process emits is also written to the store tagged with the
// process's origin id, and an API process tails the outbox and broadcasts only the rows other processes wrote.
import type { EventSink, Logger } from "../lib/context.ts";
import type { JobStore } from "../lib/jobs/types.ts";

/** How an outbox row's data looks: who wrote it, and the event's own data. */
export interface Envelope {
  origin: string;
  data: unknown;
}

function isEnvelope(value: unknown): value is Envelope {
  return typeof value === "object" && value !== null && "origin" in value && "data" in value;
}

/**
 * Writes events to the outbox in the order they were emitted; a failed write is logged, never thrown. Writes wait
 * for a timer tick, so a claim or finish asked for in the same turn (they share the database's write queue) goes
 * first: pages hear of a job a few milliseconds later, and the engine waits less for its next job.
 */
export class OutboxWriter implements EventSink {
  private readonly buffer: { kind: string; row: Envelope }[] = [];
  private draining: Promise<void> | null = null;
  private readonly store: JobStore;
  private readonly origin: string;
  private readonly log: Logger;

  constructor(store: JobStore, origin: string, log: Logger) {
    this.store = store;
    this.origin = origin;
    this.log = log;
  }

  emit(kind: string, data: unknown): void {
    this.buffer.push({ kind, row: { origin: this.origin, data } });
    this.draining ??= new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(() => this.drain())
      .finally(() => {
        this.draining = null;
      });
  }

  /** Resolves once every event emitted so far is written (before a process exits). */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  // Everything buffered is handed over in one turn, so the store writes it as one batch (one commit), in order.
  private async drain(): Promise<void> {
    while (this.buffer.length) {
      const batch = this.buffer.splice(0);
      await Promise.all(
        batch.map(async (event) => {
          try {
            await this.store.emit(event.kind, event.row);
          } catch (err) {
            this.log.warn(
              `outbox: event ${event.kind} not written: ${err instanceof Error ? err.message : String(err)}`,
            );
          }
        }),
      );
    }
  }
}

export interface OutboxTailOptions {
  store: JobStore;
  /** This process's origin: its own rows were already sent to its sockets. */
  origin: string;
  sink: EventSink;
  log: Logger;
  /** How often to look when the store cannot say that rows were written. */
  intervalMs?: number;
  /** How often to look anyway when it can (a notice lost while its connection was down). */
  safetyIntervalMs?: number;
}

const PAGE = 500;
/** Bounds the skip to the end at start (10 minutes of events are kept; this is far more). */
const MAX_SKIP_PAGES = 2_000;

/**
 * Reads the outbox from where it stood at start and broadcasts other processes' events: on each notice where the
 * store pushes them (with a slow look as a safety net), else every 200 ms.
 */
export class OutboxTail {
  private last = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  /** Set once the skip to the end is done: a notice before that only asks for a read after it. */
  private ready = false;
  private stopped = false;
  private unlisten: (() => void) | null = null;
  private readonly opts: OutboxTailOptions;

  constructor(opts: OutboxTailOptions) {
    this.opts = opts;
  }

  async start(): Promise<void> {
    // Listening before the skip, so rows written during it are read right after.
    this.unlisten = this.opts.store.listen?.("events", () => this.now()) ?? null;
    // Events written before this process started were for sockets that are gone.
    for (let i = 0; i < MAX_SKIP_PAGES; i++) {
      const rows = await this.opts.store.eventsSince(this.last, PAGE);
      if (rows.length) this.last = rows[rows.length - 1].id;
      if (rows.length < PAGE) break;
    }
    this.ready = true;
    if (this.again) {
      this.again = false;
      this.read();
    } else this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unlisten?.();
    this.unlisten = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Read now; a read already under way reads once more when it ends. */
  private now(): void {
    if (this.stopped) return;
    if (this.running || !this.ready) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.read();
  }

  private read(): void {
    this.running = this.poll().finally(() => {
      this.running = null;
      if (this.again && !this.stopped) {
        this.again = false;
        this.read();
      } else this.schedule();
    });
  }

  private schedule(): void {
    if (this.stopped || this.timer || this.running) return;
    const every = this.unlisten ? (this.opts.safetyIntervalMs ?? 5000) : (this.opts.intervalMs ?? 200);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.read();
    }, every);
  }

  private async poll(): Promise<void> {
    try {
      for (let i = 0; i < MAX_SKIP_PAGES && !this.stopped; i++) {
        const rows = await this.opts.store.eventsSince(this.last, PAGE);
        for (const row of rows) {
          this.last = row.id;
          if (!isEnvelope(row.data)) this.opts.sink.emit(row.kind, row.data);
          else if (row.data.origin !== this.opts.origin) this.opts.sink.emit(row.kind, row.data.data);
        }
        if (rows.length < PAGE) break;
      }
    } catch (err) {
      this.opts.log.warn(
        `outbox: reading events failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
}
