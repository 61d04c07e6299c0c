// Under the shot's player: the frame under the playhead (round(time × fps) at the take's rate), one-frame steps,
// and "use this frame" as the next shot's first frame or this shot's last (POST /studio/refs/keyframe with the
// exact frame index). The shot's keyframes section follows from the events the cut sends.
import type { RefObject } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useStudio } from "../../context.ts";
import { useShortcuts } from "../../keys.tsx";
import type { Pass } from "../../route.ts";
import type { RefInfo, TakeDetail } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import {
  frameAt,
  frameTime,
  type KeyframeUse,
  keyframeCutBody,
  nextInCut,
  stepFrame,
  timeOfFrame,
} from "./frame-index.ts";

export function KeyframeCut({
  ep,
  pass,
  shot,
  clip,
  player,
}: {
  ep: string;
  pass: Pass;
  shot: string;
  /** The take playing. */
  clip: TakeDetail;
  player: RefObject<HTMLVideoElement | null>;
}) {
  const studio = useStudio();
  const status = studio.episode.value.value;
  // The take's rate as the episode lists it, else as its detail does, else the episode's.
  const listed = status?.shots.find((s) => s.shot === shot)?.takes.find((t) => t.take === clip.take);
  const fps = listed?.fps ?? clip.fps ?? status?.fps ?? null;
  const frames = listed?.frames ?? clip.frames ?? null;
  const next = status ? nextInCut(status.shots, shot) : null;
  const [time, setTime] = useState(0);
  const [use, setUse] = useState<KeyframeUse>(next ? "next-first" : "this-last");
  const [pick, setPick] = useState(true);
  const [made, setMade] = useState<string | null>(null);
  useEffect(() => {
    const v = player.current;
    if (!v) return;
    const read = () => setTime(v.currentTime);
    read();
    const kinds = ["timeupdate", "seeked", "loadedmetadata"] as const;
    for (const k of kinds) v.addEventListener(k, read);
    return () => {
      for (const k of kinds) v.removeEventListener(k, read);
    };
  }, [player, clip.mp4]);
  const frame = frameAt(time, fps, frames);
  const step = (by: number) => {
    const v = player.current;
    if (!v || !fps) return;
    v.pause();
    v.currentTime = timeOfFrame(stepFrame(v.currentTime, fps, by, frames), fps);
  };
  useShortcuts(studio.keys, [
    { keys: [","], label: "One frame back in the playing take", run: () => step(-1) },
    { keys: ["."], label: "One frame on in the playing take", run: () => step(1) },
  ]);
  const chosen: KeyframeUse = use === "next-first" && !next ? "this-last" : use;
  const target = chosen === "next-first" ? `${next}'s first frame` : `${shot}'s last frame`;
  const cut = useAction(async () => {
    setMade(null);
    player.current?.pause();
    // The frame under the playhead when the button is pressed, not the last one drawn.
    const at = player.current ? frameAt(player.current.currentTime, fps, frames) : frame;
    if (at === null) return;
    const body = keyframeCutBody(ep, pass, shot, clip.take, at, chosen, next, pick);
    if (!body) return;
    const ref = await api.post<RefInfo>("refs/keyframe", body);
    const live =
      ref.exists && ref.picked !== null ? ` · live as t${String(ref.picked).padStart(2, "0")}` : "";
    setMade(`Frame ${at} is now a candidate of ${target}${live}.`);
  });
  if (!fps) return null;
  return (
    <fieldset class="kf-cut">
      <legend class="sr-only">Use the frame under the playhead as a keyframe</legend>
      <div class="kf-cut-frame">
        <button type="button" class="ghost small" onClick={() => step(-1)} aria-label="One frame back">
          ◀
        </button>
        <span class="kf-cut-readout" aria-live="off">
          frame <strong>{frame ?? "–"}</strong>
          {frames ? <span class="muted"> / {frames - 1}</span> : null}
          <span class="muted"> · {frame !== null ? frameTime(frame, fps) : "–"}</span>
        </span>
        <button type="button" class="ghost small" onClick={() => step(1)} aria-label="One frame on">
          ▶
        </button>
      </div>
      <label>
        <span class="sr-only">Use this frame as</span>
        <select value={chosen} onChange={(e) => setUse(e.currentTarget.value as KeyframeUse)}>
          {next ? <option value="next-first">{next}'s first frame (next in the cut)</option> : null}
          <option value="this-last">{shot}'s last frame</option>
        </select>
      </label>
      <label class="check">
        <input type="checkbox" checked={pick} onChange={(e) => setPick(e.currentTarget.checked)} />
        make it live
      </label>
      <button type="button" onClick={() => cut.run()} disabled={cut.busy || frame === null}>
        {cut.busy ? "Cutting…" : `Use frame ${frame ?? ""}`}
      </button>
      <ErrorText error={cut.error} />
      {made ? (
        <p class="muted small kf-cut-made" aria-live="polite">
          {made}
        </p>
      ) : null}
    </fieldset>
  );
}
