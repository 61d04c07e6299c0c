// The job database's tables for drizzle; lib/jobs/migrate.ts holds the SQL that creates them (keep both in step).
import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { JobInfo, JobKind, JobStatus } from "./types.ts";

export const jobs = sqliteTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    kind: text("kind").$type<JobKind>().notNull(),
    lane: text("lane").notNull(),
    title: text("title").notNull(),
    after: text("after"),
    info: text("info", { mode: "json" }).$type<JobInfo>().notNull(),
    payload: text("payload", { mode: "json" }).$type<unknown>(),
    status: text("status").$type<JobStatus>().notNull(),
    progress: real("progress").notNull().default(0),
    step: text("step"),
    steps: integer("steps"),
    created: text("created").notNull(),
    started: text("started"),
    finished: text("finished"),
    error: text("error"),
    log: text("log", { mode: "json" }).$type<string[]>().notNull(),
    lease_owner: text("lease_owner"),
    lease_expires: integer("lease_expires"),
    backend_prompt_id: text("backend_prompt_id"),
    cancel_requested: integer("cancel_requested", { mode: "boolean" }).notNull().default(false),
    attempts: integer("attempts").notNull().default(0),
    position: integer("position").notNull().default(0),
  },
  (t) => [
    index("jobs_status_lane_position").on(t.status, t.lane, t.position),
    index("jobs_created").on(t.created),
  ],
);

export const lanes = sqliteTable("lanes", {
  name: text("name").primaryKey(),
  paused: integer("paused", { mode: "boolean" }).notNull().default(false),
  parallel: integer("parallel").notNull().default(1),
});

export const events = sqliteTable(
  "events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    kind: text("kind").notNull(),
    data: text("data", { mode: "json" }).$type<unknown>(),
    /** Epoch milliseconds, so pruning is one comparison. */
    created: integer("created").notNull(),
  },
  (t) => [index("events_created").on(t.created)],
);

export const meta = sqliteTable("meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

/** Each worker's advert: what it runs and which lanes' engines it reaches, refreshed while it lives. */
export const workers = sqliteTable(
  "workers",
  {
    owner: text("owner").primaryKey(),
    host: text("host").notNull(),
    pid: integer("pid").notNull(),
    kinds: text("kinds", { mode: "json" }).$type<string[]>().notNull(),
    lanes: text("lanes", { mode: "json" }).$type<string[]>().notNull(),
    down: text("down", { mode: "json" }).$type<Record<string, string>>().notNull(),
    /** Epoch milliseconds of the last advert. */
    seen: integer("seen").notNull(),
  },
  (t) => [index("workers_seen").on(t.seen)],
);

export type JobRow = typeof jobs.$inferSelect;
export type JobInsert = typeof jobs.$inferInsert;
