// The GET /studio/jobs answer as the command line reads it (from a server or this process): only the fields it
// shows, checked once where the answer comes in.
import { z } from "zod";

export const jobLine = z.looseObject({
  id: z.string(),
  kind: z.string(),
  lane: z.string(),
  title: z.string(),
  status: z.enum(["queued", "running", "succeeded", "failed", "canceled"]),
  progress: z.number(),
  step: z.string().nullable(),
  error: z.string().nullable(),
  created: z.string(),
});

export type JobLine = z.infer<typeof jobLine>;

export const jobsAnswer = z.looseObject({
  jobs: z.array(jobLine),
  lanes: z.record(z.string(), z.looseObject({ paused: z.boolean(), parallel: z.number() })),
});

export type JobsAnswer = z.infer<typeof jobsAnswer>;

export const ENDED: readonly string[] = ["succeeded", "failed", "canceled"];
