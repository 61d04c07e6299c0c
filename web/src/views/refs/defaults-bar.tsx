// The episode's defaults for making references: the targets reference pictures, keyframes and voices are made on
// (PUT /studio/refs/defaults), each with where its current value comes from.
import { api } from "../../api.ts";
import type { RefDefaults } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import type { TargetChoice } from "./use-targets.ts";

type Key = "target" | "keyframe_target" | "voice_target";

const FROM: Record<RefDefaults["target_source"], string> = {
  editor: "set here",
  series: "from the series config",
  default: "built-in",
};

export function DefaultsBar({
  ep,
  defaults,
  targets,
  audioTargets,
  onSaved,
}: {
  ep: string;
  defaults: RefDefaults;
  /** Image targets (pictures and keyframes). */
  targets: readonly TargetChoice[];
  /** Audio targets (voices). */
  audioTargets: readonly TargetChoice[];
  onSaved(d: RefDefaults): void;
}) {
  const save = useAction(async (key: Key, value: string) => {
    const answer = await api.put<{ defaults: RefDefaults }>("refs/defaults", { ep, [key]: value || null });
    if (answer?.defaults) onSaved(answer.defaults);
  });
  const select = (key: Key, label: string, choices: readonly TargetChoice[]) => {
    const source =
      (key === "target"
        ? defaults.target_source
        : key === "keyframe_target"
          ? defaults.keyframe_target_source
          : defaults.voice_target_source) ?? "default";
    const current = defaults[key] ?? "";
    const known = choices.some((t) => t.id === current);
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
          {choices.map((t) => (
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
      {select("target", "Pictures on", targets)}
      {select("keyframe_target", "Keyframes on", targets)}
      {defaults.voice_target_source ? select("voice_target", "Voices on", audioTargets) : null}
      <ErrorText error={save.error} />
    </fieldset>
  );
}
