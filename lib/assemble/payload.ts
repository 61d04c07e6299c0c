// What an assemble job carries from the route that queued it to the worker that runs it. Parsed when a worker
// claims the job.
import { z } from "zod";

export const assemblePayload = z.object({
  ep: z.string().min(1),
  pass: z.enum(["final", "proxy"]),
  partial: z.boolean(),
  /** The output size asked for, or null for the pass's own. */
  size: z.object({ width: z.number().int().positive(), height: z.number().int().positive() }).nullable(),
});

export type AssemblePayload = z.infer<typeof assemblePayload>;
