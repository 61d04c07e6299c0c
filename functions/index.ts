// The route table: every function module, statically imported (a test checks no file is left out).
import type { StudioFunction } from "../lib/fn.ts";
import browse from "./browse.ts";
import build from "./build.ts";
import configGet from "./config-get.ts";
import configPut from "./config-put.ts";
import episodes from "./episodes.ts";
import info from "./info.ts";
import serverStop from "./server-stop.ts";
import shotPreview from "./shot-preview.ts";
import sourceCheck from "./source-check.ts";

export const functions: readonly StudioFunction[] = [
  info,
  serverStop,
  configGet,
  configPut,
  browse,
  episodes,
  build,
  sourceCheck,
  shotPreview,
] as StudioFunction[];
