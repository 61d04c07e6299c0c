// The Simple view: a title, a prompt, a button, the clip. The title picks the project (blank: the Clips project);
// the prompt becomes a shot of it (clip-script.ts), the episode is built and POST /studio/clip/queue makes the
// pictures the shot needs and then the clip, whose progress is followed from the service's events.
import { useEffect, useState } from "preact/hooks";
import { ApiError, api, fileUrl } from "../../api.ts";
import { useStudio } from "../../context.ts";
import type { Studio } from "../../studio.ts";
import type { EpisodeStatus, EpisodeSummary, SourceAnswer, SourceSaveAnswer } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import { type ClipAnswer, type ClipProgress, clipProgress, refKey } from "./clip-progress.ts";
import { addClip } from "./clip-script.ts";

const CLIPS_TITLE = "Clips";

interface Press {
  ep: string;
  shot: string;
  /** The newest take of the shot before this press. */
  since: number;
  answer: ClipAnswer;
}

/** The episode of the project the title names: the open one when it is that project, else made or found. */
async function projectFor(studio: Studio, title: string): Promise<string> {
  const wanted = title || CLIPS_TITLE;
  const open = studio.router.route.value.ep;
  const listed = (list: EpisodeSummary[] | null) =>
    list?.find((e) => e.simple && e.series === wanted && (open === null || e.ep === open)) ??
    list?.find((e) => e.simple && e.series === wanted);
  const known = listed(studio.episodes.value.value);
  if (known) return known.ep;
  if (!title) {
    const made = await api.post<{ ep: string; made: boolean }>("clips/ensure", {});
    return made.ep;
  }
  try {
    return (await api.post<{ ep: string }>("clips/new", { title })).ep;
  } catch (err) {
    // A project of that name made earlier (or elsewhere): use it when the list knows it.
    if (!(err instanceof ApiError) || err.status !== 409) throw err;
    await studio.refreshEpisodes();
    const found = listed(studio.episodes.value.value);
    if (found) return found.ep;
    throw err;
  }
}

const source = (ep: string, file: "script" | "series") => api.get<SourceAnswer>("source", { ep, file });

async function save(ep: string, file: "script" | "series", text: string, base: string, rebuild: boolean) {
  const saved = await api.put<SourceSaveAnswer>("source", { ep, file, text, base_hash: base, rebuild });
  if (rebuild && saved.build && !saved.build.ok) throw new Error(saved.build.error ?? "the build failed");
  return saved;
}

/** Writes the prompt into the project and builds it; answers the shot. */
async function writeClip(ep: string, prompt: string): Promise<string> {
  const [script, series] = await Promise.all([source(ep, "script"), source(ep, "series")]);
  const edit = addClip(script.text, series.text, prompt);
  if (edit.added) {
    await save(ep, "series", edit.series, series.hash, false);
    await save(ep, "script", edit.script, script.hash, true);
  } else {
    const built = await api.post<{ ok: boolean; error?: string | null }>("build", { ep });
    if (!built.ok) throw new Error(built.error ?? "the build failed");
  }
  return edit.shot;
}

export function SimpleView() {
  const studio = useStudio();
  const { ep, pass } = studio.router.route.value;
  const summary = studio.episodes.value.value?.find((e) => e.ep === ep);
  const [title, setTitle] = useState(
    summary?.simple && summary.series !== CLIPS_TITLE ? (summary.series ?? "") : "",
  );
  const [prompt, setPrompt] = useState("");
  const [press, setPress] = useState<Press | null>(null);
  const [refStatus, setRefStatus] = useState<ReadonlyMap<string, string>>(new Map());

  useEffect(
    () =>
      studio.on("studio.ref", (data) => {
        const e = data as { ep?: string; ref?: string; view?: string | null; take?: number; status?: string };
        if (!e?.ref || typeof e.take !== "number" || !e.status) return;
        const key = refKey(e.ref, e.view ?? null, e.take);
        setRefStatus((m) => new Map(m).set(key, e.status as string));
      }),
    [studio],
  );

  const make = useAction(async () => {
    const project = await projectFor(studio, title.trim());
    const shot = await writeClip(project, prompt);
    void studio.refreshEpisodes();
    studio.router.go({ ep: project, view: "simple" });
    const status = await api.get<EpisodeStatus>("episode", { ep: project, pass });
    const takes = status.shots.find((s) => s.shot === shot)?.takes ?? [];
    const since = Math.max(0, ...takes.map((t) => t.take));
    setRefStatus(new Map());
    const answer = await api.post<ClipAnswer>("clip/queue", { ep: project, shot, pass });
    setPress({ ep: project, shot, since, answer });
  });

  const episode = studio.episode.value.value;
  const shown = press && press.ep === ep ? press.shot : (episode?.shots.at(-1)?.shot ?? null);
  const shotEntry = episode?.shots.find((s) => s.shot === shown) ?? null;
  const takes = shotEntry?.takes ?? [];
  const progress: ClipProgress | null =
    press && press.ep === ep && ep
      ? clipProgress({
          answer: press.answer,
          refStatus,
          jobs: studio.jobs.value.value?.jobs ?? [],
          takes,
          since: press.since,
          ep,
          shot: press.shot,
        })
      : null;
  const newest = [...takes].reverse().find((t) => t.status === "ok" && t.mp4) ?? null;
  const clip = progress ? (progress.clip ?? (progress.stage === "ready" ? newest : null)) : newest;
  const busy = make.busy || (progress !== null && !["ready", "failed"].includes(progress.stage));

  return (
    <div class="simple">
      <form
        class="simple-form"
        onSubmit={(e) => {
          e.preventDefault();
          void make.run();
        }}
      >
        <label class="simple-title">
          <span>Title</span>
          <input
            type="text"
            value={title}
            placeholder={CLIPS_TITLE}
            onInput={(e) => setTitle(e.currentTarget.value)}
            aria-describedby="simple-title-hint"
          />
        </label>
        <p id="simple-title-hint" class="muted">
          Blank keeps the clip in the Clips project; a title makes a project of its own.
        </p>
        <label class="simple-prompt">
          <span>Prompt</span>
          <textarea
            rows={4}
            value={prompt}
            placeholder="A red fox runs across fresh snow at dawn, breath steaming."
            onInput={(e) => setPrompt(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                void make.run();
              }
            }}
          />
        </label>
        <div class="simple-go">
          <button type="submit" class="primary" disabled={make.busy || !prompt.trim()}>
            {make.busy ? "Starting…" : busy ? "Make another" : "Make the clip"}
          </button>
          <span class="muted">Ctrl+Enter · {pass} pass</span>
        </div>
        <ErrorText error={make.error} />
      </form>
      <section class="simple-clip" aria-label="The clip" aria-busy={busy}>
        {clip && ep ? (
          // biome-ignore lint/a11y/useMediaCaption: a clip carries no caption track; its prompt is written under it
          <video
            key={clip.mp4}
            src={fileUrl(ep, clip.mp4 ?? "")}
            controls
            autoPlay
            playsInline
            loop
            aria-label={`Clip ${shown ?? ""} take ${clip.take}`}
          />
        ) : (
          <div class="simple-empty muted">
            {progress ? `${progress.text}…` : ep ? "No clip yet." : "Write a prompt and make the clip."}
          </div>
        )}
        {progress ? <Progress progress={progress} /> : null}
        {shotEntry?.action ? <p class="simple-caption muted">{shotEntry.action}</p> : null}
      </section>
    </div>
  );
}

function Progress({ progress }: { progress: ClipProgress }) {
  const working = !["ready", "failed"].includes(progress.stage);
  return (
    <div class={`simple-progress ${progress.stage}`} role="status" aria-live="polite">
      <span>{progress.text}</span>
      {working ? <progress max={1} value={progress.share ?? undefined} aria-label={progress.text} /> : null}
      <ErrorText error={progress.error} />
    </div>
  );
}
