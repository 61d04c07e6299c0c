// The route table: every function module, statically imported (a test checks no file is left out).
import type { StudioFunction } from "../lib/fn.ts";
import browse from "./browse.ts";
import configGet from "./config-get.ts";
import configPut from "./config-put.ts";
import episodes from "./episodes.ts";
import info from "./info.ts";
import serverStop from "./server-stop.ts";

export const functions: readonly StudioFunction[] = [
  info,
  serverStop,
  configGet,
  configPut,
  browse,
  episodes,
] as StudioFunction[];
