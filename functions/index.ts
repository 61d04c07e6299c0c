// The route table: every function module, statically imported (a test checks no file is left out).
import type { StudioFunction } from "../lib/fn.ts";
import assemble from "./assemble.ts";
import backends from "./backends.ts";
import browse from "./browse.ts";
import build from "./build.ts";
import cancel from "./cancel.ts";
import configGet from "./config-get.ts";
import configPut from "./config-put.ts";
import { notBuiltYet } from "./contract.ts";
import cutCopy from "./cut-copy.ts";
import cutPut from "./cut-put.ts";
import cutReset from "./cut-reset.ts";
import discard from "./discard.ts";
import episode from "./episode.ts";
import episodeNewGet from "./episode-new-get.ts";
import episodeNewPost from "./episode-new-post.ts";
import episodeTarget from "./episode-target.ts";
import episodes from "./episodes.ts";
import file from "./file.ts";
import importScripts from "./import.ts";
import info from "./info.ts";
import issuesDelete from "./issues-delete.ts";
import issuesExport from "./issues-export.ts";
import issuesGet from "./issues-get.ts";
import issuesPost from "./issues-post.ts";
import jobsAction from "./jobs-action.ts";
import jobsGet from "./jobs-get.ts";
import modelsPicker from "./models-picker.ts";
import overrideDelete from "./override-delete.ts";
import overridePut from "./override-put.ts";
import passthroughModels from "./passthrough-models.ts";
import passthroughModelsFolder from "./passthrough-models-folder.ts";
import passthroughObjectInfo from "./passthrough-object-info.ts";
import pick from "./pick.ts";
import promoteGet from "./promote-get.ts";
import promotePost from "./promote-post.ts";
import queue from "./queue.ts";
import render from "./render.ts";
import sdkInstall from "./sdk-install.ts";
import serverStop from "./server-stop.ts";
import settingsGet from "./settings-get.ts";
import settingsPut from "./settings-put.ts";
import shot from "./shot.ts";
import shotPreview from "./shot-preview.ts";
import sourceCheck from "./source-check.ts";
import sourceGet from "./source-get.ts";
import sourcePut from "./source-put.ts";
import targets from "./targets.ts";
import thumb from "./thumb.ts";

export const functions: readonly StudioFunction[] = [
  info,
  serverStop,
  configGet,
  configPut,
  browse,
  episodes,
  episode,
  shot,
  episodeNewGet,
  episodeNewPost,
  importScripts,
  build,
  assemble,
  sourceCheck,
  sourceGet,
  sourcePut,
  promoteGet,
  promotePost,
  shotPreview,
  file,
  thumb,
  cutCopy,
  cutPut,
  cutReset,
  discard,
  episodeTarget,
  issuesDelete,
  issuesExport,
  issuesGet,
  issuesPost,
  jobsGet,
  jobsAction,
  overrideDelete,
  overridePut,
  pick,
  render,
  cancel,
  settingsGet,
  settingsPut,
  backends,
  sdkInstall,
  passthroughModels,
  passthroughModelsFolder,
  passthroughObjectInfo,
  queue,
  targets,
  modelsPicker,
] as StudioFunction[];

/** What a server mounts: the table plus a 501 answer for each contract route not built yet. */
export const routes: readonly StudioFunction[] = [...functions, ...notBuiltYet(functions)];
