// Ordered SQL migrations of the PostgreSQL job store, applied at open and recorded in __migrations, as the embedded
// store's are; an advisory lock makes several processes opening a new database at once take turns.
import type { Pool } from "pg";
import { errorMessage } from "../store/json-guards.ts";
import { checkNotNewer, checkOrder, type Migration } from "./migrate.ts";

export const PG_MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    name: "jobs, lanes, events, meta, workers",
    statements: [
      `CREATE TABLE jobs (
        id TEXT PRIMARY KEY NOT NULL,
        kind TEXT NOT NULL,
        lane TEXT NOT NULL,
        title TEXT NOT NULL,
        after TEXT,
        info JSON NOT NULL,
        payload JSON,
        status TEXT NOT NULL,
        progress DOUBLE PRECISION NOT NULL DEFAULT 0,
        step TEXT,
        steps INTEGER,
        created TEXT NOT NULL,
        started TEXT,
        finished TEXT,
        error TEXT,
        log JSON NOT NULL,
        lease_owner TEXT,
        lease_expires BIGINT,
        backend_prompt_id TEXT,
        cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
        attempts INTEGER NOT NULL DEFAULT 0,
        position INTEGER NOT NULL DEFAULT 0,
        seq BIGSERIAL NOT NULL
      )`,
      "CREATE INDEX jobs_status_lane_position ON jobs (status, lane, position)",
      "CREATE INDEX jobs_created ON jobs (created)",
      `CREATE TABLE lanes (
        name TEXT PRIMARY KEY NOT NULL,
        paused BOOLEAN NOT NULL DEFAULT FALSE,
        parallel INTEGER NOT NULL DEFAULT 1
      )`,
      `CREATE TABLE events (
        id BIGSERIAL PRIMARY KEY,
        kind TEXT NOT NULL,
        data JSON,
        created BIGINT NOT NULL
      )`,
      "CREATE INDEX events_created ON events (created)",
      "CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)",
      "INSERT INTO meta (key, value) VALUES ('paid_count', '0')",
      `CREATE TABLE workers (
        owner TEXT PRIMARY KEY NOT NULL,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        kinds JSON NOT NULL,
        lanes JSON NOT NULL,
        down JSON NOT NULL,
        seen BIGINT NOT NULL
      )`,
      "CREATE INDEX workers_seen ON workers (seen)",
      // Notices come from the tables themselves, so every write by any process announces itself in its own commit.
      `CREATE FUNCTION studio_job_notice() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('studio_jobs',
          CASE WHEN NEW.status IN ('succeeded', 'failed', 'canceled') THEN NEW.id ELSE '' END);
        RETURN NULL;
      END $$`,
      "CREATE TRIGGER jobs_added AFTER INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION studio_job_notice()",
      // Not on a claim (to running): that makes nothing runnable, and every idle worker would look again.
      `CREATE TRIGGER jobs_status AFTER UPDATE OF status ON jobs FOR EACH ROW
        WHEN (OLD.status IS DISTINCT FROM NEW.status AND NEW.status <> 'running')
        EXECUTE FUNCTION studio_job_notice()`,
      `CREATE FUNCTION studio_lane_notice() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('studio_jobs', '');
        RETURN NULL;
      END $$`,
      "CREATE TRIGGER lanes_changed AFTER INSERT OR UPDATE ON lanes FOR EACH STATEMENT EXECUTE FUNCTION studio_lane_notice()",
      `CREATE FUNCTION studio_event_notice() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('studio_events', '');
        RETURN NULL;
      END $$`,
      "CREATE TRIGGER events_added AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION studio_event_notice()",
    ],
  },
];

const CREATE_LEDGER =
  "CREATE TABLE IF NOT EXISTS __migrations (id INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL, applied TEXT NOT NULL)";
/** One lock key for every process migrating this database. */
const MIGRATE_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended('episode studio: migrate', 0))";

/** Apply every migration the database lacks, in order, in one transaction; answers the ids applied now. */
export async function migratePg(
  pool: Pool,
  migrations: readonly Migration[] = PG_MIGRATIONS,
  now: () => number = Date.now,
): Promise<number[]> {
  checkOrder(migrations);
  // A read first, so an up-to-date database is opened without taking the lock.
  const known = await appliedIds(pool).catch(() => null);
  if (known && migrations.every((m) => known.has(m.id))) {
    checkNotNewer(known, migrations);
    return [];
  }
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query(MIGRATE_LOCK);
    await client.query(CREATE_LEDGER);
    const { rows } = await client.query<{ id: number }>("SELECT id FROM __migrations");
    const done = new Set(rows.map((r) => Number(r.id)));
    checkNotNewer(done, migrations);
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      for (const [i, statement] of m.statements.entries()) {
        try {
          await client.query(statement);
        } catch (err) {
          throw new Error(
            `job database migration ${m.id} (${m.name}) failed at statement ${i + 1}: ${errorMessage(err)}`,
          );
        }
      }
      await client.query("INSERT INTO __migrations (id, name, applied) VALUES ($1, $2, $3)", [
        m.id,
        m.name,
        new Date(now()).toISOString(),
      ]);
      applied.push(m.id);
    }
    if (applied.length) {
      await client.query(
        "INSERT INTO meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [String(migrations[migrations.length - 1].id)],
      );
    }
    await client.query("COMMIT");
    return applied;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

async function appliedIds(pool: Pool): Promise<Set<number>> {
  const { rows } = await pool.query<{ id: number }>("SELECT id FROM __migrations");
  return new Set(rows.map((r) => Number(r.id)));
}
