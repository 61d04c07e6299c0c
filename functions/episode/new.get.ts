// GET /studio/episode/new: what a new episode under a folder would start from (template, suggested name).
import { z } from "zod";
import {
  episodesUnder,
  newestEpisode,
  resolveParent,
  seriesTextOf,
  suggestName,
} from "../../lib/episode/siblings.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/episode/new",
  summary: "What a new episode under a folder starts from: the newest episode there, its config, a name",
  input: z.object({
    parent: z.string().describe("The folder the new episode goes in: an absolute path inside a root"),
    // The show's name is only used when creating; accepted here so the page can send the same fields.
    show: z.string().optional().describe("The show's name (used when creating; accepted here and ignored)"),
  }),
  async handler(input, ctx) {
    const parent = await resolveParent(input.parent, ctx);
    const { names, episodes } = await episodesUnder(parent);
    const from = newestEpisode(episodes);
    const series = from ? await seriesTextOf(from) : null;
    return {
      parent,
      from: from?.name ?? null,
      series,
      name: suggestName(names),
      episodes: episodes.map((e) => e.name),
    };
  },
});
