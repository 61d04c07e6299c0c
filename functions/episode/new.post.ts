// POST /studio/episode/new: creates one episode folder (script + its own series.json) from a template.
import { z } from "zod";
import {
  configRefs,
  configText,
  nameSeries,
  type Obj,
  oneLine,
  parseSeriesValue,
  rebaseToEpisode,
  renameStarterScript,
  renameTrack,
  skeletonScript,
  starterPair,
  writeEpisode,
} from "../../lib/episode/new-episode.ts";
import { episodesUnder, newestEpisode, resolveParent } from "../../lib/episode/siblings.ts";
import { readSources } from "../../lib/episode/sources.ts";
import { StudioError } from "../../lib/errors.ts";
import { validateFolderName } from "../../lib/paths/folder-name.ts";
import { parseSeriesJson } from "../../lib/series/load.ts";
import { isObject } from "../../lib/store/json-guards.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "POST",
  path: "/episode/new",
  summary:
    "Create an episode folder with its script and its own series.json, from the newest episode or a starter",
  input: z.object({
    parent: z.string().describe("The folder the new episode goes in: an absolute path inside a root"),
    name: z.string().describe("The new episode's folder name, like ep02"),
    title: z.string().nullish().describe("The episode's title, one line"),
    series_id: z.string().nullish().describe("The series id written into a first episode's series.json"),
    show: z.string().nullish().describe("The show's name written into a first episode's series.json"),
    series: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .nullish()
      .describe("The series config to use, as JSON text or an object; left out: the newest episode's"),
    script: z.string().nullish().describe("The script text; left out: a skeleton from the template"),
  }),
  async handler(input, ctx) {
    const parent = await resolveParent(input.parent, ctx);
    const name = validateFolderName(input.name, "name");
    const title = oneLine(input.title, "title");
    const seriesId = oneLine(input.series_id, "series_id");
    const show = oneLine(input.show, "show");
    const form = input.series == null ? null : parseSeriesValue(input.series, "series");

    const { episodes } = await episodesUnder(parent);
    const first = episodes.length === 0;
    const newest = newestEpisode(episodes);

    let template: "episode" | "starter" | "form";
    let config: Obj | null = null;
    let seriesText: string;
    let from: string | null = null;
    let script: string | undefined;

    if (form) {
      template = "form";
      config = form.obj;
      const changed = first && nameSeries(config, seriesId, show);
      seriesText = form.text !== null && !changed ? form.text : configText(config);
    } else if (newest) {
      template = "episode";
      from = newest.name;
      const sources = await readSources(newest.dir);
      if (!sources.series)
        throw new StudioError(500, `${newest.name} lost its series.json while being copied`);
      seriesText = sources.series.text;
      try {
        const parsed = parseSeriesJson(seriesText);
        config = isObject(parsed) ? parsed : null;
      } catch {
        config = null; // copied as is; the check reports the JSON error
      }
      if (config) {
        const rebased = sources.series.inParent && rebaseToEpisode(config);
        const renamed = renameTrack(config, newest.name, name);
        if (rebased || renamed) seriesText = configText(config);
      }
    } else {
      template = "starter";
      const starter = await starterPair();
      config = parseSeriesValue(starter.series, "starter series.json").obj;
      seriesText = nameSeries(config, seriesId, show) ? configText(config) : starter.series;
      script = renameStarterScript(starter.script, name, title);
    }
    if (input.script != null) script = input.script;
    script ??= skeletonScript(name, title, config);

    const written = await writeEpisode(ctx, parent, name, script, seriesText);
    ctx.events.emit("studio.episode", { ep: written.ep });
    return {
      ep: written.ep,
      template,
      from,
      files: written.files,
      refs: config ? configRefs(config) : [],
      check: written.check,
      episode: written.episode,
    };
  },
});
