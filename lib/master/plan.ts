// The master plan's I/O edge: the series recipe, the pass's cut, each take's upscale and post records judged fresh,
// and what the upscale (and post) planning would make of each take now, handed to the row rules (rows.ts). Also
// what each row plays once the master is assembled.
import path from "node:path";
import { type CutShot, chooseClips } from "../assemble/plan.ts";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { folderTakes } from "../episode/cut-view.ts";
import { safeShot, type TakeRecord } from "../episode/takes.ts";
import { loadViewInputs, type ViewInputs } from "../episode/view-inputs.ts";
import { conflict, StudioError } from "../errors.ts";
import { planPost, takeVersions } from "../post/plan.ts";
import {
  doesSomething,
  mergedRecipe,
  recipeText as postRecipeText,
  recipeSettings,
  seriesPostRecipe,
} from "../post/recipe.ts";
import { isObject, positive, str } from "../store/json-guards.ts";
import { takeFacts } from "../upscale/facts.ts";
import { episodeProbe, judgeVersions, type PostState, type UpscaleState } from "../upscale/fresh.ts";
import { askFromRecipe, planUpscaleTake } from "../upscale/plan.ts";
import { type MasterRecipe, masterRecipe, recipeText, shotOwnRecipe, takeRecipe } from "../upscale/recipe.ts";
import type { MasterPlanAnswer } from "./report.ts";
import { masterRows, type PostMode, type RowFacts, rowPlays } from "./rows.ts";

export interface MasterOptions {
  conform: boolean;
  post: PostMode;
}

/** One row's facts with the files it can play. */
export interface PlannedShot {
  facts: RowFacts;
  /** The take the row plays (pass, number, mp4), or null for a gap with nothing to play. */
  take: { pass: Pass; take: number; mp4: string } | null;
  upscale: UpscaleState | null;
  post: PostState | null;
}

export interface MasterPlan {
  answer: MasterPlanAnswer;
  recipe: MasterRecipe;
  size: { width: number; height: number };
  shots: PlannedShot[];
  vi: ViewInputs;
}

/** The pass's inputs and the series master recipe with its size; 409 without a recipe or a size. */
export async function masterRecipeOf(
  services: Pick<Services, "home" | "targets" | "caches">,
  ep: string,
  pass: Pass,
): Promise<{ vi: ViewInputs; recipe: MasterRecipe; size: { width: number; height: number } }> {
  const vi = await loadViewInputs(services, ep, pass);
  if (!vi)
    throw new StudioError(404, `the ${pass} pass of ${path.basename(ep)} is not built yet: build it first`);
  const recipe = masterRecipe(vi.seriesRaw);
  if (!recipe) throw conflict("the series config has no upscale.master recipe: a master needs one");
  if (!recipe.deliver) {
    throw conflict(
      recipe.deliverText === null
        ? "upscale.master has no deliver: a master is one size (1080p, 1440p, 4k or WxH)"
        : `${recipe.deliverProblem ?? "upscale.master.deliver cannot be read"}: a master is one size`,
    );
  }
  return { vi, recipe, size: recipe.deliver };
}

/** The plan, or 409 for what makes a master impossible (no recipe, no size, no post recipe asked for, no cut). */
export async function planMaster(
  services: Services,
  ep: string,
  pass: Pass,
  o: MasterOptions,
): Promise<MasterPlan> {
  const { vi, recipe, size } = await masterRecipeOf(services, ep, pass);
  const postMaster = o.post === "recipe" ? seriesPostRecipe(vi.seriesRaw) : null;
  if (o.post === "recipe" && !postMaster) throw conflict("the series config has no post.master recipe");
  const entries = vi.cut.filter((e) => !e.out);
  if (entries.length === 0) throw conflict(`the ${pass} cut is empty: nothing to master`);
  const probe = episodeProbe(services, ep);
  const cutShots: CutShot[] = await Promise.all(
    entries.map(async (entry) => ({
      entry,
      orphan: !vi.build.shots.has(entry.shot),
      takes: await folderTakes(services, ep, entry.pass ?? pass, entry.shot),
    })),
  );
  const choices = chooseClips(ep, pass, cutShots);
  const shotPosts = isObject(vi.overrides.post) ? vi.overrides.post : {};
  const shots: PlannedShot[] = [];
  for (let i = 0; i < choices.length; i++) {
    const c = choices[i];
    const base = { shot: c.shot, take: c.take, recipe: null, upscale: null, post: null };
    if (c.kind !== "clip") {
      shots.push({ facts: { ...base, target: null, gap: c.why }, take: null, upscale: null, post: null });
      continue;
    }
    const t = cutShots[i].takes.find((x) => x.take === c.take) as TakeRecord;
    const target = str(t.sidecar?.target) ?? vi.build.shots.get(c.shot)?.target ?? null;
    const played = { pass: c.pass, take: c.take, mp4: c.file };
    if (c.placeholder) {
      const gap = `the cut uses its ${c.pass} take`;
      shots.push({ facts: { ...base, target, gap }, take: played, upscale: null, post: null });
      continue;
    }
    const v = await judgeVersions(services, { ep, pass, shot: c.shot, stem: t.stem, files: t.files }, probe);
    const facts: RowFacts = {
      ...base,
      target,
      gap: null,
      upscale: v.upscale ? upscaleFacts(v.upscale) : null,
      post: v.post
        ? {
            status: v.post.status,
            fresh: v.post.fresh,
            recipeHash: str(v.post.record?.recipe_hash),
          }
        : null,
    };
    const tr = target ? takeRecipe(recipe, target, shotOwnRecipe(vi.overrides, c.shot)) : null;
    if (tr) {
      // Planned from the very facts the upscale queue reads, so the row's recipe hash is the one a queued upscale gets.
      const plan = planUpscaleTake(
        await takeFacts(vi, c.shot, t, v.upscale, probe),
        askFromRecipe(tr.fields, {
          deliver: recipe.deliverText,
          fit: recipe.fit,
          quality: recipe.quality,
          encoder: recipe.encoder,
        }),
      );
      facts.recipe = {
        text: recipeText(tr.fields),
        hash: "ok" in plan ? plan.ok.recipe_hash : null,
        error: "error" in plan ? plan.error : null,
        runs: "ok" in plan ? plan.ok : null,
      };
    }
    if (postMaster) {
      const entry = shotPosts[c.shot];
      const settings = recipeSettings(mergedRecipe(postMaster, isObject(entry) ? entry : null));
      const none = settings.ok && !doesSomething(settings.value);
      const text = settings.ok ? (none ? "none" : postRecipeText(settings.value)) : "a post recipe in error";
      let hash: string | null = null;
      let error: string | null = settings.ok ? null : settings.error;
      if (settings.ok && !none && v.upscale?.fresh) {
        const decision = planPost(takeVersions(c.shot, t, v.upscale, v.post), settings, {
          redo: true,
          quality: null,
        });
        if ("queue" in decision) hash = decision.queue.recipe_hash;
        else if ("error" in decision) error = decision.error.error;
      }
      facts.postRecipe = { none, text, hash, error };
    }
    shots.push({ facts, take: played, upscale: v.upscale, post: v.post });
  }
  const { rows, counts, ready } = masterRows(
    shots.map((s) => s.facts),
    { size, conform: o.conform, post: o.post },
  );
  return {
    answer: {
      pass,
      post: o.post !== "off",
      post_mode: o.post,
      size: [size.width, size.height],
      fit: recipe.fit,
      quality: recipe.quality,
      counts,
      ready,
      rows,
    },
    recipe,
    size,
    shots,
    vi,
  };
}

function upscaleFacts(u: UpscaleState): RowFacts["upscale"] {
  return {
    status: u.status,
    fresh: u.fresh,
    keep: u.record?.keep === true,
    recipeHash: str(u.record?.recipe_hash),
    width: positive(u.record?.width),
    height: positive(u.record?.height),
  };
}

/** What each shot plays in the master: its post or upscale file, or its take (a gap let through); null: nothing. */
export function playedFiles(
  plan: MasterPlan,
): Map<string, { kind: "post" | "upscale" | "take"; file: string; why: string }> {
  const out = new Map<string, { kind: "post" | "upscale" | "take"; file: string; why: string }>();
  plan.shots.forEach((s, i) => {
    if (!s.take) return;
    const row = plan.answer.rows[i];
    const kind = rowPlays(row, s.facts, plan.answer.post_mode);
    if (kind === "post" && s.post?.mp4) out.set(row.shot, { kind, file: s.post.mp4, why: "its post" });
    else if (kind !== "take" && s.upscale?.mp4)
      out.set(row.shot, { kind: "upscale", file: s.upscale.mp4, why: "its upscale" });
    else out.set(row.shot, { kind: "take", file: s.take.mp4, why: `its take, scaled up (${row.why})` });
  });
  return out;
}

/** `master/<ep>_master_<W>x<H>` (no extension), episode-relative. */
export const masterBase = (name: string, size: { width: number; height: number }) =>
  `master/${safeShot(name)}_master_${size.width}x${size.height}`;
