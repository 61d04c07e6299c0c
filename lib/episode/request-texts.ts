// The texts a compile route works on: carried by the request (nothing on disk is read: the shipped targets and the
// built-in default video target), or read from the episode folder the request names, a carried text winning.
import { z } from "zod";
import { FALLBACK_DEFAULT_TARGET } from "../compile/build.ts";
import type { Services } from "../context.ts";
import { badRequest } from "../errors.ts";
import type { TargetRegistryView } from "../targets/registry.ts";

/** A series config carried by a request: its JSON text, or the object (written with a 2-space indent). */
export const seriesText = z
  .union([z.string(), z.record(z.string(), z.unknown())])
  .transform((v) => (typeof v === "string" ? v : `${JSON.stringify(v, null, 2)}\n`));

export interface RequestTexts {
  ep?: string | null;
  script?: string | null;
  series?: string | null;
}

export interface TextsToCompile {
  /** The episode folder when one was named, else null. */
  ep: string | null;
  showDir: string | null;
  /** The folder whose targets/ every show shares, or null (never for texts carried by the request). */
  settingsDir: string | null;
  scriptText: string | null;
  seriesText: string | null;
  defaultTarget: string;
  targets(): Promise<TargetRegistryView>;
}

/**
 * The texts to compile. Without `ep` the request must carry every text `needs` names (400 naming the field
 * otherwise); with it the episode's files fill in what the request leaves out.
 */
export async function textsToCompile(
  ctx: Pick<Services, "targets" | "readEpisode">,
  req: RequestTexts,
  needs: { script: boolean; series: boolean },
): Promise<TextsToCompile> {
  if (req.ep == null) {
    for (const field of ["series", "script"] as const) {
      if (needs[field] && req[field] == null) {
        const what = field === "series" ? "series config (series.json as text or an object)" : "script";
        throw badRequest(`${field}: give the ${what}, or ep to read it from the episode folder`);
      }
    }
    return {
      ep: null,
      showDir: null,
      settingsDir: null,
      scriptText: req.script ?? null,
      seriesText: req.series ?? null,
      defaultTarget: FALLBACK_DEFAULT_TARGET,
      targets: async () => ctx.targets,
    };
  }
  if (!ctx.readEpisode) {
    throw badRequest(
      "ep: this deployment reads no episode folders; send the script and series texts instead",
    );
  }
  const disk = await ctx.readEpisode(req.ep);
  return {
    ...disk,
    scriptText: req.script ?? disk.scriptText,
    seriesText: req.series ?? disk.seriesText,
  };
}
