// The route table: every function module, statically imported (a test checks no file is left out).
//
// Where a route lives, read from its URL: `METHOD /studio/<first>/<rest...>` is the file
// `functions/<first>/<rest...>.<method>.ts`, with a route of one segment as `functions/<first>/<method>.ts`;
// a path parameter `:name` is written `name`; the method is in lower case. Pass-throughs mounted at the server's
// root (not under /studio) follow the same rule under `functions/root/`. So `GET /studio/models` is
// `models/get.ts`, `PUT /studio/refs/pick` is `refs/pick.put.ts`, `POST /studio/jobs/:action` is
// `jobs/action.post.ts` and the root `GET /object_info/:node` is `root/object_info/node.get.ts`. Only this table,
// `fn.ts` (what a route module is and the replies it may return) and `contract.ts` (the contract's route list, the
// 501 maker) sit directly in functions/.

import align from "./align/post.ts";
import alignReady from "./align/ready.get.ts";
import assembleLast from "./assemble/last.get.ts";
import assemble from "./assemble/post.ts";
import audioImport from "./audio/import.post.ts";
import backends from "./backends/get.ts";
import browse from "./browse/get.ts";
import build from "./build/post.ts";
import cancel from "./cancel/post.ts";
import clipQueue from "./clip/queue.post.ts";
import clipsEnsure from "./clips/ensure.post.ts";
import clipsNew from "./clips/new.post.ts";
import configGet from "./config/get.ts";
import configPut from "./config/put.ts";
import { notBuiltYet } from "./contract.ts";
import cutCopy from "./cut/copy.post.ts";
import cutPut from "./cut/put.ts";
import cutReset from "./cut/reset.post.ts";
import discard from "./discard/post.ts";
import drafts from "./drafts/get.ts";
import episode from "./episode/get.ts";
import episodeNewGet from "./episode/new.get.ts";
import episodeNewPost from "./episode/new.post.ts";
import episodeTarget from "./episode-target/put.ts";
import episodes from "./episodes/get.ts";
import featuresCancel from "./features/cancel.post.ts";
import features from "./features/get.ts";
import featuresInstall from "./features/install.post.ts";
import featuresSizes from "./features/sizes.get.ts";
import file from "./file/get.ts";
import type { StudioFunction } from "./fn.ts";
import importScripts from "./import/post.ts";
import info from "./info/get.ts";
import issuesDelete from "./issues/delete.ts";
import issuesExport from "./issues/export.get.ts";
import issuesGet from "./issues/get.ts";
import issuesPost from "./issues/post.ts";
import jobsAction from "./jobs/action.post.ts";
import jobsGet from "./jobs/get.ts";
import masterJob from "./master/job.get.ts";
import master from "./master/post.ts";
import modelsPicker from "./models/get.ts";
import overrideDelete from "./override/delete.ts";
import overridePut from "./override/put.ts";
import peaks from "./peaks/get.ts";
import pick from "./pick/put.ts";
import postDelete from "./post/delete.ts";
import postOptions from "./post/options.get.ts";
import postQueue from "./post/post.ts";
import presets from "./presets/get.ts";
import presetsImage from "./presets/image.get.ts";
import presetsOwnDelete from "./presets/own/delete.post.ts";
import presetsOwnPicture from "./presets/own/picture.post.ts";
import presetsOwnRender from "./presets/own/render.post.ts";
import presetsOwn from "./presets/own.post.ts";
import promoteGet from "./promote/get.ts";
import promotePost from "./promote/post.ts";
import refsCopyTake from "./refs/copy-take.post.ts";
import refsDefaults from "./refs/defaults.put.ts";
import refsDiscard from "./refs/discard.post.ts";
import refsFromFrame from "./refs/from-frame.post.ts";
import refsGenerate from "./refs/generate.post.ts";
import refsGenerateMissing from "./refs/generate-missing.post.ts";
import refsList from "./refs/get.ts";
import refsImport from "./refs/import.post.ts";
import refsKeyframe from "./refs/keyframe.post.ts";
import refsMatch from "./refs/match.post.ts";
import refsOverrideDelete from "./refs/override.delete.ts";
import refsOverridePut from "./refs/override.put.ts";
import refsOwnerTakes from "./refs/owner-takes.get.ts";
import refsUnpick from "./refs/pick.delete.ts";
import refsPick from "./refs/pick.put.ts";
import refsRelight from "./refs/relight.post.ts";
import refsTour from "./refs/tour.post.ts";
import refsTourFrame from "./refs/tour-frame.post.ts";
import refsVideo from "./refs/video.post.ts";
import refsVideos from "./refs/videos.get.ts";
import refsVoiceFromTake from "./refs/voice-from-take.post.ts";
import render from "./render/post.ts";
import passthroughModelsFolder from "./root/models/folder.get.ts";
import passthroughModels from "./root/models/get.ts";
import passthroughObjectInfo from "./root/object_info/node.get.ts";
import queue from "./root/queue/get.ts";
import routerModels from "./router/models.get.ts";
import sdkInstall from "./sdk/install.post.ts";
import serverStop from "./server/stop.post.ts";
import settingsGet from "./settings/get.ts";
import settingsPut from "./settings/put.ts";
import shot from "./shot/get.ts";
import shotPreview from "./shot/preview.post.ts";
import sourceCheck from "./source/check.post.ts";
import sourceGet from "./source/get.ts";
import sourceHistory from "./source/history.get.ts";
import sourcePut from "./source/put.ts";
import sourceVersion from "./source/version.get.ts";
import targetsCustomDelete from "./targets/custom.delete.ts";
import targetsCustomPut from "./targets/custom.put.ts";
import targets from "./targets/get.ts";
import targetsInspect from "./targets/inspect.post.ts";
import targetsLimits from "./targets/limits.put.ts";
import targetsRouterDryrun from "./targets/router-dryrun.post.ts";
import targetsRouterInspect from "./targets/router-inspect.post.ts";
import thumb from "./thumb/get.ts";
import timeline from "./timeline/get.ts";
import track from "./track/post.ts";
import upscaleDelete from "./upscale/delete.ts";
import upscaleKeep from "./upscale/keep.put.ts";
import upscaleOptions from "./upscale/options.get.ts";
import upscalePost from "./upscale/post.ts";
import upscaleRecipe from "./upscale/recipe.put.ts";
import workflowInstallDelete from "./workflow/install.delete.ts";
import workflowInstallPost from "./workflow/install.post.ts";
import workflows from "./workflows/get.ts";

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
  assembleLast,
  master,
  masterJob,
  upscalePost,
  upscaleDelete,
  upscaleKeep,
  upscaleOptions,
  upscaleRecipe,
  timeline,
  track,
  audioImport,
  align,
  alignReady,
  sourceCheck,
  sourceGet,
  sourcePut,
  sourceHistory,
  sourceVersion,
  promoteGet,
  promotePost,
  shotPreview,
  file,
  thumb,
  peaks,
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
  refsList,
  refsOwnerTakes,
  refsImport,
  refsVideo,
  refsVideos,
  refsPick,
  refsUnpick,
  refsDiscard,
  refsCopyTake,
  refsMatch,
  refsGenerate,
  refsGenerateMissing,
  refsOverridePut,
  refsOverrideDelete,
  refsDefaults,
  refsKeyframe,
  refsFromFrame,
  refsVoiceFromTake,
  refsRelight,
  refsTour,
  refsTourFrame,
  clipQueue,
  clipsEnsure,
  clipsNew,
  pick,
  render,
  cancel,
  postQueue,
  postDelete,
  postOptions,
  settingsGet,
  settingsPut,
  backends,
  sdkInstall,
  features,
  featuresSizes,
  featuresInstall,
  featuresCancel,
  passthroughModels,
  passthroughModelsFolder,
  passthroughObjectInfo,
  queue,
  targets,
  modelsPicker,
  workflowInstallPost,
  workflowInstallDelete,
  workflows,
  targetsInspect,
  targetsCustomPut,
  targetsCustomDelete,
  presets,
  presetsImage,
  presetsOwn,
  presetsOwnPicture,
  presetsOwnRender,
  presetsOwnDelete,
  routerModels,
  targetsRouterInspect,
  targetsRouterDryrun,
  targetsLimits,
  drafts,
] as StudioFunction[];

/** What a server mounts: the table plus a 501 answer for each contract route not built yet. */
export const routes: readonly StudioFunction[] = [...functions, ...notBuiltYet(functions)];
