// GET /studio/episode/new: what a new episode under a folder would start from (template, suggested name).
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { findSeriesConfig } from "../lib/episode/files.ts";
import { episodesUnder, newestEpisode, resolveParent, suggestName } from "../lib/episode/siblings.ts";
import { defineFunction } from "../lib/fn.ts";

export default defineFunction({
  method: "GET",
  path: "/episode/new",
  summary: "What a new episode under a folder starts from: the newest episode there, its config, a name",
  input: z.object({
    parent: z.string(),
    // The show's name is only used when creating; accepted here so the page can send the same fields.
    show: z.string().optional(),
  }),
  async handler(input, ctx) {
    const parent = await resolveParent(input.parent, ctx);
    const { names, episodes } = await episodesUnder(parent);
    const from = newestEpisode(episodes);
    let series: string | null = null;
    if (from) {
      const config = await findSeriesConfig(from.dir);
      if (config) series = await readFile(config.path, "utf8").catch(() => null);
    }
    return {
      parent,
      from: from?.name ?? null,
      series,
      name: suggestName(names),
      episodes: episodes.map((e) => e.name),
    };
  },
});
