// The job store over libsql (embedded file or a libsql server): queue, leases, lanes, event outbox, paid counter.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { createClient, type ResultSet } from "@libsql/client";
import { and, asc, desc, eq, getTableColumns, gt, gte, inArray, lt, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/libsql";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import type { Services } from "../context.ts";
import { notFound } from "../errors.ts";
import { errorMessage } from "../store/json-guards.ts";
import { createLocks, type Locks } from "../store/lock.ts";
import { relaxCommits } from "./commit-mode.ts";
import { isPostgresUrl, jobDatabaseUrl } from "./database-url.ts";
import { assembleListing, FINISHED_LISTED } from "./listing.ts";
import { migrate } from "./migrate.ts";
import {
  appendLog,
  canceledFields,
  checkIndex,
  checkLane,
  checkLease,
  checkMovable,
  checkParallel,
  finishedFields,
  jobFromRow,
  movedPositions,
  newJobValues,
  progressFields,
  reclaimedFields,
  releasedFields,
  retriedJob,
} from "./row-rules.ts";
import { events, type JobRow, jobs, lanes, meta, workers } from "./schema.ts";
import type { Job, JobStore, NewJob } from "./types.ts";
import { EVENTS_KEPT_MS, EVENTS_PER_INSERT, FINISHED_KEPT, throttledPrune } from "./upkeep.ts";
import { ENDED_STATUSES, hasEnded, JobEnds } from "./wait.ts";
import { checkAd, liveAds, maxAge } from "./worker-ad.ts";

export interface JobStoreOptions {
  /** Epoch milliseconds; tests move time with it. */
  now?: () => number;
  /** For a libsql server URL. */
  authToken?: string;
  /**
   * Where writes to one database queue (the process's locks, so two stores on the same file in one process also
   * take turns); the store's own when not given.
   */
  locks?: Locks;
}

/** The job store (the job store interface says all it does). */
export type StudioJobStore = JobStore;

type Exec = BaseSQLiteDatabase<"async", ResultSet>;

const BUSY_TIMEOUT_MS = 5000;
const REMOTE = /^(https?|libsql|wss?):\/\//i;

/**
 * The job store a URL names: `postgres://` or `postgresql://` a PostgreSQL server (its client loads only then),
 * `file:` an embedded database, `libsql://`, `http(s)://` or `ws(s)://` a libsql server.
 */
export async function createJobStore(url: string, opts: JobStoreOptions = {}): Promise<StudioJobStore> {
  if (isPostgresUrl(url)) {
    const { createPgJobStore } = await import("./pg-store.ts");
    return createPgJobStore(url, { now: opts.now });
  }
  const now = opts.now ?? Date.now;
  const file = filePath(url);
  if (!file && !REMOTE.test(url)) {
    throw new Error(
      `job database URL ${JSON.stringify(url.replace(/\?.*$/, ""))} is not supported: use file:<path>, a libsql server URL (libsql://, https://, wss://) or a PostgreSQL URL (postgres://user:password@host:port/database)`,
    );
  }
  if (file) await mkdir(path.dirname(file), { recursive: true });
  // Writes of one process to one database go one at a time. The embedded client runs each statement
  // synchronously on a pool of connections: a second connection's write waiting on the busy timeout would block the
  // event loop while the first connection's open transaction needs that loop to commit.
  const locks = opts.locks ?? createLocks();
  const key = `job database\0${file ?? url}`;
  const serialize = <T>(fn: () => Promise<T>) => locks.run(key, fn);
  const client = createClient({
    url,
    timeout: BUSY_TIMEOUT_MS,
    authToken: file ? undefined : opts.authToken,
  });
  try {
    await serialize(async () => {
      if (file) {
        // WAL lets readers in other processes go on while one writes; the busy timeout (also set on every pooled
        // connection by `timeout`) makes a second writer wait for the lock instead of failing at once.
        await client.execute("PRAGMA journal_mode=WAL");
        await client.execute(`PRAGMA busy_timeout=${BUSY_TIMEOUT_MS}`);
      }
      await migrate(client, undefined, now);
    });
  } catch (err) {
    client.close();
    // Without the query string: a libsql URL may carry `authToken` there.
    throw new Error(`cannot open the job database ${url.replace(/\?.*$/, "")}: ${errorMessage(err)}`);
  }
  const db = drizzle(client);
  // An embedded file commits without waiting for the disk (commit-mode.ts says why).
  const write = <T>(fn: () => Promise<T>) =>
    serialize(async () => {
      if (file) await relaxCommits(client);
      return fn();
    });
  const inTx = <T>(fn: (tx: Exec) => Promise<T>) => write(() => db.transaction((tx) => fn(tx)));
  const iso = (ms: number) => new Date(ms).toISOString();
  const pendingEvents: (typeof events.$inferInsert)[] = [];
  let eventsBatch: Promise<void> | null = null;
  const ends = new JobEnds();

  async function insertJob(exec: Exec, job: NewJob): Promise<Job> {
    // Inside the write lock: two adders in one lane cannot draw the same place.
    const [row] = await exec
      .insert(jobs)
      .values(newJobValues(job, iso(now())))
      .returning();
    return jobFromRow(row);
  }

  async function mustGet(exec: Exec, id: string): Promise<Job> {
    const [row] = await exec.select().from(jobs).where(eq(jobs.id, id)).limit(1);
    if (!row) throw notFound(`job ${id} not found`);
    return jobFromRow(row);
  }

  // Old events and old finished jobs go, so the database stays small.
  const housekeep = throttledPrune(now, (t) =>
    write(async () => {
      await db.delete(events).where(lt(events.created, t - EVENTS_KEPT_MS));
      await db.run(sql`DELETE FROM jobs WHERE status IN ('succeeded', 'failed', 'canceled') AND id NOT IN (
        SELECT id FROM jobs WHERE status IN ('succeeded', 'failed', 'canceled')
        ORDER BY finished DESC, rowid DESC LIMIT ${FINISHED_KEPT})`);
    }),
  );

  // Running jobs whose lease lapsed or whose owner is gone: back to the queue, or ended (see JobStore).
  const reclaim = (at: number | undefined, gone: ((owner: string) => boolean) | undefined): Promise<Job[]> =>
    inTx(async (tx) => {
      const t = at ?? now();
      const running = await tx.select().from(jobs).where(eq(jobs.status, "running"));
      const changed: Job[] = [];
      for (const row of running) {
        const set: Partial<JobRow> | null = reclaimedFields(row, t, gone, iso(t));
        if (!set) continue;
        const [updated] = await tx
          .update(jobs)
          .set(set)
          .where(and(eq(jobs.id, row.id), eq(jobs.status, "running")))
          .returning();
        if (updated) changed.push(jobFromRow(updated));
      }
      return changed;
    });

  // A lane's settings row, created with the defaults for what is not given.
  const setLane = async (lane: string, set: { paused: boolean } | { parallel: number }) => {
    checkLane(lane);
    if ("parallel" in set) checkParallel(set.parallel);
    await write(() =>
      db
        .insert(lanes)
        .values({ name: lane, ...set })
        .onConflictDoUpdate({ target: lanes.name, set }),
    );
  };

  const store: StudioJobStore = {
    add: (job) => write(() => insertJob(db, job)),

    async get(id) {
      const [row] = await db.select().from(jobs).where(eq(jobs.id, id)).limit(1);
      return row ? jobFromRow(row) : null;
    },

    async list() {
      // One batch is one read transaction: a job that ends meanwhile shows once, not twice or never.
      const [running, waiting, finished, laneRows, seen] = await db.batch([
        db
          .select(LISTED)
          .from(jobs)
          .where(eq(jobs.status, "running"))
          .orderBy(asc(jobs.started), asc(jobs.created), sql`rowid`),
        db
          .select(LISTED)
          .from(jobs)
          .where(eq(jobs.status, "queued"))
          .orderBy(asc(jobs.position), asc(jobs.created), sql`rowid`),
        db
          .select(LISTED)
          .from(jobs)
          .where(inArray(jobs.status, ENDED_STATUSES))
          .orderBy(desc(jobs.finished), sql`rowid DESC`)
          .limit(FINISHED_LISTED),
        db.select().from(lanes),
        db.selectDistinct({ lane: jobs.lane }).from(jobs),
      ]);
      return assembleListing({ running, waiting, finished, laneRows, seen });
    },

    async claim(owner, leaseMs, only) {
      if (only && only.length === 0) return null;
      checkLease(leaseMs);
      const laneFilter = only
        ? sql`AND j.lane IN (${sql.join(
            only.map((l) => sql`${l}`),
            sql`, `,
          )})`
        : sql``;
      return inTx(async (tx) => {
        const t = now();
        // Inside BEGIN IMMEDIATE: no other writer, in this process or another, runs between pick and mark.
        const [pick] = await tx.all<{ id: string }>(sql`
          SELECT j.id AS id FROM jobs j LEFT JOIN lanes l ON l.name = j.lane
          WHERE j.status = 'queued'
            AND coalesce(l.paused, 0) = 0
            AND (SELECT count(*) FROM jobs r WHERE r.status = 'running' AND r.lane = j.lane) < coalesce(l.parallel, 1)
            AND (j.after IS NULL OR NOT EXISTS (
              SELECT 1 FROM jobs a WHERE a.id = j.after AND a.status IN ('queued', 'running')))
            ${laneFilter}
          ORDER BY j.position, j.created, j.rowid
          LIMIT 1`);
        if (!pick) return null;
        const [row] = await tx
          .update(jobs)
          .set({
            status: "running",
            lease_owner: owner,
            lease_expires: t + leaseMs,
            started: iso(t),
            attempts: sql`${jobs.attempts} + 1`,
          })
          // The status guard keeps a claim single even on a server that would not honour IMMEDIATE.
          .where(and(eq(jobs.id, String(pick.id)), eq(jobs.status, "queued")))
          .returning();
        return row ? jobFromRow(row) : null;
      });
    },

    async heartbeat(id, owner, leaseMs) {
      checkLease(leaseMs);
      const rows = await write(() =>
        db
          .update(jobs)
          .set({ lease_expires: now() + leaseMs })
          .where(and(eq(jobs.id, id), eq(jobs.lease_owner, owner), eq(jobs.status, "running")))
          .returning({ cancel: jobs.cancel_requested }),
      );
      return { held: rows.length > 0, cancel: rows[0]?.cancel ?? false };
    },

    async update(id, owner, update) {
      const set = progressFields(update);
      const mine = and(eq(jobs.id, id), eq(jobs.lease_owner, owner), eq(jobs.status, "running"));
      // Without a log line nothing depends on the row as it stands: one guarded statement, no transaction.
      if (update.log === undefined) {
        if (Object.keys(set).length) await write(() => db.update(jobs).set(set).where(mine));
        return;
      }
      const line = update.log;
      await inTx(async (tx) => {
        const [row] = await tx.select({ log: jobs.log }).from(jobs).where(mine).limit(1);
        // A worker that lost its lease learns it on the next heartbeat; its late progress is dropped.
        if (!row) return;
        await tx
          .update(jobs)
          .set({ ...set, log: appendLog(row.log, line) })
          .where(eq(jobs.id, id));
      });
    },

    async finish(id, owner, status, error = null) {
      const set = finishedFields(status, error, iso(now()));
      const rows = await write(() =>
        db
          .update(jobs)
          .set(set)
          .where(and(eq(jobs.id, id), eq(jobs.lease_owner, owner), eq(jobs.status, "running")))
          .returning(),
      );
      if (rows[0]) ends.ended(id);
      await housekeep();
      return rows[0] ? jobFromRow(rows[0]) : null;
    },

    async cancel(id) {
      const changed = await inTx(async (tx) => {
        const job = await mustGet(tx, id);
        const set: Partial<JobRow> = canceledFields(job, iso(now()));
        const [row] = await tx.update(jobs).set(set).where(eq(jobs.id, id)).returning();
        return jobFromRow(row);
      });
      if (changed.status === "canceled") ends.ended(id);
      return changed;
    },

    async move(id, index) {
      checkIndex(index);
      await inTx(async (tx) => {
        const job = await mustGet(tx, id);
        checkMovable(job);
        const waiting = await tx
          .select({ id: jobs.id, position: jobs.position })
          .from(jobs)
          .where(and(eq(jobs.lane, job.lane), eq(jobs.status, "queued")))
          .orderBy(asc(jobs.position), asc(jobs.created), sql`rowid`);
        for (const w of movedPositions(waiting, id, job.position, index)) {
          await tx.update(jobs).set({ position: w.position }).where(eq(jobs.id, w.id));
        }
      });
    },

    retry: (id) => inTx(async (tx) => insertJob(tx, retriedJob(await mustGet(tx, id)))),

    pause: (lane, paused) => setLane(lane, { paused }),

    setParallel: (lane, parallel) => setLane(lane, { parallel }),

    async reclaimExpired(at, gone) {
      const changed = await reclaim(at, gone);
      for (const job of changed) if (hasEnded(job)) ends.ended(job.id);
      return changed;
    },

    waitFor: (id, signal, pollMs) => ends.waitFor(id, signal, (j) => store.get(j), pollMs),

    async emit(kind, data) {
      pendingEvents.push({ kind, data: data ?? null, created: now() });
      // Events emitted before the batch's turn to write comes go in with it: one commit for a burst, in order.
      eventsBatch ??= write(async () => {
        eventsBatch = null;
        const rows = pendingEvents.splice(0);
        for (let i = 0; i < rows.length; i += EVENTS_PER_INSERT) {
          await db.insert(events).values(rows.slice(i, i + EVENTS_PER_INSERT));
        }
      });
      const batch = eventsBatch;
      await batch;
      await housekeep();
    },

    async eventsSince(id, limit = 500) {
      const rows = await db
        .select()
        .from(events)
        .where(gt(events.id, id))
        .orderBy(asc(events.id))
        .limit(Math.max(1, Math.floor(limit)));
      return rows.map((r) => ({ id: r.id, kind: r.kind, data: r.data ?? null }));
    },

    async paid() {
      const [row] = await db.select().from(meta).where(eq(meta.key, "paid_count")).limit(1);
      return { count: Number(row?.value ?? 0) || 0 };
    },

    async paidAdd(n = 1) {
      const rows = await write(() =>
        db
          .insert(meta)
          .values({ key: "paid_count", value: String(n) })
          .onConflictDoUpdate({
            target: meta.key,
            set: { value: sql`CAST(CAST(${meta.value} AS INTEGER) + ${n} AS TEXT)` },
          })
          .returning({ value: meta.value }),
      );
      return { count: Number(rows[0]?.value ?? 0) };
    },

    async paidReset() {
      await write(() =>
        db
          .insert(meta)
          .values({ key: "paid_count", value: "0" })
          .onConflictDoUpdate({ target: meta.key, set: { value: "0" } }),
      );
    },

    async advertise(input) {
      const ad = checkAd(input);
      const seen = now();
      await write(() =>
        db
          .insert(workers)
          .values({ ...ad, seen })
          .onConflictDoUpdate({ target: workers.owner, set: { ...ad, seen } }),
      );
    },

    async workers(maxAgeMs) {
      const rows = await db
        .select()
        .from(workers)
        .where(gte(workers.seen, now() - maxAge(maxAgeMs)));
      return liveAds(rows);
    },

    async retire(owner) {
      await write(() => db.delete(workers).where(eq(workers.owner, owner)));
    },

    async release(id, owner, why) {
      const released = await inTx(async (tx) => {
        const mine = and(eq(jobs.id, id), eq(jobs.lease_owner, owner), eq(jobs.status, "running"));
        const [row] = await tx.select().from(jobs).where(mine).limit(1);
        if (!row) return null;
        const [updated] = await tx
          .update(jobs)
          .set(releasedFields(row, why, iso(now())))
          .where(mine)
          .returning();
        return updated ? jobFromRow(updated) : null;
      });
      if (released && hasEnded(released)) ends.ended(id);
      return released;
    },

    async close() {
      // After the writes already queued, so a close right after a call does not cut it off.
      await write(async () => client.close());
    },
  };
  return store;
}

export interface JobStoreOpener {
  /** The settings' job store: opened on the first call, the same store after; a failed open is tried again. */
  open(): Promise<StudioJobStore>;
  /** Close the store if it is open; the next open() opens a fresh one. */
  close(): Promise<void>;
}

/** How a process reaches its job store; its services hold one of these. */
export function jobStoreOpener(services: Pick<Services, "home" | "env" | "now" | "locks">): JobStoreOpener {
  let current: Promise<StudioJobStore> | null = null;
  const open = (): Promise<StudioJobStore> => {
    if (current) return current;
    const opening = createJobStore(jobDatabaseUrl(services), {
      now: () => services.now().getTime(),
      authToken: services.env.STUDIO_DB_AUTH_TOKEN?.trim() || undefined,
      locks: services.locks,
    }).then((store) => {
      const close = store.close;
      store.close = async () => {
        if (current === opening) current = null;
        await close();
      };
      return store;
    });
    current = opening;
    opening.catch(() => {
      if (current === opening) current = null;
    });
    return opening;
  };
  return {
    open,
    async close() {
      const store = await current?.catch(() => null);
      await store?.close();
    },
  };
}

// Listings read the payload as the text stored.
const { payload: _payload, ...LISTED_COLUMNS } = getTableColumns(jobs);
const LISTED = { ...LISTED_COLUMNS, payload_text: sql<string | null>`${jobs.payload}` };

/** The absolute path of a `file:` URL, or null for any other URL. */
function filePath(url: string): string | null {
  if (!/^file:/i.test(url)) return null;
  let rest = url.slice(5).replace(/[?#].*$/, "");
  if (rest.startsWith("//")) rest = rest.replace(/^\/\/[^/]*/, "");
  const decoded = decodeURIComponent(rest);
  // `file:///C:/x` names a Windows drive path.
  return path.resolve(/^\/[A-Za-z]:/.test(decoded) ? decoded.slice(1) : decoded);
}
