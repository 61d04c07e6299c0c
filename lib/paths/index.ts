// Every ep and relative path in the service goes through these functions.
export { resolveEpisode } from "./episode.ts";
export { RESERVED_FOLDER_NAMES, validateFolderName } from "./folder-name.ts";
export {
  createShowFile,
  episodeFence,
  type Fence,
  folderFence,
  guardPath,
  mkdirShow,
  openShowFile,
  readShowDir,
  readShowDirents,
  readShowFile,
  readShowJson,
  readShowText,
  realInside,
  removeShow,
  renameShow,
  rootsFence,
  statShow,
  statShowOrNull,
  staysInside,
  writeShowFile,
  writeShowJson,
} from "./guarded.ts";
export { isInside, isInsideOrEqual, samePath, segmentsBelow } from "./inside.ts";
export { realpathNearest } from "./real.ts";
export { type EpisodePath, type ResolveOptions, resolveEpisodePath, resolveInEpisode } from "./relative.ts";
export { insideRoots, realRoots } from "./roots.ts";
export {
  findSeriesConfig,
  isFile,
  SERIES_FILE,
  type SeriesConfigLocation,
  seriesConfigFence,
} from "./series-config.ts";
export { namesParentRefsOrAudio, type SeriesHome, type SeriesSituation, seriesHome } from "./series-home.ts";
export { checkAbsolutePath, checkRelativePath } from "./text.ts";
