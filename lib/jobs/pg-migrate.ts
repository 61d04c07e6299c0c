// Ordered SQL migrations of the PostgreSQL job store, applied at open and recorded in __migrations, as the embedded
// store's are; an advisory lock makes several processes opening a new database at once take turns.
import type { Pool } from "pg";
import { type Migration, type MigrationDb, runMigrations } from "./migrate.ts";

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
      // One function for every statement-level notice: the trigger names the channel.
      `CREATE FUNCTION studio_notice() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify(TG_ARGV[0], '');
        RETURN NULL;
      END $$`,
      "CREATE TRIGGER lanes_changed AFTER INSERT OR UPDATE ON lanes FOR EACH STATEMENT EXECUTE FUNCTION studio_notice('studio_jobs')",
      "CREATE TRIGGER events_added AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION studio_notice('studio_events')",
    ],
  },
];

/** One lock key for every process migrating this database. */
const MIGRATE_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended('episode studio: migrate', 0))";

/** Apply every migration the database lacks, in order, in one transaction; answers the ids applied now. */
export function migratePg(
  pool: Pool,
  migrations: readonly Migration[] = PG_MIGRATIONS,
  now: () => number = Date.now,
): Promise<number[]> {
  const db: MigrationDb = {
    read: async (sql) => (await pool.query(sql)).rows,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await client.query(MIGRATE_LOCK);
        const out = await fn(async (sql, args) => {
          if (!args) return (await client.query(sql)).rows;
          // PostgreSQL numbers its bound values: $1, $2, ...
          let n = 0;
          return (
            await client.query(
              sql.replace(/\?/g, () => `$${++n}`),
              args,
            )
          ).rows;
        });
        await client.query("COMMIT");
        return out;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
  };
  return runMigrations(db, migrations, now);
}
