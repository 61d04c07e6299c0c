// The values a render of a shot uses (`effective`, or `built_values` without overrides): prompt, seed, steps,
// model, LoRAs, negative, size and length, each with where it came from when the service says.
import type { ShotValues } from "../../types.ts";

function loras(list: unknown[]): string {
  if (!list.length) return "none";
  return list
    .map((l) =>
      l && typeof l === "object" && "name" in l
        ? `${(l as { name: string }).name}${"strength" in l ? `:${(l as { strength: number }).strength}` : ""}`
        : String(l),
    )
    .join(", ");
}

export function Values({ values, prompt = true }: { values: ShotValues; prompt?: boolean }) {
  return (
    <div class="values">
      {values.error ? <p class="error">{values.error}</p> : null}
      {prompt ? <p class="prompt">{values.prompt}</p> : null}
      <dl class="value-facts">
        <dt>Target</dt>
        <dd>{values.target}</dd>
        <dt>Seed</dt>
        <dd>
          <code>{values.seed}</code> <span class="muted">{values.seed_source}</span>
        </dd>
        <dt>Steps</dt>
        <dd>{values.steps ?? "–"}</dd>
        <dt>Model</dt>
        <dd>{values.model ?? "–"}</dd>
        {values.model_low ? (
          <>
            <dt>Low-noise model</dt>
            <dd>{values.model_low}</dd>
          </>
        ) : null}
        <dt>LoRAs</dt>
        <dd>{loras(values.loras)}</dd>
        <dt>Negative</dt>
        <dd>
          {values.negative === null ? "none" : values.negative || "(empty)"}{" "}
          <span class="muted">{values.negative_source}</span>
        </dd>
        <dt>Size</dt>
        <dd>
          {values.width}×{values.height} · {values.length}f
        </dd>
      </dl>
      {values.notes?.length ? (
        <ul class="notes">
          {values.notes.map((n) => (
            <li key={n} class="muted">
              {n}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
