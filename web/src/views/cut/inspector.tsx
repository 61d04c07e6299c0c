// The clip inspector: the selected entry's take and timing, its trims as frame numbers, out / flag / lock, its
// note, and the sound it plays (its own, silence, another take's, or a file of the episode). Each change is
// written at once with the whole cut.
import { useEffect, useState } from "preact/hooks";
import type { CutAudio, EpisodeStatus, ShotEntry } from "../../types.ts";
import { ErrorText, seconds } from "../../ui.tsx";
import type { EntryPatch } from "./entries.ts";
import { maxTrim, type Placed } from "./timeline.ts";

interface Props {
  status: EpisodeStatus;
  shot: ShotEntry;
  clip: Placed;
  busy: boolean;
  error: string | null;
  onPatch(patch: EntryPatch): void;
}

const tNN = (n: number) => `t${String(n).padStart(2, "0")}`;

export function Inspector({ status, shot, clip, busy, error, onPatch }: Props) {
  const c = shot.cut;
  const fps = status.fps;
  const takeText =
    c.take === null
      ? "no take yet"
      : `${tNN(c.take)}${c.placeholder ? ` of the ${c.pass} pass` : ""}${c.picked ? " (picked)" : " (latest usable)"}`;
  return (
    <section class="cut-inspector" aria-label={`Clip ${shot.shot}`}>
      <header>
        <h2>{shot.shot}</h2>
        <span class="muted">{takeText}</span>
      </header>
      {shot.action ? <p class="cut-action">{shot.action}</p> : null}
      <dl class="cut-facts">
        <dt>Plays</dt>
        <dd>
          {clip.kind === "gap"
            ? `nothing yet${clip.duration ? ` (planned ${seconds(clip.duration)})` : ""}`
            : `${seconds(clip.duration)} · ${Math.round(clip.duration * fps)} frames at ${fps} fps`}
        </dd>
        {clip.kind === "clip" && c.frames !== null ? (
          <>
            <dt>Take</dt>
            <dd>
              {c.frames} frames at {c.fps} fps ({seconds(c.frames / c.fps)})
            </dd>
          </>
        ) : null}
        <dt>Sound</dt>
        <dd>{c.audio_why ?? (c.audio_file ? "its own sound" : "–")}</dd>
      </dl>
      <fieldset class="cut-trims" disabled={busy || clip.kind !== "clip" || c.locked}>
        <legend>Trims (frames at {fps} fps)</legend>
        <FrameInput
          label="Trim in"
          value={c.trim_in ?? 0}
          max={clip.kind === "clip" ? maxTrim(clip, c.trim_out ?? 0) : undefined}
          onCommit={(v) => onPatch({ trim_in: v })}
        />
        <FrameInput
          label="Trim out"
          value={c.trim_out ?? 0}
          max={clip.kind === "clip" ? maxTrim(clip, c.trim_in ?? 0) : undefined}
          onCommit={(v) => onPatch({ trim_out: v })}
        />
        {c.locked ? <p class="muted">Locked: unlock the clip to trim it.</p> : null}
      </fieldset>
      <div class="cut-checks">
        <label>
          <input
            type="checkbox"
            checked={c.out}
            disabled={busy}
            onChange={(e) => onPatch({ out: e.currentTarget.checked })}
          />
          Leave out
        </label>
        <label>
          <input
            type="checkbox"
            checked={c.flag}
            disabled={busy}
            onChange={(e) => onPatch({ flag: e.currentTarget.checked })}
          />
          Flag
        </label>
        <label>
          <input
            type="checkbox"
            checked={c.locked}
            disabled={busy}
            onChange={(e) => onPatch({ locked: e.currentTarget.checked })}
          />
          Lock
        </label>
      </div>
      <NoteInput value={c.note ?? ""} disabled={busy} onCommit={(note) => onPatch({ note })} />
      <AudioChoice status={status} shot={shot} disabled={busy} onCommit={(audio) => onPatch({ audio })} />
      <ErrorText error={error} />
    </section>
  );
}

function FrameInput({
  label,
  value,
  max,
  onCommit,
}: {
  label: string;
  value: number;
  max: number | undefined;
  onCommit(v: number): void;
}) {
  const [text, setText] = useState(String(value));
  useEffect(() => setText(String(value)), [value]);
  const commit = () => {
    const v = Number(text);
    if (text.trim() === "" || !Number.isInteger(v) || v < 0) {
      setText(String(value));
      return;
    }
    if (v !== value) onCommit(v);
  };
  return (
    <label>
      {label}
      <input
        type="number"
        min={0}
        max={max !== undefined && Number.isFinite(max) ? max : undefined}
        step={1}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onChange={commit}
        onKeyDown={(e) => {
          if (e.key === "Enter") commit();
        }}
      />
    </label>
  );
}

function NoteInput({
  value,
  disabled,
  onCommit,
}: {
  value: string;
  disabled: boolean;
  onCommit(v: string): void;
}) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  return (
    <label class="cut-note">
      Note
      <input
        value={text}
        disabled={disabled}
        placeholder="A note for this clip"
        onInput={(e) => setText(e.currentTarget.value)}
        onChange={() => {
          if (text !== value) onCommit(text);
        }}
      />
    </label>
  );
}

type Source = "clip" | "none" | "take" | "file";

/** The entry's sound: the clip's own (no audio field), silence, another take's, or a file. */
function AudioChoice({
  status,
  shot,
  disabled,
  onCommit,
}: {
  status: EpisodeStatus;
  shot: ShotEntry;
  disabled: boolean;
  onCommit(a: CutAudio | null): void;
}) {
  const a = shot.cut.audio;
  const initial: Source = !a
    ? "clip"
    : a.source === "none" || a.source === "take" || a.source === "file"
      ? a.source
      : "clip";
  const [source, setSource] = useState<Source>(initial);
  const [from, setFrom] = useState(a?.shot ?? shot.shot);
  const [take, setTake] = useState<number | null>(a?.take ?? null);
  const [path, setPath] = useState(a?.path ?? "");
  const [gain, setGain] = useState(String(a?.gain ?? 1));
  const [offset, setOffset] = useState(String(a?.offset ?? 0));
  const [start, setStart] = useState(String(a?.start ?? 0));
  const key = JSON.stringify(a);
  useEffect(() => {
    setSource(initial);
    setFrom(a?.shot ?? shot.shot);
    setTake(a?.take ?? null);
    setPath(a?.path ?? "");
    setGain(String(a?.gain ?? 1));
    setOffset(String(a?.offset ?? 0));
    setStart(String(a?.start ?? 0));
    // Reset the form when the stored source changes (another clip, or an edit landing).
  }, [key, shot.shot]);
  const fromShot = status.shots.find((s) => s.shot === from);
  const usable = (fromShot?.takes ?? []).filter((t) => t.status === "ok" && t.has_video);
  const build = (): CutAudio | null => {
    if (source === "clip") return null;
    const timing: Partial<CutAudio> = {};
    if (Number(gain) !== 1) timing.gain = Number(gain);
    if (Number(offset) !== 0) timing.offset = Number(offset);
    if (source === "none") return { source: "none" };
    if (source === "take") {
      // A take source keeps the pass it names (the one shown here).
      return {
        source: "take",
        shot: from,
        take: take ?? usable[usable.length - 1]?.take,
        pass: status.pass,
        ...timing,
      };
    }
    if (Number(start) !== 0) timing.start = Number(start);
    return { source: "file", path: path.trim(), ...timing };
  };
  const unchanged = JSON.stringify(build()) === JSON.stringify(a ?? null);
  const incomplete =
    (source === "take" && (take ?? usable[usable.length - 1]?.take) === undefined) ||
    (source === "file" && path.trim() === "");
  return (
    <form
      class="cut-audio"
      aria-label="Sound"
      onSubmit={(e) => {
        e.preventDefault();
        onCommit(build());
      }}
    >
      <label>
        Sound
        <select
          value={source}
          disabled={disabled}
          onChange={(e) => setSource(e.currentTarget.value as Source)}
        >
          <option value="clip">Its own sound</option>
          <option value="none">Silence</option>
          <option value="take">Another take's sound</option>
          <option value="file">A file of the episode</option>
        </select>
      </label>
      {source === "take" ? (
        <div class="row">
          <label>
            Shot
            <select
              value={from}
              disabled={disabled}
              onChange={(e) => {
                setFrom(e.currentTarget.value);
                setTake(null);
              }}
            >
              {status.shots.map((s) => (
                <option key={s.shot} value={s.shot}>
                  {s.shot}
                </option>
              ))}
            </select>
          </label>
          <label>
            Take
            <select
              value={String(take ?? usable[usable.length - 1]?.take ?? "")}
              disabled={disabled || usable.length === 0}
              onChange={(e) => setTake(Number(e.currentTarget.value))}
            >
              {usable.length === 0 ? <option value="">no usable take</option> : null}
              {usable.map((t) => (
                <option key={t.take} value={t.take}>
                  {tNN(t.take)}
                </option>
              ))}
            </select>
          </label>
        </div>
      ) : null}
      {source === "file" ? (
        <div class="row">
          <label>
            File (in the episode)
            <input
              value={path}
              disabled={disabled}
              placeholder="audio/line.wav"
              onInput={(e) => setPath(e.currentTarget.value)}
            />
          </label>
          <label>
            From (s)
            <input
              type="number"
              min={0}
              step={0.01}
              value={start}
              disabled={disabled}
              onInput={(e) => setStart(e.currentTarget.value)}
            />
          </label>
        </div>
      ) : null}
      {source === "take" || source === "file" ? (
        <div class="row">
          <label>
            Gain
            <input
              type="number"
              min={0}
              max={4}
              step={0.05}
              value={gain}
              disabled={disabled}
              onInput={(e) => setGain(e.currentTarget.value)}
            />
          </label>
          <label>
            Offset (s)
            <input
              type="number"
              step={0.01}
              value={offset}
              disabled={disabled}
              onInput={(e) => setOffset(e.currentTarget.value)}
            />
          </label>
        </div>
      ) : null}
      {!unchanged ? (
        <button type="submit" disabled={disabled || incomplete}>
          Use this sound
        </button>
      ) : null}
    </form>
  );
}
