// The episode's defaults for making references: the target reference pictures and keyframes are made on
// (PUT /studio/refs/defaults), each with where its current value comes from.
import { api } from "../../api.ts";
import type { RefDefaults } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import type { TargetChoice } from "./use-targets.ts";

const FROM: Record<RefDefaults["target_source"], string> = {
  editor: "set here",
  series: "from the series config",
  default: "built-in",
};

export function DefaultsBar({
  ep,
  defaults,
  targets,
  onSaved,
}: {
  ep: string;
  defaults: RefDefaults;
  targets: readonly TargetChoice[];
  onSaved(d: RefDefaults): void;
}) {
  const save = useAction(async (key: "target" | "keyframe_target", value: string) => {
    const answer = await api.put<{ defaults: RefDefaults }>("refs/defaults", { ep, [key]: value || null });
    if (answer?.defaults) onSaved(answer.defaults);
  });
  const select = (key: "target" | "keyframe_target", label: string) => {
    const source = key === "target" ? defaults.target_source : defaults.keyframe_target_source;
    const current = defaults[key] ?? "";
    const known = targets.some((t) => t.id === current);
    return (
      <label class="inline">
        {label}
        <select
          value={source === "editor" ? current : ""}
          disabled={save.busy}
          onChange={(e) => save.run(key, e.currentTarget.value)}
        >
          <option value="">
            {source === "editor" ? "not set here" : `${current || "none"} (${FROM[source]})`}
          </option>
          {targets.map((t) => (
            <option key={t.id} value={t.id}>
              {t.label}
            </option>
          ))}
          {source === "editor" && current && !known ? <option value={current}>{current}</option> : null}
        </select>
      </label>
    );
  };
  return (
    <fieldset class="refs-defaults" aria-label="Defaults for references">
      {select("target", "Pictures on")}
      {select("keyframe_target", "Keyframes on")}
      <ErrorText error={save.error} />
    </fieldset>
  );
}
