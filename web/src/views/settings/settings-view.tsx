// The Settings view: what the server is (GET /studio/info), which backends answer, the engine and review copy
// (config), the settings fields (each saved on its own, its error beside it; fields the environment sets are
// shown read-only with the variable), every target's readiness with what is missing, and the model files and node
// packs the targets need with their installs.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useStudio } from "../../context.ts";
import type { BackendsAnswer, Config, SettingsAnswer } from "../../types.ts";
import { ErrorText, Panel, useAction } from "../../ui.tsx";
import { FeaturesPanel, useInstall } from "./features-panel.tsx";
import { deploymentsValue, infoFacts, paidLimitValue, textValue } from "./settings-model.ts";
import { TargetsPanel } from "./targets-panel.tsx";
import { useAnswer } from "./use-answer.ts";

type Settings = SettingsAnswer["settings"];
type Kind = "video" | "image" | "audio";
const KINDS: Kind[] = ["video", "image", "audio"];

export function SettingsView() {
  const loaded = useAnswer<SettingsAnswer>("settings");
  // What a save answered, newer than the first read.
  const [savedAnswer, setSaved] = useState<SettingsAnswer | null>(null);
  const settings = savedAnswer ?? loaded.value;
  // Bumped by each save: backends and readiness depend on the addresses, so they are asked again.
  const [generation, setGeneration] = useState(0);
  const backends = useAnswer<BackendsAnswer>("backends", {}, generation);
  const install = useInstall(generation);
  const saved = (answer: SettingsAnswer) => {
    setSaved(answer);
    setGeneration((g) => g + 1);
  };
  return (
    <div class="settings">
      <div class="settings-col">
        <ServerFacts />
        <Panel
          title="Backends"
          actions={
            <button type="button" onClick={backends.reload} disabled={backends.busy}>
              {backends.busy ? "Asking…" : "Ask again"}
            </button>
          }
        >
          <ErrorText error={backends.error} />
          {backends.value ? (
            <BackendList answer={backends.value} sdk={settings?.settings.sdk ?? null} />
          ) : null}
        </Panel>
        <EnginePanel />
        <Panel title="Settings">
          <ErrorText error={loaded.error} />
          {settings ? <SettingsFields answer={settings} onSaved={saved} /> : null}
        </Panel>
        <FeaturesPanel install={install} />
      </div>
      <div class="settings-col">
        <TargetsPanel generation={generation} install={install} />
      </div>
    </div>
  );
}

function ServerFacts() {
  const load = useAnswer<Record<string, unknown>>("info");
  const info = load.value;
  return (
    <Panel title="Server">
      <ErrorText error={load.error} />
      {!info && load.busy ? <p class="muted">Asking the server…</p> : null}
      {info ? (
        <dl class="facts">
          {infoFacts(info).map((f) => (
            <div key={f.label}>
              <dt>{f.label}</dt>
              <dd class={f.tone === "bad" ? "error" : ""}>{f.value}</dd>
            </div>
          ))}
        </dl>
      ) : null}
    </Panel>
  );
}

function BackendList({ answer, sdk }: { answer: BackendsAnswer; sdk: Settings["sdk"] }) {
  return (
    <>
      <ul class="backends" aria-label="Backends">
        {answer.backends.map((b) => (
          <li key={b.name} class={b.down ? "down" : "up"}>
            <span class={`dot ${b.down ? "bad" : "ok"}`} aria-hidden="true" />
            <strong>{b.name}</strong>
            <span class="badge">{b.kind}</span>
            <span class="muted where">{b.where ?? ""}</span>
            <span class={b.down ? "warn reason" : "ok reason"}>{b.down ? b.down : "answers"}</span>
          </li>
        ))}
      </ul>
      <p class="muted">
        Cloud API key: {answer.api_key ? "set" : "not set"}
        {sdk && sdk.status !== "ready" ? ` · Comfy API client: ${sdk.status}` : ""}
        {sdk?.error ? ` (${sdk.error})` : ""}
      </p>
    </>
  );
}

/** The config's engine address and review copy, and the roots (edited in the start view). */
function EnginePanel() {
  const studio = useStudio();
  const config = studio.config.value.value;
  // The box shows what was asked while the service saves it, and falls back if the save fails.
  const [asked, setAsked] = useState<boolean | null>(null);
  const save = useAction(async (review: boolean) => {
    if (!config) return;
    setAsked(review);
    try {
      studio.config.value.value = await api.put<Config>("config", {
        roots: config.roots,
        review_copy: review,
      });
    } finally {
      setAsked(null);
    }
  });
  return (
    <Panel title="Engine and folders">
      <ErrorText error={studio.config.error.value} />
      {config ? (
        <div class="form">
          <div class="field">
            <span class="field-label">Engine address (config)</span>
            <code>{config.engine}</code>
          </div>
          {config.mounted ? (
            <div class="field">
              <span class="field-label">Runs inside ComfyUI</span>
              <code>{config.mounted.comfy}</code>
              <span class="muted">
                The local backend renders there unless the settings below name another.
              </span>
            </div>
          ) : null}
          <label class="check">
            <input
              type="checkbox"
              checked={asked ?? config.review_copy}
              disabled={save.busy}
              onChange={(e) => save.run(e.currentTarget.checked)}
            />
            Keep a review copy of each render in the engine's output folder
          </label>
          <ErrorText error={save.error} />
          <div class="field">
            <span class="field-label">Show folders (roots)</span>
            {config.roots.length ? (
              <ul class="roots">
                {config.roots.map((r) => (
                  <li key={r}>
                    <code>{r}</code>
                  </li>
                ))}
              </ul>
            ) : (
              <span class="muted">none yet</span>
            )}
            <span>
              <a
                href="/studio/"
                onClick={(e) => {
                  e.preventDefault();
                  studio.router.go({ ep: null, view: "shots" });
                }}
              >
                Change the folders on the start page
              </a>
            </span>
          </div>
        </div>
      ) : null}
    </Panel>
  );
}

/** PUT /studio/settings with some fields; its answer (as GET) replaces the view's settings. */
function usePutSettings(onSaved: (a: SettingsAnswer) => void) {
  return useAction(async (patch: Record<string, unknown>) => {
    onSaved(await api.put<SettingsAnswer>("settings", patch));
  });
}

function SettingsFields({
  answer,
  onSaved,
}: {
  answer: SettingsAnswer;
  onSaved: (a: SettingsAnswer) => void;
}) {
  const s = answer.settings;
  const env = answer.from_env;
  // Mounted in ComfyUI, a blank local address means that ComfyUI.
  const mounted = useStudio().config.value.value?.mounted?.comfy ?? null;
  const text = (field: keyof Settings, label: string, hint: string, placeholder = "") => (
    <TextSetting
      key={field}
      field={field}
      label={label}
      hint={hint}
      placeholder={placeholder}
      value={(s[field] as string | number | null) ?? null}
      envVar={env[field] ?? null}
      onSaved={onSaved}
    />
  );
  return (
    <div class="settings-fields">
      <p class="muted">
        Saved in <code>{answer.file}</code>
      </p>
      {text(
        "local_url",
        "Local ComfyUI",
        mounted
          ? `Where the local backend renders. Blank: the ComfyUI this page runs in (${mounted}).`
          : "Where the local backend renders.",
        mounted ?? "http://127.0.0.1:8188",
      )}
      {text("engine_url", "Separate engine", "Blank: the local ComfyUI.", "http://…")}
      <LocalVia value={s.local_via} envVar={env.local_via ?? null} onSaved={onSaved} />
      {text("path", "ComfyUI folder", "On this machine: model files are read there.", "/path/to/ComfyUI")}
      {text("cloud_url", "Comfy Cloud", "The cloud backend's address.", "https://…")}
      <SecretSetting
        field="api_key"
        label="Cloud API key"
        noun="key"
        value={s.api_key}
        envVar={env.api_key ?? null}
        onSaved={onSaved}
      />
      <Deployments value={s.deployments} envVar={env.deployments ?? null} onSaved={onSaved} />
      {text(
        "paid_limit",
        "Paid runs per session",
        "Blank: no cap. The queue holds paid runs past it.",
        "no cap",
      )}
      <SecretSetting
        field="hf_token"
        label="Download token"
        noun="token"
        hint="A Hugging Face token, for model files whose licence must be accepted first."
        value={s.hf_token}
        envVar={env.hf_token ?? null}
        onSaved={onSaved}
      />
      <DefaultTargets
        value={s.default_targets}
        detected={s.detected_targets}
        envVar={env.default_targets ?? null}
        onSaved={onSaved}
      />
    </div>
  );
}

/** One setting: its label, the control (or the environment's value, read-only) and its own error. */
function SettingRow({
  id,
  label,
  hint,
  envVar,
  children,
  error,
}: {
  id: string;
  label: string;
  hint?: string;
  envVar: string | null;
  children: ComponentChildren;
  error: string | null;
}) {
  return (
    <div class="setting">
      <label class="setting-label" for={id}>
        {label}
      </label>
      <div class="setting-control">
        {children}
        {envVar ? (
          <span class="muted env-note">
            set by <code>{envVar}</code>
          </span>
        ) : hint ? (
          <span class="muted hint">{hint}</span>
        ) : null}
        <ErrorText error={error} />
      </div>
    </div>
  );
}

function TextSetting({
  field,
  label,
  hint,
  placeholder,
  value,
  envVar,
  onSaved,
}: {
  field: keyof Settings;
  label: string;
  hint: string;
  placeholder: string;
  value: string | number | null;
  envVar: string | null;
  onSaved: (a: SettingsAnswer) => void;
}) {
  const shown = value === null ? "" : String(value);
  const [draft, setDraft] = useState(shown);
  useEffect(() => setDraft(shown), [shown]);
  const put = usePutSettings(onSaved);
  const id = `setting-${field}`;
  const dirty = draft !== shown;
  const save = () => put.run({ [field]: field === "paid_limit" ? paidLimitValue(draft) : textValue(draft) });
  return (
    <SettingRow id={id} label={label} hint={hint} envVar={envVar} error={put.error}>
      {envVar ? (
        <input id={id} value={shown} readOnly />
      ) : (
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <input
            id={id}
            value={draft}
            placeholder={placeholder}
            inputMode={field === "paid_limit" ? "numeric" : undefined}
            onInput={(e) => setDraft(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === "Escape") setDraft(shown);
            }}
            aria-invalid={put.error ? true : undefined}
          />
          {dirty ? (
            <button type="submit" class="primary" disabled={put.busy} aria-label={`Save ${label}`}>
              Save
            </button>
          ) : null}
        </form>
      )}
    </SettingRow>
  );
}

function LocalVia({
  value,
  envVar,
  onSaved,
}: {
  value: Settings["local_via"];
  envVar: string | null;
  onSaved: (a: SettingsAnswer) => void;
}) {
  const put = usePutSettings(onSaved);
  return (
    <SettingRow
      id="setting-local_via"
      label="Local backend speaks"
      hint="With the proxy, the local address is a Comfy API proxy and the separate engine is the ComfyUI behind it."
      envVar={envVar}
      error={put.error}
    >
      <select
        id="setting-local_via"
        value={value ?? ""}
        disabled={!!envVar || put.busy}
        onChange={(e) => put.run({ local_via: e.currentTarget.value || null })}
      >
        <option value="">ComfyUI's own routes</option>
        {value === "engine" ? <option value="engine">ComfyUI's own routes (set as "engine")</option> : null}
        <option value="proxy">Comfy API v2 through a proxy</option>
      </select>
    </SettingRow>
  );
}

/** A write-only credential: the field says only whether one is set; a new value replaces it, Remove clears it. */
function SecretSetting({
  field,
  label,
  noun,
  hint,
  value,
  envVar,
  onSaved,
}: {
  field: "api_key" | "hf_token";
  label: string;
  noun: string;
  hint?: string;
  value: "set" | null;
  envVar: string | null;
  onSaved: (a: SettingsAnswer) => void;
}) {
  const [secret, setSecret] = useState("");
  const put = usePutSettings(async (a) => {
    setSecret("");
    onSaved(a);
  });
  const id = `setting-${field}`;
  return (
    <SettingRow
      id={id}
      label={label}
      hint={`${value ? `A ${noun} is set (it is never shown).` : `No ${noun} set.`}${hint ? ` ${hint}` : ""}`}
      envVar={envVar}
      error={put.error}
    >
      {envVar ? (
        <input id={id} value={value ? "set" : "not set"} readOnly />
      ) : (
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            if (secret.trim()) void put.run({ [field]: secret.trim() });
          }}
        >
          <input
            id={id}
            type="password"
            autocomplete="off"
            value={secret}
            placeholder={value ? `set: type a new ${noun} to replace it` : `paste a ${noun}`}
            onInput={(e) => setSecret(e.currentTarget.value)}
          />
          {secret.trim() ? (
            <button type="submit" class="primary" disabled={put.busy}>
              {value ? `Replace ${noun}` : `Set ${noun}`}
            </button>
          ) : null}
          {value ? (
            <button
              type="button"
              class="danger"
              disabled={put.busy}
              onClick={() => put.run({ [field]: null })}
            >
              Remove {noun}
            </button>
          ) : null}
        </form>
      )}
    </SettingRow>
  );
}

interface TargetChoices {
  targets: { id: string; label: string }[];
  /** The target in force per kind when none is named. */
  default: Partial<Record<Kind, string>>;
}

interface DeploymentRow {
  key: number;
  target: string;
  url: string;
}

function Deployments({
  value,
  envVar,
  onSaved,
}: {
  value: Record<string, string>;
  envVar: string | null;
  onSaved: (a: SettingsAnswer) => void;
}) {
  const initial = () => Object.entries(value).map(([target, url], i) => ({ key: i, target, url }));
  const [rows, setRows] = useState<DeploymentRow[]>(initial);
  const stored = JSON.stringify(value);
  useEffect(() => setRows(initial()), [stored]);
  const put = usePutSettings(onSaved);
  const dirty = JSON.stringify(deploymentsValue(rows)) !== stored || rows.some((r) => !r.target.trim());
  const edit = (key: number, change: Partial<DeploymentRow>) =>
    setRows((rs) => rs.map((r) => (r.key === key ? { ...r, ...change } : r)));
  return (
    <SettingRow
      id="setting-deployments"
      label="Deployments"
      hint="A target rendered through its own Comfy API deployment."
      envVar={envVar}
      error={put.error}
    >
      {envVar ? (
        <ul class="deployments" id="setting-deployments">
          {Object.entries(value).map(([t, u]) => (
            <li key={t}>
              <code>{t}</code> → <code>{u}</code>
            </li>
          ))}
        </ul>
      ) : (
        <form
          class="deployments"
          id="setting-deployments"
          onSubmit={(e) => {
            e.preventDefault();
            void put.run({ deployments: deploymentsValue(rows) });
          }}
        >
          {rows.map((r, i) => (
            <div class="inline" key={r.key}>
              <input
                aria-label={`Deployment ${i + 1} target`}
                placeholder="target id"
                value={r.target}
                onInput={(e) => edit(r.key, { target: e.currentTarget.value })}
              />
              <input
                aria-label={`Deployment ${i + 1} address`}
                placeholder="https://…"
                value={r.url}
                onInput={(e) => edit(r.key, { url: e.currentTarget.value })}
              />
              <button
                type="button"
                class="ghost"
                aria-label={`Remove deployment ${r.target || i + 1}`}
                onClick={() => setRows((rs) => rs.filter((x) => x.key !== r.key))}
              >
                ✕
              </button>
            </div>
          ))}
          <div class="inline">
            <button
              type="button"
              onClick={() =>
                setRows((rs) => [
                  ...rs,
                  { key: Math.max(0, ...rs.map((x) => x.key + 1)), target: "", url: "" },
                ])
              }
            >
              Add a deployment
            </button>
            {dirty ? (
              <button type="submit" class="primary" disabled={put.busy} aria-label="Save deployments">
                Save
              </button>
            ) : null}
          </div>
        </form>
      )}
    </SettingRow>
  );
}

function DefaultTargets({
  value,
  detected,
  envVar,
  onSaved,
}: {
  value: Settings["default_targets"];
  detected: Settings["detected_targets"];
  envVar: string | null;
  onSaved: (a: SettingsAnswer) => void;
}) {
  // A changed default changes what the listing names as the one in force.
  const stored = JSON.stringify(value);
  const lists = {
    video: useAnswer<TargetChoices>("targets", { kind: "video" }, stored),
    image: useAnswer<TargetChoices>("targets", { kind: "image" }, stored),
    audio: useAnswer<TargetChoices>("targets", { kind: "audio" }, stored),
  };
  const choices: Partial<Record<Kind, TargetChoices>> = {};
  for (const k of KINDS) if (lists[k].value) choices[k] = lists[k].value ?? undefined;
  const listError = KINDS.map((k) => lists[k].error).find(Boolean) ?? null;
  const put = usePutSettings(onSaved);
  return (
    <SettingRow
      id="setting-default-video"
      label="Default targets"
      hint="What a shot or picture renders on when neither the script nor the series names one."
      envVar={envVar}
      error={put.error ?? listError}
    >
      <div class="defaults">
        {KINDS.map((kind) => (
          <label key={kind} class="inline">
            <span class="kind">{kind}</span>
            <select
              id={`setting-default-${kind}`}
              value={value[kind] ?? ""}
              disabled={!!envVar || put.busy || !choices[kind]}
              onChange={(e) =>
                put.run({ default_targets: { ...value, [kind]: e.currentTarget.value || null } })
              }
            >
              <option value="">
                not set
                {!value[kind] && choices[kind]?.default[kind]
                  ? ` · uses ${choices[kind]?.default[kind]}`
                  : ""}
                {detected[kind] ? ` · detected ${detected[kind]}` : ""}
              </option>
              {(choices[kind]?.targets ?? []).map((t) => (
                <option key={t.id} value={t.id}>
                  {t.label}
                </option>
              ))}
            </select>
          </label>
        ))}
      </div>
    </SettingRow>
  );
}
