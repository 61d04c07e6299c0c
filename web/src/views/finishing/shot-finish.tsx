// One shot's finishing: its cut take, upscale and post-process side by side to play, upscale or post-process it
// (again), Keep its upscale out of cut-wide redos, delete either version, and its own upscale recipe over the
// series one (PUT /studio/upscale/recipe).
import { useEffect, useState } from "preact/hooks";
import { api, fileUrl, thumbUrl } from "../../api.ts";
import { useStudio } from "../../context.ts";
import { useShortcuts } from "../../keys.tsx";
import type { Pass } from "../../route.ts";
import type { FinishQueueAnswer, ShotEntry, UpscaleOptions } from "../../types.ts";
import { ErrorText, Panel, useAction } from "../../ui.tsx";
import { type Badge, cutTake, type FinishRow } from "./finishing-model.ts";
import { RecipeEditor } from "./recipe-editor.tsx";
import { QueueReport } from "./shot-table.tsx";

type Version = "take" | "upscale" | "post";

export function ShotFinish({
  ep,
  pass,
  row,
  shot,
  options,
  onChanged,
}: {
  ep: string;
  pass: Pass;
  row: FinishRow;
  shot: ShotEntry;
  options: UpscaleOptions | null;
  onChanged(): void;
}) {
  const studio = useStudio();
  const take = cutTake(shot);
  const up = row.upscaleSummary;
  const post = row.postSummary;
  const files: Partial<Record<Version, string>> = {};
  if (take?.mp4) files.take = take.mp4;
  if (up?.mp4) files.upscale = up.mp4;
  if (post?.mp4) files.post = post.mp4;
  const best: Version = files.post && post?.fresh ? "post" : files.upscale ? "upscale" : "take";
  const [playing, setPlaying] = useState<Version>(best);
  useEffect(() => setPlaying(best), [row.shot, best]);
  const shown = files[playing] ?? files[best] ?? null;
  const [answer, setAnswer] = useState<FinishQueueAnswer | null>(null);
  useEffect(() => setAnswer(null), [row.shot]);

  const which = take ? { ep, pass, takes: [{ shot: row.shot, take: take.take }] } : null;
  const upscale = useAction(async () => {
    if (!which) return;
    setAnswer(null);
    setAnswer(
      await api.post<FinishQueueAnswer>("upscale", { ...which, recipe: true, redo: Boolean(up?.fresh) }),
    );
  });
  const postIt = useAction(async () => {
    if (!which) return;
    setAnswer(null);
    setAnswer(await api.post<FinishQueueAnswer>("post", { ...which, redo: Boolean(post?.fresh) }));
  });
  // The box follows the click at once; the episode read after the answer confirms it (or the error puts it back).
  const [keepShown, setKeepShown] = useState(Boolean(up?.keep));
  useEffect(() => setKeepShown(Boolean(up?.keep)), [row.shot, up?.keep]);
  const keep = useAction(async (on: boolean) => {
    if (!take) return;
    setKeepShown(on);
    try {
      await api.put("upscale/keep", { ep, pass, shot: row.shot, take: take.take, keep: on });
    } catch (err) {
      setKeepShown(!on);
      throw err;
    }
    await studio.refreshEpisode();
    onChanged();
  });
  const remove = useAction(async (what: "upscale" | "post") => {
    if (!take) return;
    await api.del(what, {}, { ep, pass, shot: row.shot, take: take.take });
    await studio.refreshEpisode();
    onChanged();
  });
  useShortcuts(studio.keys, [
    { keys: ["u"], label: "Upscale the shot by the recipe", run: () => void upscale.run() },
    { keys: ["p"], label: "Post-process the shot's upscale", run: () => void postIt.run() },
  ]);

  const label = {
    take: `Take t${String(take?.take ?? 0).padStart(2, "0")}`,
    upscale: "Upscale",
    post: "Post",
  };
  return (
    <Panel title={`Shot ${row.shot}`} actions={<span class="muted">{shot.target}</span>}>
      {!take ? (
        <p class="muted">
          {row.upscale.title}: nothing to finish on the {pass} pass.
        </p>
      ) : (
        <>
          {Object.keys(files).length > 1 ? (
            <fieldset class="finish-versions" aria-label="Version to play">
              {(["take", "upscale", "post"] as Version[])
                .filter((v) => files[v])
                .map((v) => (
                  <label key={v} class={v === playing ? "on" : ""}>
                    <input
                      type="radio"
                      name="finish-version"
                      value={v}
                      checked={v === playing}
                      onChange={() => setPlaying(v)}
                    />
                    {label[v]}
                  </label>
                ))}
            </fieldset>
          ) : null}
          {shown ? (
            // biome-ignore lint/a11y/useMediaCaption: takes and their upscales have no caption track
            <video
              key={shown}
              class="finish-video"
              controls
              preload="metadata"
              src={fileUrl(ep, shown)}
              poster={take.thumb ? thumbUrl(ep, take.thumb, 640) : undefined}
              aria-label={`${label[playing]} of ${row.shot}`}
            />
          ) : null}
          <dl class="finish-facts">
            <dt>Upscale</dt>
            <dd>
              <BadgeWords badge={row.upscale} />
              {up?.method ? (
                <span class="muted">
                  {" "}
                  · {up.method}
                  {up.pixel_model ? ` (${up.pixel_model})` : ""}
                  {up.encoder ? ` · ${up.encoder}` : ""}
                </span>
              ) : null}
              {up?.status === "failed" && up.save_notes ? <p class="error">{up.save_notes}</p> : null}
            </dd>
            <dt>Post</dt>
            <dd>
              <BadgeWords badge={row.post} />
              {post?.status === "failed" && post.save_notes ? <p class="error">{post.save_notes}</p> : null}
            </dd>
            {row.master ? (
              <>
                <dt>Master</dt>
                <dd>
                  {row.master.status}
                  {row.master.why ? ` · ${row.master.why}` : ""}
                </dd>
              </>
            ) : null}
          </dl>
          <div class="finish-actions">
            <button type="button" class="primary" disabled={upscale.busy} onClick={() => upscale.run()}>
              {upscale.busy ? "Queueing…" : up?.fresh ? "Upscale again" : "Upscale"}
            </button>
            {up?.status === "ok" ? (
              <button type="button" disabled={postIt.busy} onClick={() => postIt.run()}>
                {postIt.busy ? "Queueing…" : post?.fresh ? "Post-process again" : "Post-process"}
              </button>
            ) : null}
            {up?.status === "ok" ? (
              <label class="inline" title="A kept upscale is skipped by cut-wide upscales and the master">
                <input
                  type="checkbox"
                  checked={keepShown}
                  disabled={keep.busy}
                  onChange={(e) => keep.run(e.currentTarget.checked)}
                />
                Keep
              </label>
            ) : null}
            {up && up.status !== "queued" ? (
              <button
                type="button"
                class="ghost"
                disabled={remove.busy}
                onClick={() => remove.run("upscale")}
              >
                Delete upscale
              </button>
            ) : null}
            {post && post.status !== "queued" ? (
              <button type="button" class="ghost" disabled={remove.busy} onClick={() => remove.run("post")}>
                Delete post
              </button>
            ) : null}
          </div>
          <ErrorText error={upscale.error ?? postIt.error ?? keep.error ?? remove.error} />
          {answer ? <QueueReport answer={answer} /> : null}
        </>
      )}
      <RecipeEditor ep={ep} shot={row.shot} target={shot.target} options={options} onSaved={onChanged} />
    </Panel>
  );
}

/** A badge in words: its state and why, or only why when there is nothing of it yet. */
function BadgeWords({ badge }: { badge: Badge }) {
  if (badge.tone === "muted") return <span class="muted">{badge.title}</span>;
  return (
    <>
      <span class={`tone-${badge.tone}`}>{badge.text}</span> <span class="muted">{badge.title}</span>
    </>
  );
}
