// What promote reads: the script and series config as source files, overrides.json, the series home's
// refs/_overrides.json and the compile settings; and how it writes the refs' overrides back.
import path from "node:path";
import type { Services } from "../../context.ts";
import { type Fence, folderFence, readShowJson, writeShowFile } from "../../paths/guarded.ts";
import { seriesHome } from "../../paths/series-home.ts";
import { pyJson } from "../../script/canonical.ts";
import { forgetJsonFile } from "../../store/json-file.ts";
import { isObject } from "../../store/json-guards.ts";
import { compileEnv } from "../compile-env.ts";
import { readOverrides } from "../overrides-file.ts";
import { readSourceFile } from "../source-file.ts";
import type { Inputs, RefOverridesFile } from "./types.ts";

export async function readInputs(services: Services, ep: string): Promise<Inputs> {
  const [script, series, overrides, home] = await Promise.all([
    readSourceFile(ep, "script"),
    readSourceFile(ep, "series"),
    readOverrides(services, ep),
    seriesHome(services, ep),
  ]);
  const refsPath = path.join(home.home, "refs", "_overrides.json");
  // The series home is the episode or its show folder, both checked real paths.
  const refsFence = folderFence(home.home, "the series home");
  const raw = await readShowJson(services, refsFence, refsPath, "refs/_overrides.json");
  const refs: RefOverridesFile = isObject(raw) ? structuredClone(raw) : {};
  const env = await compileEnv(services, path.dirname(series.abs), ep);
  return { ep, script, series, overrides, refs, refsPath, refsFence, env };
}

export async function writeRefOverrides(
  services: Pick<Services, "caches">,
  fence: Fence,
  file: string,
  value: RefOverridesFile,
): Promise<void> {
  await writeShowFile(fence, file, `${pyJson(value, { indent: 2, floatKeys: new Set() })}\n`);
  forgetJsonFile(services, file);
}
