// Our own migration runner (no drizzle-kit): ordered SQL migrations applied at open, each recorded in __migrations.
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

/**
 * Apply every migration the database lacks, in order, in one write transaction (BEGIN IMMEDIATE), and answer the
 * ids applied now. Two processes opening the same new database at once: the second waits for the first's lock,
 * then re-reads the ledger inside its own transaction and finds nothing left to do.
 */
export async function migrate(
  client: Client,
  migrations: readonly Migration[] = MIGRATIONS,
  now: () => number = Date.now,
): Promise<number[]> {
  checkOrder(migrations);
  // A read first, so an up-to-date database never takes the write lock at open.
  const known = await appliedIds(client).catch(() => null);
  if (known && migrations.every((m) => known.has(m.id))) {
    checkNotNewer(known, migrations);
    return [];
  }

  const tx = await client.transaction("write");
  try {
    await tx.execute(CREATE_LEDGER);
    const rows = (await tx.execute("SELECT id FROM __migrations")).rows;
    const done = new Set(rows.map((r) => Number(r.id)));
    checkNotNewer(done, migrations);
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      for (const [i, statement] of m.statements.entries()) {
        try {
          await tx.execute(statement);
        } catch (err) {
          throw new Error(
            `job database migration ${m.id} (${m.name}) failed at statement ${i + 1}: ${errorMessage(err)}`,
          );
        }
      }
      await tx.execute({
        sql: "INSERT INTO __migrations (id, name, applied) VALUES (?, ?, ?)",
        args: [m.id, m.name, new Date(now()).toISOString()],
      });
      applied.push(m.id);
    }
    if (applied.length) {
      await tx.execute({
        sql: "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        args: [String(migrations[migrations.length - 1].id)],
      });
    }
    await tx.commit();
    return applied;
  } catch (err) {
    await tx.rollback().catch(() => {});
    throw err;
  } finally {
    tx.close();
  }
}

async function appliedIds(client: Client): Promise<Set<number>> {
  const rows = (await client.execute("SELECT id FROM __migrations")).rows;
  return new Set(rows.map((r) => Number(r.id)));
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
