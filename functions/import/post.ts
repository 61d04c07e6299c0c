// POST /studio/import: one episode folder per script, named from its `= <id>  <title>` header; nothing is built.
import path from "node:path";
import { z } from "zod";
import type { CheckResult } from "../../lib/episode/check.ts";
import { isFile, SERIES_FILE } from "../../lib/episode/files.ts";
import {
  configText,
  nameSeries,
  parseSeriesValue,
  starterPair,
  writeEpisode,
} from "../../lib/episode/new-episode.ts";
import { resolveParent } from "../../lib/episode/siblings.ts";
import { StudioError } from "../../lib/errors.ts";
import { validateFolderName } from "../../lib/paths/folder-name.ts";
import { headerId } from "../../lib/script/header.ts";
import { defineFunction } from "../fn.ts";

const seriesValue = z
  .union([z.string(), z.record(z.string(), z.unknown())])
  .describe("A series config as JSON text or an object");

interface Imported {
  ep: string;
  name: string;
  own_config: boolean;
  check: CheckResult;
}

export default defineFunction({
  method: "POST",
  path: "/import",
  summary: "Make one episode folder per script (named from its header) with its config; nothing is built",
  input: z.object({
    parent: z.string().describe("The show folder the episodes go in: an absolute path inside a root"),
    show: z.string().nullish().describe("The show's name, one line; left out: the folder's name"),
    series: seriesValue
      .nullish()
      .describe("The series config for scripts without their own; left out: the folder's"),
    scripts: z
      .array(
        z.object({
          name: z.string().describe("The script's file name, for the answer"),
          text: z.string().describe("The script text; its `= <id>  <title>` header names the folder"),
          series: seriesValue.nullish().describe("This script's own series config"),
        }),
      )
      .min(1, "give at least one script")
      .describe("The scripts to import, one episode folder each"),
  }),
  async handler(input, ctx) {
    const parent = await resolveParent(input.parent, ctx);
    const bodyShow = input.show?.trim() || undefined;
    if (bodyShow && /[\r\n]/.test(bodyShow)) throw new StudioError(400, "show must be a single line");
    const shared = input.series == null ? null : parseSeriesValue(input.series, "series");
    const parentHasConfig = await isFile(path.join(parent, SERIES_FILE));

    // The config a script without its own gets: the body's, else none (the parent's applies), else the starter.
    let fallback: string | null = null;
    if (shared) {
      fallback = shared.text ?? configText(shared.obj);
    } else if (!parentHasConfig) {
      const starter = (await starterPair()).series;
      const obj = parseSeriesValue(starter, "starter series.json").obj;
      fallback = nameSeries(obj, undefined, bodyShow) ? configText(obj) : starter;
    }

    const episodes: Imported[] = [];
    const skipped: { name: string; why: string }[] = [];
    const errors: { file: string; error: string }[] = [];
    const claimed = new Set<string>();

    for (const [i, item] of input.scripts.entries()) {
      const id = headerId(item.text);
      if (id === null) {
        skipped.push({
          name: item.name,
          why: "no episode header (`= <id>  <title>`) to name the folder after",
        });
        continue;
      }
      try {
        const name = validateFolderName(id, "episode id");
        if (claimed.has(name.toLowerCase())) {
          skipped.push({ name: item.name, why: `another script in this import already makes "${name}"` });
          continue;
        }
        claimed.add(name.toLowerCase());
        const series =
          item.series == null ? fallback : configTextOf(parseSeriesValue(item.series, `scripts.${i}.series`));
        const written = await writeEpisode(ctx, parent, name, item.text, series);
        episodes.push({ ep: written.ep, name, own_config: series !== null, check: written.check });
        ctx.events.emit("studio.episode", { ep: written.ep });
      } catch (err) {
        // One script's failure (its folder is removed again) does not stop the others.
        if (err instanceof StudioError && err.status === 409) {
          skipped.push({ name: item.name, why: `folder "${id}" already exists` });
        } else {
          errors.push({ file: item.name, error: (err as Error).message });
        }
      }
    }
    return { show: bodyShow ?? path.basename(parent), episodes, skipped, errors };
  },
});

function configTextOf(parsed: { text: string | null; obj: Record<string, unknown> }): string {
  return parsed.text ?? configText(parsed.obj);
}
