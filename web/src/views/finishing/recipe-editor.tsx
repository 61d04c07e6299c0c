// A shot's own upscale recipe: what the series recipe gives its target, what the shot's own recipe changes, and a
// form to change it (empty fields leave the series recipe's values). Saved to overrides.json by
// PUT /studio/upscale/recipe; Clear removes the shot's recipe.
import { Fragment } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api.ts";
import type { UpscaleOptions } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import { formChanged, formFromRecipe, METHODS, type RecipeForm, recipeFromForm } from "./recipe-form.ts";

type Field = keyof RecipeForm;

const NUMBER_FIELDS: [Field, string, string][] = [
  ["scale", "Scale", "1–4, or auto for a re-sample alone"],
  ["start_step", "Start step", "the step a re-sample starts from"],
  ["then_scale", "Then scale", "the follow-up step's scale"],
  ["keep_soft", "Keep soft", "0–1"],
  ["grain", "Grain", "0–0.2"],
  ["window", "Window (s)", "0 = off, or 2–30 seconds"],
];

export function RecipeEditor({
  ep,
  shot,
  target,
  options,
  onSaved,
}: {
  ep: string;
  shot: string;
  target: string;
  options: UpscaleOptions | null;
  onSaved(): void;
}) {
  const recipe = options?.recipe ?? null;
  const section = recipe?.targets[target] ?? null;
  const own = recipe?.shots[shot] ?? null;
  const [form, setForm] = useState<RecipeForm>(() => formFromRecipe(own?.fields));
  const [text, setText] = useState<string | null>(own?.text ?? null);
  const [open, setOpen] = useState(false);
  const ownKey = JSON.stringify(own?.fields ?? null);
  useEffect(() => {
    setForm(formFromRecipe(own?.fields));
    setText(own?.text ?? null);
  }, [shot, ownKey]);
  const save = useAction(async (clear: boolean) => {
    const a = await api.put<{ shot: string; recipe: Record<string, unknown> | null; text: string | null }>(
      "upscale/recipe",
      { ep, shot, recipe: clear ? null : recipeFromForm(form) },
    );
    setForm(formFromRecipe(a.recipe));
    setText(a.text);
    onSaved();
  });
  const set = (k: Field) => (e: { currentTarget: { value: string } }) =>
    setForm((f) => ({ ...f, [k]: e.currentTarget.value }));
  const id = (k: string) => `recipe-${k}`;
  const changed = formChanged(form, own?.fields);
  return (
    <section class="recipe-editor" aria-label={`Upscale recipe of ${shot}`}>
      <h3>Upscale recipe</h3>
      {recipe ? (
        <p class="muted">
          {section ? (
            <>
              Series ({section.key}): {section.text}
            </>
          ) : (
            `The series recipe has no section for ${target}.`
          )}
        </p>
      ) : options ? (
        <p class="muted">The series config has no upscale.master recipe.</p>
      ) : null}
      {text ? <p>This shot: {text}</p> : null}
      <button type="button" class="ghost" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        {open ? "Hide the shot's recipe" : own ? "Edit the shot's recipe" : "Give the shot its own recipe"}
      </button>
      {open ? (
        <form
          class="recipe-form"
          onSubmit={(e) => {
            e.preventDefault();
            void save.run(false);
          }}
        >
          <label for={id("method")}>Method</label>
          <select id={id("method")} value={form.method} onChange={set("method")}>
            <option value="">(series)</option>
            {METHODS.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
          <label for={id("detail")}>Detail</label>
          <select id={id("detail")} value={form.detail} onChange={set("detail")}>
            <option value="">(series)</option>
            {(options?.details ?? [0, 1, 2]).map((d) => (
              <option key={d} value={String(d)}>
                {d}
              </option>
            ))}
          </select>
          <label for={id("pixel_model")}>Pixel model</label>
          <input
            id={id("pixel_model")}
            list={id("pixel-models")}
            value={form.pixel_model}
            onInput={set("pixel_model")}
            placeholder={options?.pixel.default ?? ""}
          />
          <datalist id={id("pixel-models")}>
            {(options?.pixel.models ?? []).map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
          <label for={id("seedvr2_model")}>SeedVR2 model</label>
          <input
            id={id("seedvr2_model")}
            list={id("seedvr2-models")}
            value={form.seedvr2_model}
            onInput={set("seedvr2_model")}
          />
          <datalist id={id("seedvr2-models")}>
            {(options?.seedvr2.models ?? []).map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
          <label for={id("then")}>Then</label>
          <input
            id={id("then")}
            list={id("pixel-models")}
            value={form.follow}
            onInput={set("follow")}
            placeholder="an upscale model, or seedvr2"
          />
          <label for={id("precision")}>Precision</label>
          <select id={id("precision")} value={form.precision} onChange={set("precision")}>
            <option value="">(series)</option>
            {(options?.precisions ?? ["fp16", "fp32"]).map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
          {NUMBER_FIELDS.map(([k, name, hint]) => (
            <Fragment key={k}>
              <label for={id(k)}>{name}</label>
              <input id={id(k)} inputMode="decimal" value={form[k]} onInput={set(k)} placeholder={hint} />
            </Fragment>
          ))}
          <div class="recipe-buttons">
            <button type="submit" class="primary" disabled={save.busy || !changed}>
              Save the shot's recipe
            </button>
            {own ? (
              <button type="button" disabled={save.busy} onClick={() => save.run(true)}>
                Clear
              </button>
            ) : null}
          </div>
          <ErrorText error={save.error} />
        </form>
      ) : null}
    </section>
  );
}
