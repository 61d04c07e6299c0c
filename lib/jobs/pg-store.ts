// The job store over PostgreSQL, for API and worker processes on several machines: the same queue, leases, lanes,
// outbox and paid counter as the embedded store, with claims that skip locked rows and notices pushed by the
// database (LISTEN/NOTIFY) instead of polling.
import { and, asc, eq, getTableColumns, gt, gte, lt, sql } from "drizzle-orm";
import { drizzle, type NodePgQueryResultHKT } from "drizzle-orm/node-postgres";
import type { PgDatabase } from "drizzle-orm/pg-core";
import pg from "pg";
import { notFound } from "../errors.ts";
import { errorMessage } from "../store/json-guards.ts";
import { isPostgresUrl, shownDatabaseUrl } from "./database-url.ts";
import { assembleListing, FINISHED_LISTED } from "./listing.ts";
import { migratePg } from "./pg-migrate.ts";
import { listenNotices } from "./pg-notices.ts";
import { events, jobs, lanes, meta, type PgJobRow, workers } from "./pg-schema.ts";
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
import type { Job, JobStore, NewJob, StoreChannel } from "./types.ts";
import { EVENTS_KEPT_MS, EVENTS_PER_INSERT, FINISHED_KEPT, throttledPrune } from "./upkeep.ts";
import { hasEnded, JobEnds } from "./wait.ts";
import { checkAd, liveAds, maxAge } from "./worker-ad.ts";

export interface PgJobStoreOptions {
  /** Epoch milliseconds; tests move time with it. */
  now?: () => number;
  /** Connections this process keeps to the server for queries (the listener has its own). */
  poolSize?: number;
}

type Exec = PgDatabase<NodePgQueryResultHKT>;

const CONNECT_TIMEOUT_MS = 10_000;
/** Looks for a runnable job when another claimer took the one seen (each look sees the other's commit). */
const CLAIM_TRIES = 8;

function checkUrl(url: string): void {
  let ok = isPostgresUrl(url);
  if (ok) {
    try {
      const u = new URL(url);
      ok = u.hostname !== "" && u.pathname.length > 1;
    } catch {
      ok = false;
    }
  }
  if (!ok) {
    throw new Error(
      `job database URL ${shownDatabaseUrl(url)} is not a PostgreSQL URL: expected postgres://user:password@host:port/database`,
    );
  }
}

// Every claim (and move) in one lane takes turns on this lock, so a lane's running count is exact when claimers
// race. Notices need no statement of their own: the tables' triggers send them in the writer's commit.
const laneLock = (lane: string) =>
  sql`SELECT pg_advisory_xact_lock(hashtextextended(${`episode studio lane: ${lane}`}, 0))`;
// Outbox rows are numbered and committed one writer at a time, so a reader that saw id n never later finds a
// smaller id committed (it reads `id > n`).
const EVENTS_LOCK = sql`SELECT pg_advisory_xact_lock(hashtextextended('episode studio events', 0))`;

// A job may start: queued, lane not paused and below its parallelism, its `after` ended.
const RUNNABLE = sql`j.status = 'queued'
  AND coalesce(l.paused, false) = false
  AND (SELECT count(*) FROM jobs r WHERE r.status = 'running' AND r.lane = j.lane) < coalesce(l.parallel, 1)
  AND (j.after IS NULL OR NOT EXISTS (
    SELECT 1 FROM jobs a WHERE a.id = j.after AND a.status IN ('queued', 'running')))`;

export async function createPgJobStore(url: string, opts: PgJobStoreOptions = {}): Promise<JobStore> {
  checkUrl(url);
  const now = opts.now ?? Date.now;
  const config = { connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS };
  const pool = new pg.Pool({ ...config, max: opts.poolSize ?? 10 });
  // A pooled connection the server drops while idle is an error event; the pool replaces it on the next query.
  pool.on("error", () => {});
  let notices: Awaited<ReturnType<typeof listenNotices>>;
  try {
    await migratePg(pool, undefined, now);
    notices = await listenNotices(config);
  } catch (err) {
    await pool.end().catch(() => {});
    throw new Error(`cannot open the job database ${shownDatabaseUrl(url)}: ${errorMessage(err)}`);
  }
  const db: Exec = drizzle({ client: pool });
  const iso = (ms: number) => new Date(ms).toISOString();
  const ends = new JobEnds();
  const listeners: Record<StoreChannel, Set<() => void>> = { events: new Set(), jobs: new Set() };
  notices.on((channel, payload) => {
    // A job's id says that job ended; null means notices were lost while reconnecting.
    if (channel === "jobs") {
      if (payload === null) ends.wakeAll();
      else if (payload) ends.ended(payload);
    }
    for (const fn of [...listeners[channel]]) fn();
  });
  const pendingEvents: (typeof events.$inferInsert)[] = [];
  let eventsBatch: Promise<void> | null = null;
  let eventsChain: Promise<void> = Promise.resolve();
  let closing: Promise<void> | null = null;

  async function insertJob(tx: Exec, job: NewJob): Promise<Job> {
    // Two adders in one lane may draw the same place; created time and insertion order then keep the order total.
    const [row] = await tx
      .insert(jobs)
      .values(newJobValues(job, iso(now())))
      .returning();
    return toJob(row);
  }

  async function mustGet(tx: Exec, id: string): Promise<Job> {
    const [row] = await tx.select().from(jobs).where(eq(jobs.id, id)).for("update");
    if (!row) throw notFound(`job ${id} not found`);
    return toJob(row);
  }

  // Old events and old finished jobs go, so the database stays small.
  const housekeep = throttledPrune(now, async (t) => {
    await db.delete(events).where(lt(events.created, t - EVENTS_KEPT_MS));
    await db.execute(sql`DELETE FROM jobs WHERE status IN ('succeeded', 'failed', 'canceled') AND id NOT IN (
      SELECT id FROM jobs WHERE status IN ('succeeded', 'failed', 'canceled')
      ORDER BY finished DESC, seq DESC LIMIT ${FINISHED_KEPT})`);
  });

  /** One claim attempt in the lane seen first; null when another claimer got there first. */
  const claimIn = (lane: string, owner: string, leaseMs: number) =>
    db.transaction(async (tx) => {
      await tx.execute(laneLock(lane));
      const t = now();
      // After the lock: this statement sees every claim in the lane committed before it.
      const [row] = await tx
        .update(jobs)
        .set({
          status: "running",
          lease_owner: owner,
          lease_expires: t + leaseMs,
          started: iso(t),
          attempts: sql`${jobs.attempts} + 1`,
        })
        .where(
          sql`${jobs.id} = (
            SELECT j.id FROM jobs j LEFT JOIN lanes l ON l.name = j.lane
            WHERE j.lane = ${lane} AND ${RUNNABLE}
            ORDER BY j.position, j.created, j.seq
            LIMIT 1
            FOR UPDATE OF j SKIP LOCKED)`,
        )
        .returning();
      return row ? toJob(row) : null;
    });

  // A lane's settings row, created with the defaults for what is not given.
  const setLane = async (lane: string, set: { paused: boolean } | { parallel: number }) => {
    checkLane(lane);
    if ("parallel" in set) checkParallel(set.parallel);
    await db
      .insert(lanes)
      .values({ name: lane, ...set })
      .onConflictDoUpdate({ target: lanes.name, set });
  };

  const store: JobStore = {
    add: (job) => insertJob(db, job),

    async get(id) {
      const [row] = await db.select().from(jobs).where(eq(jobs.id, id)).limit(1);
      return row ? toJob(row) : null;
    },

    list: () =>
      // One snapshot: a job that ends meanwhile shows once, not twice or never.
      db.transaction(
        async (tx) => {
          const running = await tx
            .select(LISTED)
            .from(jobs)
            .where(eq(jobs.status, "running"))
            .orderBy(asc(jobs.started), asc(jobs.created), asc(jobs.seq));
          const waiting = await tx
            .select(LISTED)
            .from(jobs)
            .where(eq(jobs.status, "queued"))
            .orderBy(asc(jobs.position), asc(jobs.created), asc(jobs.seq));
          const finished = await tx
            .select(LISTED)
            .from(jobs)
            .where(sql`${jobs.status} IN ('succeeded', 'failed', 'canceled')`)
            .orderBy(sql`${jobs.finished} DESC, ${jobs.seq} DESC`)
            .limit(FINISHED_LISTED);
          const laneRows = await tx.select().from(lanes);
          const seen = await tx.selectDistinct({ lane: jobs.lane }).from(jobs);
          return assembleListing({ running, waiting, finished, laneRows, seen });
        },
        { isolationLevel: "repeatable read", accessMode: "read only" },
      ),

    async claim(owner, leaseMs, only) {
      if (only && only.length === 0) return null;
      checkLease(leaseMs);
      const laneFilter = only
        ? sql`AND j.lane IN (${sql.join(
            only.map((l) => sql`${l}`),
            sql`, `,
          )})`
        : sql``;
      for (let i = 0; i < CLAIM_TRIES; i++) {
        // Which lane to claim in: a look without locks, confirmed under the lane's lock.
        const seen = await db.execute<{ lane: string }>(sql`
          SELECT j.lane FROM jobs j LEFT JOIN lanes l ON l.name = j.lane
          WHERE ${RUNNABLE} ${laneFilter}
          ORDER BY j.position, j.created, j.seq
          LIMIT 1`);
        const lane = seen.rows[0]?.lane;
        if (lane === undefined) return null;
        const got = await claimIn(lane, owner, leaseMs);
        if (got) return got;
      }
      return null;
    },

    async heartbeat(id, owner, leaseMs) {
      checkLease(leaseMs);
      const rows = await db
        .update(jobs)
        .set({ lease_expires: now() + leaseMs })
        .where(and(eq(jobs.id, id), eq(jobs.lease_owner, owner), eq(jobs.status, "running")))
        .returning({ cancel: jobs.cancel_requested });
      return { held: rows.length > 0, cancel: rows[0]?.cancel ?? false };
    },

    async update(id, owner, update) {
      const set = progressFields(update);
      const mine = and(eq(jobs.id, id), eq(jobs.lease_owner, owner), eq(jobs.status, "running"));
      if (update.log === undefined) {
        if (Object.keys(set).length) await db.update(jobs).set(set).where(mine);
        return;
      }
      const line = update.log;
      await db.transaction(async (tx) => {
        const [row] = await tx.select({ log: jobs.log }).from(jobs).where(mine).for("update");
        // A worker that lost its lease learns it on the next heartbeat; its late progress is dropped.
        if (!row) return;
        await tx
          .update(jobs)
          .set({ ...set, log: appendLog(row.log, line) })
          .where(eq(jobs.id, id));
      });
    },

    async finish(id, owner, status, error = null) {
      const [row] = await db
        .update(jobs)
        .set(finishedFields(status, error, iso(now())))
        .where(and(eq(jobs.id, id), eq(jobs.lease_owner, owner), eq(jobs.status, "running")))
        .returning();
      if (row) ends.ended(id);
      await housekeep();
      return row ? toJob(row) : null;
    },

    async cancel(id) {
      const changed = await db.transaction(async (tx) => {
        const job = await mustGet(tx, id);
        const [row] = await tx
          .update(jobs)
          .set(canceledFields(job, iso(now())))
          .where(eq(jobs.id, id))
          .returning();
        return toJob(row);
      });
      if (changed.status === "canceled") ends.ended(id);
      return changed;
    },

    async move(id, index) {
      checkIndex(index);
      await db.transaction(async (tx) => {
        const [found] = await tx.select({ lane: jobs.lane }).from(jobs).where(eq(jobs.id, id));
        if (!found) throw notFound(`job ${id} not found`);
        // The lane's lock first (as claims take it), then the row.
        await tx.execute(laneLock(found.lane));
        const job = await mustGet(tx, id);
        checkMovable(job);
        const waiting = await tx
          .select({ id: jobs.id, position: jobs.position })
          .from(jobs)
          .where(and(eq(jobs.lane, job.lane), eq(jobs.status, "queued")))
          .orderBy(asc(jobs.position), asc(jobs.created), asc(jobs.seq));
        for (const w of movedPositions(waiting, id, job.position, index)) {
          await tx.update(jobs).set({ position: w.position }).where(eq(jobs.id, w.id));
        }
      });
    },

    retry: (id) =>
      db.transaction(async (tx) => {
        const [row] = await tx.select().from(jobs).where(eq(jobs.id, id));
        if (!row) throw notFound(`job ${id} not found`);
        return insertJob(tx, retriedJob(toJob(row)));
      }),

    pause: (lane, paused) => setLane(lane, { paused }),

    setParallel: (lane, parallel) => setLane(lane, { parallel }),

    async reclaimExpired(at, gone) {
      const t = at ?? now();
      const changed = await db.transaction(async (tx) => {
        // Rows another process is changing right now are left for the next look.
        const running = await tx
          .select()
          .from(jobs)
          .where(eq(jobs.status, "running"))
          .for("update", { skipLocked: true });
        const out: Job[] = [];
        for (const row of running) {
          const set = reclaimedFields(row, t, gone, iso(t));
          if (!set) continue;
          const [updated] = await tx.update(jobs).set(set).where(eq(jobs.id, row.id)).returning();
          out.push(toJob(updated));
        }
        return out;
      });
      for (const job of changed) if (hasEnded(job)) ends.ended(job.id);
      return changed;
    },

    waitFor: (id, signal, pollMs) => ends.waitFor(id, signal, (j) => store.get(j), pollMs),

    async emit(kind, data) {
      pendingEvents.push({ kind, data: data ?? null, created: now() });
      // Events emitted in one turn go in as one transaction; batches commit in the order they were made.
      if (!eventsBatch) {
        const batch = eventsChain.then(async () => {
          eventsBatch = null;
          const rows = pendingEvents.splice(0);
          await db.transaction(async (tx) => {
            await tx.execute(EVENTS_LOCK);
            for (let i = 0; i < rows.length; i += EVENTS_PER_INSERT) {
              await tx.insert(events).values(rows.slice(i, i + EVENTS_PER_INSERT));
            }
          });
        });
        eventsBatch = batch;
        eventsChain = batch.catch(() => {});
      }
      await eventsBatch;
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
      const rows = await db
        .insert(meta)
        .values({ key: "paid_count", value: String(n) })
        .onConflictDoUpdate({
          target: meta.key,
          set: { value: sql`CAST(CAST(${meta.value} AS BIGINT) + ${n} AS TEXT)` },
        })
        .returning({ value: meta.value });
      return { count: Number(rows[0]?.value ?? 0) };
    },

    async paidReset() {
      await db
        .insert(meta)
        .values({ key: "paid_count", value: "0" })
        .onConflictDoUpdate({ target: meta.key, set: { value: "0" } });
    },

    async advertise(input) {
      const ad = checkAd(input);
      const seen = now();
      await db
        .insert(workers)
        .values({ ...ad, seen })
        .onConflictDoUpdate({ target: workers.owner, set: { ...ad, seen } });
    },

    async workers(maxAgeMs) {
      const rows = await db
        .select()
        .from(workers)
        .where(gte(workers.seen, now() - maxAge(maxAgeMs)));
      return liveAds(rows);
    },

    async retire(owner) {
      await db.delete(workers).where(eq(workers.owner, owner));
    },

    async release(id, owner, why) {
      const released = await db.transaction(async (tx) => {
        const mine = and(eq(jobs.id, id), eq(jobs.lease_owner, owner), eq(jobs.status, "running"));
        const [row] = await tx.select().from(jobs).where(mine).for("update");
        if (!row) return null;
        const [updated] = await tx
          .update(jobs)
          .set(releasedFields(row, why, iso(now())))
          .where(mine)
          .returning();
        return toJob(updated);
      });
      if (released && hasEnded(released)) ends.ended(id);
      return released;
    },

    listen(channel, fn) {
      listeners[channel].add(fn);
      return () => {
        listeners[channel].delete(fn);
      };
    },

    close() {
      // Once: the events already handed over are written first, then both connections end.
      closing ??= (async () => {
        await eventsChain;
        await notices.close();
        await pool.end();
      })();
      return closing;
    },
  };
  return store;
}

// Listings read the payload as the text stored.
const { payload: _payload, seq: _listedSeq, ...LISTED_COLUMNS } = getTableColumns(jobs);
const LISTED = { ...LISTED_COLUMNS, payload_text: sql<string | null>`${jobs.payload}::text` };

/** A row as a job: `seq` only orders rows, it is no part of a job. */
const toJob = ({ seq: _seq, ...row }: PgJobRow): Job => jobFromRow(row);
