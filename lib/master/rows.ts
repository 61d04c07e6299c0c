// The master plan's rows, pure: for each shot of the cut, what its upscale (and post) stand at against the series
// recipe, and so whether the shot is ready for the master, must be upscaled or post-processed first, or is a gap.
// The I/O edge (plan.ts) hands in what the records, the recipe and the upscale planning say.

export type PostMode = "off" | "present" | "recipe";
export type RowStatus = "upscale" | "post" | "ok" | "kept" | "queued" | "gap";

/** What a take's upscale record says, with its freshness against the take's mp4. */
export interface UpscaleFacts {
  status: "queued" | "ok" | "failed";
  fresh: boolean;
  keep: boolean;
  /** The settings hash the record was made with; null for a record from before upscales recorded it. */
  recipeHash: string | null;
  width: number | null;
  height: number | null;
}

/** What a take's post record says, fresh only while its upscale is fresh and unchanged. */
export interface PostFacts {
  status: "queued" | "ok" | "failed";
  fresh: boolean;
  recipeHash: string | null;
}

/** What the upscale recipe gives this take now. */
export interface RecipeNow {
  /** The recipe in words. */
  text: string;
  /** Hash of the settings an upscale made now would record. */
  hash: string | null;
  /** Why an upscale of this take cannot be planned (then an `upscale` row is a gap). */
  error: string | null;
  /** What the take's backend runs for it, as planned: the built-in engine resamples whatever the recipe names. */
  runs?: { method: string; sharpen: boolean } | null;
}

/** What the post recipe gives this take now (`post: recipe` only). */
export interface PostRecipeNow {
  /** The recipe says `none`: the master plays the upscale. */
  none: boolean;
  text: string;
  hash: string | null;
  error: string | null;
}

export interface RowFacts {
  shot: string;
  take: number | null;
  target: string | null;
  /** Why the cut has nothing usable here (no usable pick, or the entry plays the other pass's take). */
  gap: string | null;
  /** The recipe section that covers the take's target; null: none does. */
  recipe: RecipeNow | null;
  upscale: UpscaleFacts | null;
  post: PostFacts | null;
  /** Needed with `post: recipe`. */
  postRecipe?: PostRecipeNow | null;
}

export interface MasterRow {
  shot: string;
  take: number | null;
  target: string | null;
  status: RowStatus;
  why: string;
  /** What plays, in words: the upscale recipe, and with posts what happens to them. */
  recipe: string | null;
  upscale: { width: number | null; height: number | null; status: string; keep: boolean } | null;
  post: { status: string | null; fresh: boolean; recipe: string | null } | null;
}

export interface PlanOptions {
  size: { width: number; height: number };
  conform: boolean;
  post: PostMode;
}

export type Counts = Record<"upscale" | "post" | "ok" | "kept" | "queued" | "gap", number>;

/**
 * The recipe in words as the take will really get it: on the built-in engine every method is a lanczos resample
 * (the upscale record says `method: "resample"`), so the words say so rather than promise a model it never loads.
 */
export function recipeWords(r: RecipeNow): string {
  if (r.runs?.method !== "resample") return r.text;
  return `${r.text} (built-in: lanczos resample${r.runs.sharpen ? ", light sharpen" : ""})`;
}

const sized = (w: number | null, h: number | null) => `${w ?? "?"}x${h ?? "?"}`;

/** The row of one shot of the cut, by the master table's rules in order. */
export function masterRow(f: RowFacts, o: PlanOptions): MasterRow {
  const up = f.upscale;
  const row: MasterRow = {
    shot: f.shot,
    take: f.take,
    target: f.target,
    status: "gap",
    why: "",
    recipe: f.recipe ? recipeWords(f.recipe) : null,
    upscale: up ? { width: up.width, height: up.height, status: up.status, keep: up.keep } : null,
    post: null,
  };
  const set = (status: RowStatus, why: string) => Object.assign(row, { status, why });
  if (f.gap !== null) return set("gap", f.gap);
  if (f.recipe === null) return set("gap", `upscale.master has no section for ${f.target ?? "its target"}`);
  const recipe = f.recipe;
  if (up?.status === "queued") set("queued", "its upscale is on its way");
  else if (up?.status === "ok" && up.fresh) {
    if (up.keep) set("kept", "marked Keep");
    else if (up.recipeHash !== null && up.recipeHash === recipe.hash) set("ok", "");
    else if (o.conform)
      set(
        "upscale",
        up.recipeHash === null
          ? "made before upscales recorded their settings: conform redoes it"
          : "made with other settings than the recipe's: conform redoes it",
      );
    else
      set(
        "kept",
        up.recipeHash === null
          ? "made before upscales recorded their settings"
          : "made with other settings than the recipe's",
      );
    if ((row.status === "ok" || row.status === "kept") && !sameSize(up, o.size)) {
      const what = `its upscale is ${sized(up.width, up.height)}, not the master's ${sized(o.size.width, o.size.height)}`;
      if (up.keep) set("gap", `${what}: unkeep it, or redo it`);
      else if (o.conform) set("upscale", `${what}: conform redoes it`);
      else set("gap", `${what}: conform redoes it`);
    }
  } else if (up?.status === "ok") set("upscale", "made from an older take");
  else if (up?.status === "failed") set("upscale", "its last upscale failed: trying again");
  else set("upscale", "not upscaled yet");
  if (row.status === "upscale" && recipe.error !== null) set("gap", recipe.error);
  if (o.post === "present") presentPost(row, f);
  if (o.post === "recipe") recipePost(row, f, o);
  return row;
}

function sameSize(up: UpscaleFacts, size: { width: number; height: number }): boolean {
  return up.width === size.width && up.height === size.height;
}

const postSummary = (p: PostFacts | null, recipe: string | null): MasterRow["post"] =>
  p ? { status: p.status, fresh: p.fresh, recipe } : null;

/** `post: present`: nothing planned; the recipe text says what will play. */
function presentPost(row: MasterRow, f: RowFacts): void {
  const p = f.post;
  row.post = postSummary(p, null);
  if (row.status === "gap") return;
  let plays = "its upscale";
  if (p?.status === "ok" && p.fresh && row.status !== "upscale") plays = "its post";
  else if (p?.status === "queued") plays = "its upscale (a post is on its way: master again after)";
  else if (p && row.status !== "upscale") plays = "its upscale (its post is stale)";
  row.recipe = `${row.recipe ?? ""}; ${plays}`;
}

/** `post: recipe`: each shot's post planned behind its upscale by the post recipe. */
function recipePost(row: MasterRow, f: RowFacts, o: PlanOptions): void {
  const p = f.post;
  const pr = f.postRecipe ?? null;
  row.post =
    p || pr ? { status: p?.status ?? null, fresh: p?.fresh ?? false, recipe: pr?.text ?? null } : null;
  if (row.status === "gap" || pr === null) return;
  const set = (status: RowStatus, why: string) => Object.assign(row, { status, why });
  if (pr.none) {
    if (p?.status === "ok" && p.fresh && row.status !== "upscale")
      set("gap", "it has a fresh post but the post recipe is none: delete the post");
    else row.recipe = `${row.recipe ?? ""}; no post`;
    return;
  }
  row.recipe = `${row.recipe ?? ""}; then ${pr.text}`;
  if (pr.error !== null) {
    set("gap", pr.error);
    return;
  }
  // An upscale still to make (or on its way) gets its post right behind it.
  if (row.status === "upscale" || row.status === "queued") return;
  if (p?.status === "queued") set("queued", "its post is on its way");
  else if (!p) set("post", "not post-processed yet");
  else if (p.status === "failed") set("post", "its last post failed: trying again");
  else if (!p.fresh) set("post", "its post is stale (made from an older upscale)");
  else if (p.recipeHash !== pr.hash) {
    if (o.conform) set("post", "post made with other settings than the recipe's: conform redoes it");
    else if (row.status === "ok") set("kept", "post made with other settings than the recipe's");
  }
}

/**
 * Whether the master's queue puts this row's post right behind its upscale: posts by the recipe, one to make (not
 * `none`, not in error), and an upscale queued now (`upscale`) or already on its way with no post queued yet.
 */
export function postBehindUpscale(row: MasterRow, f: RowFacts, post: PostMode): boolean {
  const pr = f.postRecipe ?? null;
  if (post !== "recipe" || !pr || pr.none || pr.error !== null) return false;
  if (row.status === "upscale") return true;
  return row.status === "queued" && f.upscale?.status === "queued" && f.post?.status !== "queued";
}

/** Rows and their counts; ready when every row is ok or kept. */
export function masterRows(
  facts: readonly RowFacts[],
  o: PlanOptions,
): { rows: MasterRow[]; counts: Counts; ready: boolean } {
  const rows = facts.map((f) => masterRow(f, o));
  const counts: Counts = { upscale: 0, post: 0, ok: 0, kept: 0, queued: 0, gap: 0 };
  for (const r of rows) counts[r.status]++;
  const ready = rows.length > 0 && rows.every((r) => r.status === "ok" || r.status === "kept");
  return { rows, counts, ready };
}

/** What each row plays in the master: its post, its upscale, or (a gap let through) its take scaled up. */
export function rowPlays(row: MasterRow, f: RowFacts, post: PostMode): "post" | "upscale" | "take" {
  const freshPost = f.post?.status === "ok" && f.post.fresh;
  const freshUp = f.upscale?.status === "ok" && f.upscale.fresh;
  if (row.status === "gap" || !freshUp) return "take";
  if (post === "present" && freshPost) return "post";
  if (post === "recipe" && freshPost && f.postRecipe && !f.postRecipe.none) return "post";
  return "upscale";
}

/** Why the master cannot be assembled yet, or null when it can. */
export function assembleRefusal(rows: readonly MasterRow[], allowGaps: boolean): string | null {
  const pending = rows.filter((r) => r.status === "upscale" || r.status === "post" || r.status === "queued");
  if (pending.length) {
    const posts = pending.some((r) => r.status === "post" || r.why.includes("post"));
    return `${pending.length} shot(s) still to upscale${posts ? " or post-process" : ""}: ${pending.map((r) => r.shot).join(", ")}`;
  }
  const gaps = rows.filter((r) => r.status === "gap");
  if (gaps.length && !allowGaps)
    return `${gaps.length} gap(s): ${gaps.map((r) => `${r.shot} (${r.why})`).join(", ")}; assemble with allow_gaps to scale them up from their takes`;
  return null;
}
