// The start view: the folders episodes are opened from (chosen with the folder browser), every episode with its
// build state per pass, a new episode from the newest one or the starter, and importing scripts.
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { useStudio } from "../context.ts";
import type { EpisodeSummary } from "../types.ts";
import { ErrorText, Panel, useAction } from "../ui.tsx";
import { FolderPicker } from "./folder-picker.tsx";

export function StartView() {
  const studio = useStudio();
  const config = studio.config.value.value;
  const roots = config?.roots ?? [];
  const [picking, setPicking] = useState(false);
  const saveRoots = useAction(async (next: string[]) => {
    await api.put("config", { roots: next });
    await studio.refreshConfig();
    await studio.refreshEpisodes();
  });
  const addRoot = (path: string) => {
    setPicking(false);
    if (!roots.includes(path)) void saveRoots.run([...roots, path]);
  };
  return (
    <div class="start">
      <Panel
        title="Folders"
        actions={
          <button type="button" onClick={() => setPicking(true)} disabled={picking}>
            Add a folder…
          </button>
        }
      >
        <ErrorText error={studio.config.error.value} />
        {config && roots.length === 0 && !picking ? (
          <div class="empty">
            <p>Choose the folder your shows live in. Episodes are opened from inside it.</p>
            <button type="button" class="primary" onClick={() => setPicking(true)}>
              Choose a folder…
            </button>
          </div>
        ) : null}
        <ul class="roots">
          {roots.map((r) => (
            <li key={r}>
              <code>{r}</code>
              <button
                type="button"
                class="ghost"
                aria-label={`Stop opening episodes from ${r}`}
                onClick={() => saveRoots.run(roots.filter((x) => x !== r))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
        {picking ? (
          <FolderPicker label="Use this folder" onPick={addRoot} onCancel={() => setPicking(false)} />
        ) : null}
        <ErrorText error={saveRoots.error} />
      </Panel>
      {roots.length ? <EpisodeList /> : null}
      {roots.length ? <NewEpisode roots={roots} /> : null}
      {roots.length ? <ImportScripts roots={roots} /> : null}
    </div>
  );
}

function EpisodeList() {
  const studio = useStudio();
  const list = studio.episodes.value.value;
  const open = (e: EpisodeSummary) => studio.router.go({ ep: e.ep, view: "shots" });
  return (
    <Panel title="Episodes">
      <ErrorText error={studio.episodes.error.value} />
      {list && list.length === 0 ? (
        <p class="muted">No episodes in these folders yet: make one below.</p>
      ) : null}
      {list?.length ? (
        <table class="episodes">
          <thead>
            <tr>
              <th scope="col">Episode</th>
              <th scope="col">Show</th>
              <th scope="col">Shots</th>
              <th scope="col">Proxy</th>
              <th scope="col">Final</th>
            </tr>
          </thead>
          <tbody>
            {list.map((e) => (
              <tr key={e.ep}>
                <td>
                  <a
                    href={`/studio/?ep=${encodeURIComponent(e.ep)}`}
                    onClick={(ev) => {
                      ev.preventDefault();
                      open(e);
                    }}
                    title={e.ep}
                  >
                    <strong>{e.name}</strong> {e.title}
                  </a>
                </td>
                <td>{e.series}</td>
                <td class="num">{e.shots}</td>
                <td>
                  {e.built.proxy ? <span class="ok">built</span> : <span class="muted">not built</span>}
                </td>
                <td>
                  {e.built.final ? <span class="ok">built</span> : <span class="muted">not built</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Panel>
  );
}

interface NewPlan {
  parent: string;
  from: string | null;
  name: string;
  episodes: string[];
}

function NewEpisode({ roots }: { roots: string[] }) {
  const studio = useStudio();
  const [parent, setParent] = useState(roots[0]);
  const [picking, setPicking] = useState(false);
  const [plan, setPlan] = useState<NewPlan | null>(null);
  const [name, setName] = useState("");
  const [title, setTitle] = useState("");
  const [show, setShow] = useState("");
  const look = useAction(async (folder: string) => {
    const p = await api.get<NewPlan>("episode/new", { parent: folder });
    setPlan(p);
    setName(p.name);
  });
  const create = useAction(async () => {
    const made = await api.post<{ ep: string }>("episode/new", {
      parent,
      name,
      title: title || null,
      show: show || null,
    });
    await studio.refreshEpisodes();
    studio.router.go({ ep: made.ep, view: "script" });
  });
  return (
    <Panel title="New episode">
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!plan) void look.run(parent);
          else void create.run();
        }}
      >
        <label>
          In the folder
          <span class="row">
            <code>{parent}</code>
            <button type="button" onClick={() => setPicking(true)}>
              Change…
            </button>
          </span>
        </label>
        {picking ? (
          <FolderPicker
            label="Make it here"
            onPick={(p) => {
              setParent(p);
              setPlan(null);
              setPicking(false);
            }}
            onCancel={() => setPicking(false)}
          />
        ) : null}
        {plan ? (
          <>
            <p class="muted">
              {plan.from
                ? `Starts from ${plan.from}: its series config, and a one-shot script.`
                : "Starts from the starter show: a series config and a short script."}
            </p>
            <label>
              Folder name
              <input value={name} onInput={(e) => setName(e.currentTarget.value)} required />
            </label>
            <label>
              Title
              <input value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
            </label>
            {!plan.from ? (
              <label>
                Show name
                <input value={show} onInput={(e) => setShow(e.currentTarget.value)} />
              </label>
            ) : null}
            <button type="submit" class="primary" disabled={create.busy}>
              Create the episode
            </button>
          </>
        ) : (
          <button type="submit" disabled={look.busy}>
            Next
          </button>
        )}
        <ErrorText error={look.error ?? create.error} />
      </form>
    </Panel>
  );
}

interface ImportAnswer {
  episodes: { ep: string; name: string }[];
  skipped: { name: string; why: string }[];
  errors: { file: string; error: string }[];
}

function ImportScripts({ roots }: { roots: string[] }) {
  const studio = useStudio();
  const [parent, setParent] = useState(roots[0]);
  const [answer, setAnswer] = useState<ImportAnswer | null>(null);
  const run = useAction(async (files: FileList) => {
    const scripts = await Promise.all([...files].map(async (f) => ({ name: f.name, text: await f.text() })));
    setAnswer(await api.post<ImportAnswer>("import", { parent, scripts }));
    await studio.refreshEpisodes();
  });
  return (
    <Panel title="Import scripts">
      <div class="form">
        <label>
          Into the show folder
          <select value={parent} onChange={(e) => setParent(e.currentTarget.value)}>
            {roots.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label>
          Script files (one episode each)
          <input
            type="file"
            multiple
            accept=".md,.txt,.fountain,text/*"
            onChange={(e) => {
              const files = e.currentTarget.files;
              if (files?.length) void run.run(files);
            }}
          />
        </label>
        <ErrorText error={run.error} />
        {answer ? (
          <ul class="report">
            {answer.episodes.map((e) => (
              <li key={e.ep}>
                Imported <strong>{e.name}</strong>
              </li>
            ))}
            {answer.skipped.map((s) => (
              <li key={s.name} class="muted">
                Skipped {s.name}: {s.why}
              </li>
            ))}
            {answer.errors.map((x) => (
              <li key={x.file} class="error">
                {x.file}: {x.error}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </Panel>
  );
}
