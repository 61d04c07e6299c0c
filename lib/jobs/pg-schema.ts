// The job database's tables on PostgreSQL for drizzle, column for column those of the embedded store;
// lib/jobs/pg-migrate.ts holds the SQL that creates them (keep both in step).
import {
  bigint,
  bigserial,
  boolean,
  doublePrecision,
  index,
  integer,
  json,
  pgTable,
  text,
} from "drizzle-orm/pg-core";
import type { JobInfo, JobKind, JobStatus } from "./types.ts";

export const jobs = pgTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    kind: text("kind").$type<JobKind>().notNull(),
    lane: text("lane").notNull(),
    title: text("title").notNull(),
    after: text("after"),
    // json, not jsonb: a payload's key order (a workflow graph's nodes) comes back as written.
    info: json("info").$type<JobInfo>().notNull(),
    payload: json("payload").$type<unknown>(),
    status: text("status").$type<JobStatus>().notNull(),
    progress: doublePrecision("progress").notNull().default(0),
    step: text("step"),
    steps: integer("steps"),
    created: text("created").notNull(),
    started: text("started"),
    finished: text("finished"),
    error: text("error"),
    log: json("log").$type<string[]>().notNull(),
    lease_owner: text("lease_owner"),
    lease_expires: bigint("lease_expires", { mode: "number" }),
    backend_prompt_id: text("backend_prompt_id"),
    cancel_requested: boolean("cancel_requested").notNull().default(false),
    attempts: integer("attempts").notNull().default(0),
    position: integer("position").notNull().default(0),
    /** Insertion order, the last tie-break (SQLite's rowid on the embedded store). */
    seq: bigserial("seq", { mode: "number" }).notNull(),
  },
  (t) => [
    index("jobs_status_lane_position").on(t.status, t.lane, t.position),
    index("jobs_created").on(t.created),
  ],
);

export const lanes = pgTable("lanes", {
  name: text("name").primaryKey(),
  paused: boolean("paused").notNull().default(false),
  parallel: integer("parallel").notNull().default(1),
});

export const events = pgTable(
  "events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    kind: text("kind").notNull(),
    data: json("data").$type<unknown>(),
    /** Epoch milliseconds, so pruning is one comparison. */
    created: bigint("created", { mode: "number" }).notNull(),
  },
  (t) => [index("events_created").on(t.created)],
);

export const meta = pgTable("meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

/** Each worker's advert: what it runs and which lanes' engines it reaches, refreshed while it lives. */
export const workers = pgTable(
  "workers",
  {
    owner: text("owner").primaryKey(),
    host: text("host").notNull(),
    pid: integer("pid").notNull(),
    kinds: json("kinds").$type<string[]>().notNull(),
    lanes: json("lanes").$type<string[]>().notNull(),
    down: json("down").$type<Record<string, string>>().notNull(),
    /** Epoch milliseconds of the last advert. */
    seen: bigint("seen", { mode: "number" }).notNull(),
  },
  (t) => [index("workers_seen").on(t.seen)],
);

export type PgJobRow = typeof jobs.$inferSelect;
