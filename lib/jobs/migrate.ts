// Our own migration runner (no drizzle-kit) for both job stores: ordered SQL migrations applied at open, each recorded
// in __migrations; and the embedded store's migrations.
import type { Client } from "@libsql/client";
import { errorMessage } from "../store/json-guards.ts";

export interface Migration {
  /** Strictly increasing; never renumber or edit one that has shipped, add a new one instead. */
  id: number;
  name: string;
  statements: readonly string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    name: "jobs, lanes, events, meta",
    statements: [
      `CREATE TABLE jobs (
        id TEXT PRIMARY KEY NOT NULL,
        kind TEXT NOT NULL,
        lane TEXT NOT NULL,
        title TEXT NOT NULL,
        after TEXT,
        info TEXT NOT NULL,
        payload TEXT,
        status TEXT NOT NULL,
        progress REAL NOT NULL DEFAULT 0,
        step TEXT,
        steps INTEGER,
        created TEXT NOT NULL,
        started TEXT,
        finished TEXT,
        error TEXT,
        log TEXT NOT NULL,
        lease_owner TEXT,
        lease_expires INTEGER,
        backend_prompt_id TEXT,
        cancel_requested INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        position INTEGER NOT NULL DEFAULT 0
      )`,
      "CREATE INDEX jobs_status_lane_position ON jobs (status, lane, position)",
      "CREATE INDEX jobs_created ON jobs (created)",
      `CREATE TABLE lanes (
        name TEXT PRIMARY KEY NOT NULL,
        paused INTEGER NOT NULL DEFAULT 0,
        parallel INTEGER NOT NULL DEFAULT 1
      )`,
      `CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        data TEXT,
        created INTEGER NOT NULL
      )`,
      "CREATE INDEX events_created ON events (created)",
      "CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)",
      "INSERT INTO meta (key, value) VALUES ('paid_count', '0')",
    ],
  },
  {
    id: 2,
    name: "workers",
    statements: [
      `CREATE TABLE workers (
        owner TEXT PRIMARY KEY NOT NULL,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        kinds TEXT NOT NULL,
        lanes TEXT NOT NULL,
        down TEXT NOT NULL,
        seen INTEGER NOT NULL
      )`,
      "CREATE INDEX workers_seen ON workers (seen)",
    ],
  },
];

const CREATE_LEDGER =
  "CREATE TABLE IF NOT EXISTS __migrations (id INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL, applied TEXT NOT NULL)";

/** Runs one statement and answers its rows; `?` marks each bound value of `args`. */
export type RunStatement = (sql: string, args?: (string | number)[]) => Promise<Record<string, unknown>[]>;

/** One database as the migration runner reaches it, whatever the kind of database. */
export interface MigrationDb {
  /** A read outside any transaction. */
  read: RunStatement;
  /**
   * `fn` inside a write transaction that one migrating process holds at a time: committed when `fn` resolves, rolled
   * back when it throws.
   */
  transaction<T>(fn: (run: RunStatement) => Promise<T>): Promise<T>;
}

/**
 * Apply every migration the database lacks, in order, in one write transaction, and answer the ids applied now.
 * Two processes opening the same new database at once: the second waits for the first's transaction, then re-reads
 * the ledger inside its own and finds nothing left to do.
 */
export async function runMigrations(
  db: MigrationDb,
  migrations: readonly Migration[],
  now: () => number,
): Promise<number[]> {
  checkOrder(migrations);
  // A read first, so an up-to-date database is opened without taking the write lock.
  const known = await appliedIds(db.read).catch(() => null);
  if (known && migrations.every((m) => known.has(m.id))) {
    checkNotNewer(known, migrations);
    return [];
  }
  return db.transaction(async (run) => {
    await run(CREATE_LEDGER);
    const done = await appliedIds(run);
    checkNotNewer(done, migrations);
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      for (const [i, statement] of m.statements.entries()) {
        try {
          await run(statement);
        } catch (err) {
          throw new Error(
            `job database migration ${m.id} (${m.name}) failed at statement ${i + 1}: ${errorMessage(err)}`,
          );
        }
      }
      await run("INSERT INTO __migrations (id, name, applied) VALUES (?, ?, ?)", [
        m.id,
        m.name,
        new Date(now()).toISOString(),
      ]);
      applied.push(m.id);
    }
    if (applied.length) {
      await run(
        "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [String(migrations[migrations.length - 1].id)],
      );
    }
    return applied;
  });
}

async function appliedIds(run: RunStatement): Promise<Set<number>> {
  const rows = await run("SELECT id FROM __migrations");
  return new Set(rows.map((r) => Number(r.id)));
}

/** The embedded store's migrations, applied with BEGIN IMMEDIATE (the database's own write lock). */
export function migrate(
  client: Client,
  migrations: readonly Migration[] = MIGRATIONS,
  now: () => number = Date.now,
): Promise<number[]> {
  const db: MigrationDb = {
    read: async (sql) => (await client.execute(sql)).rows,
    async transaction(fn) {
      const tx = await client.transaction("write");
      try {
        const out = await fn(async (sql, args) => (await tx.execute(args ? { sql, args } : sql)).rows);
        await tx.commit();
        return out;
      } catch (err) {
        await tx.rollback().catch(() => {});
        throw err;
      } finally {
        tx.close();
      }
    },
  };
  return runMigrations(db, migrations, now);
}

export function checkOrder(migrations: readonly Migration[]): void {
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i].id <= migrations[i - 1].id) {
      throw new Error(`job database migrations are out of order at id ${migrations[i].id}`);
    }
  }
}

/** A database written by a newer release has tables this one does not know how to keep consistent. */
export function checkNotNewer(done: Set<number>, migrations: readonly Migration[]): void {
  const latest = migrations.length ? migrations[migrations.length - 1].id : 0;
  const newer = [...done].filter((id) => id > latest);
  if (newer.length) {
    throw new Error(
      `the job database was migrated by a newer Episode Studio (schema ${Math.max(...newer)}; this one knows up to ${latest}): update the service or point STUDIO_DB_URL at another database`,
    );
  }
}
