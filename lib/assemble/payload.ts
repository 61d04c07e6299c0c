// What an assemble job carries from the route that queued it to the worker that runs it. Parsed when a worker
// claims the job.
import { z } from "zod";

export const assemblePayload = z.object({
  ep: z.string().min(1),
  pass: z.enum(["final", "proxy"]),
  partial: z.boolean(),
  /** The output size asked for, or null for the pass's own (an upscaled cut: its upscales' size). */
  size: z.object({ width: z.number().int().positive(), height: z.number().int().positive() }).nullable(),
  /** Play each take's fresh upscale (`<ep>_up.mp4`). Absent in jobs queued before upscaled cuts existed. */
  upscaled: z.boolean().default(false),
  /** Wrap the cut with the series intro and outro into `<ep>/publish/`. */
  publish: z.boolean().default(false),
});

export type AssemblePayload = z.infer<typeof assemblePayload>;
