// A shot's detail beside the list: the take playing, every take as a card, the compiled prompt and the values a
// render uses, its references, overrides, a one-off target and issue notes.
import type { RefObject } from "preact";
import { useState } from "preact/hooks";
import { fileUrl, thumbUrl } from "../../api.ts";
import type { Pass } from "../../route.ts";
import type { ShotEntry, TakeDetail } from "../../types.ts";
import { type Action, ErrorText, seconds } from "../../ui.tsx";
import { ShotKeyframes } from "../refs/shot-keyframes.tsx";
import { useChoices } from "./choices.ts";
import { IssueNotes } from "./issue-notes.tsx";
import { KeyframeCut } from "./keyframe-cut.tsx";
import { OneOffTarget } from "./one-off.tsx";
import { OverrideForm } from "./override-form.tsx";
import { takeName } from "./report.ts";
import { TakeCard } from "./take-card.tsx";
import { useShot } from "./use-shot.ts";
import { Values } from "./values.tsx";
import { VoiceFromTake } from "./voice-from-take.tsx";

/** The take a shot opens on: the one the cut plays, else the newest with a video. */
function firstToPlay(entry: ShotEntry | undefined, pass: Pass, takes: readonly TakeDetail[]): number | null {
  const cut = entry?.cut;
  if (cut && cut.take !== null && !cut.placeholder && (cut.pass ?? pass) === pass) {
    if (takes.some((t) => t.take === cut.take && t.mp4)) return cut.take;
  }
  const withVideo = takes.filter((t) => t.mp4);
  return withVideo.length ? withVideo[withVideo.length - 1].take : null;
}

export function ShotDetailPanel({
  ep,
  pass,
  shot,
  entry,
  player,
  pick,
  onClose,
}: {
  ep: string;
  pass: Pass;
  shot: string;
  /** The shot in the episode answer (cut, missing refs), when the list has it. */
  entry: ShotEntry | undefined;
  /** The video element Space plays and pauses. */
  player: RefObject<HTMLVideoElement | null>;
  pick: Action<[string, number | null]>;
  onClose(): void;
}) {
  const { detail, error, reload } = useShot(ep, pass, shot);
  const choices = useChoices(ep);
  const [chosen, setChosen] = useState<number | null>(null);
  const takes = detail?.takes ?? [];
  const playing = chosen ?? firstToPlay(entry, pass, takes);
  const clip = takes.find((t) => t.take === playing && t.mp4) ?? null;
  const cut = entry?.cut;
  const ownCut = cut && cut.take !== null && !cut.placeholder && (cut.pass ?? pass) === pass ? cut : null;
  const after = async () => {
    await reload();
  };
  return (
    <section class="shot-detail" aria-label={`Shot ${shot}`}>
      <header class="detail-head">
        <h2>{shot}</h2>
        {entry ? (
          <span class="muted">
            {entry.sequence} · {seconds(entry.seconds)} · {entry.length}f
            {entry.size ? ` · ${entry.size}` : ""}
          </span>
        ) : null}
        {detail ? (
          <span class="detail-target">
            {detail.target}
            {detail.target_source !== "default" ? (
              <span class="muted"> from {detail.target_source}</span>
            ) : null}
            {detail.profile ? <span class="muted"> · profile {detail.profile}</span> : null}
          </span>
        ) : null}
        <button type="button" class="ghost" onClick={onClose} aria-label="Close the shot's detail">
          ✕
        </button>
      </header>
      <ErrorText error={error} />
      {entry?.action ? <p class="action">{entry.action}</p> : null}
      <div class="player">
        {clip?.mp4 ? (
          // biome-ignore lint/a11y/useMediaCaption: rendered takes carry no caption track; the shot's text is beside it
          <video
            ref={player}
            key={clip.mp4}
            src={fileUrl(ep, clip.mp4)}
            poster={clip.thumb ? thumbUrl(ep, clip.thumb, 512) : undefined}
            controls
            preload="metadata"
            aria-label={`${takeName(shot, clip.take)} video`}
          />
        ) : (
          <p class="muted">
            {detail && !takes.length ? "No takes yet: render this shot." : "No video to play."}
          </p>
        )}
      </div>
      {clip?.mp4 ? (
        <KeyframeCut key={clip.mp4} ep={ep} pass={pass} shot={shot} clip={clip} player={player} />
      ) : null}
      {clip?.audio ? (
        <VoiceFromTake
          ep={ep}
          pass={pass}
          shot={shot}
          clip={clip}
          subjects={entry?.subjects ?? []}
          player={player}
        />
      ) : null}
      {detail ? (
        <>
          <h3>Takes</h3>
          <ErrorText error={pick.error} />
          <div class="take-grid">
            {takes.map((t, i) => (
              <TakeCard
                key={t.take}
                ep={ep}
                pass={pass}
                shot={shot}
                take={t}
                nth={i + 1}
                inCut={ownCut?.take === t.take}
                picked={ownCut?.take === t.take && !!ownCut?.picked}
                playing={t.take === playing}
                onPlay={() => setChosen(t.take)}
                pick={pick}
                after={after}
              />
            ))}
          </div>
          <h3>Prompt and values</h3>
          <Values values={detail.effective} />
          {detail.built_values && detail.built_values.prompt !== detail.effective.prompt ? (
            <details class="built">
              <summary>The prompt as built (without overrides)</summary>
              <p class="prompt">{detail.built_values.prompt}</p>
            </details>
          ) : null}
          <h3>References</h3>
          {entry?.missing_refs.length ? (
            <ul class="missing">
              {entry.missing_refs.map((m) => (
                <li key={`${m.slot}:${m.path}`} class="warn">
                  ⚠ {m.slot} missing: <code>{m.path}</code>
                  {m.why ? ` (${m.why})` : ""}
                  {m.anyway === false ? " · cannot render without it" : ""}
                </li>
              ))}
            </ul>
          ) : null}
          {detail.refs_used.length ? (
            <ul class="refs">
              {detail.refs_used.map((r) => (
                <li key={`${r.role}:${r.slot}:${r.path}`} class={r.exists ? "" : "absent"}>
                  {r.thumb ? <img src={thumbUrl(ep, r.thumb, 128)} alt={r.slot} loading="lazy" /> : null}
                  <span>
                    <strong>{r.slot}</strong> <span class="muted">{r.role}</span>
                    <br />
                    <code>{r.path}</code>
                    {r.exists ? (
                      ""
                    ) : (
                      <span class="tag warn">{r.need === "optional" ? "not made" : "missing"}</span>
                    )}
                  </span>
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted">This shot reads no reference files.</p>
          )}
          <h3>Keyframes</h3>
          <ShotKeyframes ep={ep} shot={shot} />
          <h3>
            Overrides
            {Object.keys(detail.override).length ? <span class="tag">set</span> : null}
            {detail.override_stale ? <span class="tag stale">stale</span> : null}
          </h3>
          <OverrideForm
            key={JSON.stringify(detail.override)}
            ep={ep}
            pass={pass}
            shot={shot}
            detail={detail}
            targets={choices.targets}
            after={after}
          />
          <h3>Another target, once</h3>
          <OneOffTarget ep={ep} pass={pass} shot={shot} current={detail.target} targets={choices.targets} />
        </>
      ) : !error ? (
        <p class="muted">Loading…</p>
      ) : null}
      <h3>Notes</h3>
      <IssueNotes ep={ep} pass={pass} shot={shot} />
    </section>
  );
}
