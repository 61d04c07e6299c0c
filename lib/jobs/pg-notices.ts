// PostgreSQL's LISTEN/NOTIFY for the job store: one dedicated connection listens on the store's channels and hands
// each notice on; when that connection drops it connects again, and tells everyone to look (notices sent meanwhile
// are lost).
import pg from "pg";

/**
 * The channels the job tables' triggers notify on (their migration names them too): outbox rows written, and jobs
 * added or that may have become runnable (an ended job's notice carries its id).
 */
export const CHANNELS = { events: "studio_events", jobs: "studio_jobs" } as const;
export type Channel = keyof typeof CHANNELS;

export interface Notices {
  /** `payload` is what the notifier sent, or null after a reconnect (anything may have happened). */
  on(fn: (channel: Channel, payload: string | null) => void): () => void;
  close(): Promise<void>;
}

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5000;

/** Connects and listens; rejects when the first connection fails, later drops are retried for good. */
export async function listenNotices(config: pg.ClientConfig): Promise<Notices> {
  const handlers = new Set<(channel: Channel, payload: string | null) => void>();
  let closed = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  let delay = RETRY_FIRST_MS;

  const byName = new Map<string, Channel>(Object.entries(CHANNELS).map(([k, v]) => [v, k as Channel]));
  const tell = (channel: Channel, payload: string | null) => {
    for (const fn of [...handlers]) fn(channel, payload);
  };

  async function connect(): Promise<void> {
    const next = new pg.Client(config);
    // An error on this connection ends it; the `end` handler below reconnects.
    next.on("error", () => {});
    next.on("notification", (msg) => {
      const channel = byName.get(msg.channel);
      if (channel) tell(channel, msg.payload ?? "");
    });
    next.on("end", () => {
      if (client === next) client = null;
      if (!closed) schedule();
    });
    try {
      await next.connect();
      for (const name of Object.values(CHANNELS)) await next.query(`LISTEN ${name}`);
    } catch (err) {
      next.removeAllListeners("end");
      await next.end().catch(() => {});
      throw err;
    }
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
  }

  function schedule(): void {
    if (retry || closed) return;
    retry = setTimeout(() => {
      retry = null;
      connect().then(
        () => {
          delay = RETRY_FIRST_MS;
          tell("events", null);
          tell("jobs", null);
        },
        () => {
          delay = Math.min(RETRY_MAX_MS, delay * 2);
          schedule();
        },
      );
    }, delay);
  }

  await connect();
  return {
    on(fn) {
      handlers.add(fn);
      return () => {
        handlers.delete(fn);
      };
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      retry = null;
      const last = client;
      client = null;
      await last?.end().catch(() => {});
    },
  };
}
