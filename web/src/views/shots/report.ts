// What a render answer says, as lines a person reads: how many takes were queued, each shot skipped or refused
// with the service's reason, and any warning about the build the takes come from.
import type { RenderAnswer } from "../../types.ts";

export interface RenderReport {
  queued: number;
  /** The queued takes by shot, `sh010 t03`. */
  takes: string[];
  problems: { shot: string; kind: "skipped" | "error"; text: string }[];
  warnings: string[];
}

/** A take as the page names it: `sh010 t03`. */
export const takeName = (shot: string, take: number) => `${shot} t${String(take).padStart(2, "0")}`;

export function renderReport(a: RenderAnswer): RenderReport {
  const warnings: string[] = [];
  const add = (w: unknown) => {
    if (typeof w === "string" && w.trim() && !warnings.includes(w)) warnings.push(w);
  };
  add(a.warning);
  for (const w of a.warnings ?? []) add(w);
  return {
    queued: a.queued.length,
    takes: a.queued.map((q) => takeName(q.shot, q.take)),
    problems: [
      ...(a.skipped ?? []).map((s) => ({ shot: s.shot, kind: "skipped" as const, text: s.reason })),
      ...(a.errors ?? []).map((e) => ({ shot: e.shot, kind: "error" as const, text: e.error })),
    ],
    warnings,
  };
}
