// The series' finishing recipes and what the backend can run: the master size, fit, quality and encoder, each
// target's section in words, the post recipe, the recipe's problems, and the readiness of each upscale method and
// post tier (the missing nodes and model files named as the service words them).
import type { PostOptions, Readiness, UpscaleOptions } from "../../types.ts";
import { ErrorText, Panel } from "../../ui.tsx";

const READY: Record<Readiness["status"], string> = {
  ready: "ready",
  not_ready: "not ready",
  unknown: "unknown",
};

function Ready({ name, r }: { name: string; r: Readiness }) {
  return (
    <li>
      <span>{name}</span>{" "}
      <span class={`tag tone-${r.status === "ready" ? "ok" : r.status === "unknown" ? "muted" : "warn"}`}>
        {READY[r.status]}
      </span>
      {r.missing.length ? <span class="muted"> {r.missing.join("; ")}</span> : null}
    </li>
  );
}

export function RecipePanel({
  options,
  postOptions,
  error,
  targets,
}: {
  options: UpscaleOptions | null;
  postOptions: PostOptions | null;
  error: string | null;
  /** The video targets the cut's takes were made on. */
  targets: string[];
}) {
  const recipe = options?.recipe ?? null;
  const sections = recipe
    ? Object.entries(recipe.targets).filter(([t]) => targets.length === 0 || targets.includes(t))
    : [];
  return (
    <Panel title="Recipes">
      <ErrorText error={error} />
      {recipe ? (
        <dl class="finish-facts">
          <dt>Deliver</dt>
          <dd>
            {recipe.deliver ?? "no size"} · {recipe.fit} · {recipe.quality} · encoder {recipe.encoder}
          </dd>
          {sections.map(([t, s]) => (
            <SectionLine
              key={t}
              term={t}
              text={s ? `${s.key}: ${s.text}` : "no section: cannot be mastered"}
            />
          ))}
        </dl>
      ) : options ? (
        <p class="muted recipe-note">No upscale.master recipe in the series config: a master needs one.</p>
      ) : null}
      {recipe?.problems.length ? (
        <ul class="warn" aria-label="Problems in the upscale recipe">
          {recipe.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      {postOptions ? (
        <p class="muted recipe-note">
          Post recipe: {postOptions.recipe ? postOptions.recipe.text : "none in the series config"}
        </p>
      ) : null}
      {postOptions?.recipe?.problems.length ? (
        <ul class="warn" aria-label="Problems in the post recipe">
          {postOptions.recipe.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      {options ? (
        <details class="readiness">
          <summary>What the backend can run</summary>
          <ul>
            <Ready name="pixel" r={options.pixel} />
            <Ready name="SeedVR2" r={options.seedvr2} />
            {Object.entries(options.latent)
              .filter(([t, l]) => l && targets.includes(t))
              .map(([t, l]) => (l ? <Ready key={t} name={`${t} ${l.mode}`} r={l} /> : null))}
            {postOptions?.tiers.map((t) => (
              <Ready key={t.id} name={`post ${t.id}`} r={t.readiness} />
            ))}
            {postOptions ? <Ready name="motion blur" r={postOptions.blur.readiness} /> : null}
          </ul>
        </details>
      ) : null}
    </Panel>
  );
}

function SectionLine({ term, text }: { term: string; text: string }) {
  return (
    <>
      <dt>{term}</dt>
      <dd>{text}</dd>
    </>
  );
}
