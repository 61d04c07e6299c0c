// The editor's check of a text on the compile thread, the episode's other file read from disk.
import type { Services } from "../context.ts";
import { settingsTargetsRoot } from "../targets/target-tree.ts";
import type { CheckResult } from "./check.ts";
import { compileEnv } from "./compile-env.ts";
import { readSources } from "./sources.ts";

/** The editor's check of `text` as the episode's `file`, the other file read from disk, on the compile thread. */
export async function runCheck(
  services: Pick<Services, "home" | "compile" | "caches" | "targets">,
  ep: string,
  file: "script" | "series",
  text: string,
): Promise<CheckResult> {
  const sources = await readSources(ep);
  const env = await compileEnv(services, sources.showDir ?? ep, ep);
  return services.compile.run("check", {
    showDir: sources.showDir ?? ep,
    settingsDir: settingsTargetsRoot(services),
    defaultTarget: env.defaultTarget,
    file,
    scriptText: file === "script" ? text : (sources.script?.text ?? null),
    seriesText: file === "series" ? text : (sources.series?.text ?? null),
  });
}
