// "Use this take's voice": a span of the take playing (the whole take by default, at most 30 s; its ends can be
// set at the player's playhead) cut into a voice reference's candidates with POST /studio/refs/voice-from-take,
// made live when asked (or only when the voice has no sample yet). The shot's own characters' voices come first.
import type { RefObject } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { api } from "../../api.ts";
import type { Pass } from "../../route.ts";
import type { RefInfo, TakeDetail } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import { useRefs } from "../refs/use-refs.ts";
import { takeName } from "./report.ts";
import { defaultSpan, spanProblem, takeLength, voiceChoices, voiceFromTakeBody } from "./voice-span.ts";

type VoiceAnswer = Omit<RefInfo, "picked"> & {
  picked: boolean;
  take: number;
  source: { shot: string; take: number; pass: Pass; start: number; end: number; file: string };
};

interface VoiceProps {
  ep: string;
  pass: Pass;
  shot: string;
  /** The take playing; it has sound. */
  clip: TakeDetail;
  /** The shot's characters: their voices are offered first. */
  subjects: readonly string[];
  player: RefObject<HTMLVideoElement | null>;
}

export function VoiceFromTake(props: VoiceProps) {
  const [open, setOpen] = useState(false);
  return (
    <details class="voice-take" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Use this take's voice…</summary>
      {open ? <VoiceForm {...props} /> : null}
    </details>
  );
}

function VoiceForm({ ep, pass, shot, clip, subjects, player }: VoiceProps) {
  const refs = useRefs(ep);
  const voices = useMemo(
    () => voiceChoices(refs.answer.value?.refs ?? [], subjects),
    [refs.answer.value, subjects],
  );
  const length = takeLength(clip);
  const [ref, setRef] = useState<string>("");
  const [start, setStart] = useState(() => defaultSpan(length).start);
  const [end, setEnd] = useState(() => defaultSpan(length).end);
  const [pick, setPick] = useState<"auto" | "yes" | "no">("auto");
  const [made, setMade] = useState<VoiceAnswer | null>(null);
  const chosen = ref || voices[0]?.id || "";
  useEffect(() => {
    const d = defaultSpan(length);
    setStart(d.start);
    setEnd(d.end);
    setMade(null);
  }, [clip.take, length]);
  const problem = spanProblem(start, end, length);
  const send = useAction(async () => {
    setMade(null);
    const a = await api.post<VoiceAnswer>(
      "refs/voice-from-take",
      voiceFromTakeBody({ ep, shot, take: clip.take, pass }, chosen, start, end, pick),
    );
    setMade(a);
    await refs.reload();
  });
  const at = () => Math.round((player.current?.currentTime ?? 0) * 100) / 100;
  const name = takeName(shot, clip.take);
  if (refs.error.value && !refs.answer.value) return <ErrorText error={refs.error.value} />;
  if (!refs.answer.value) return <p class="muted">Reading the references…</p>;
  if (!voices.length) {
    return (
      <p class="muted">
        No voice references: give a character a <code>voice</code> or <code>voice_sample</code> in the series
        config.
      </p>
    );
  }
  return (
    <form
      class="voice-take-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!problem) void send.run();
      }}
    >
      <label>
        Voice
        <select value={chosen} onChange={(e) => setRef(e.currentTarget.value)}>
          {voices.map((v) => (
            <option key={v.id} value={v.id}>
              {v.name}
              {v.inShot ? " (in this shot)" : ""}
            </option>
          ))}
        </select>
      </label>
      <label>
        From (s)
        <input
          type="number"
          min={0}
          step={0.01}
          value={start}
          onInput={(e) => setStart(Number(e.currentTarget.value))}
        />
      </label>
      <button
        type="button"
        class="ghost"
        onClick={() => setStart(at())}
        aria-label="Start at the player's playhead"
      >
        ⇤ here
      </button>
      <label>
        To (s)
        <input
          type="number"
          min={0}
          step={0.01}
          value={end}
          onInput={(e) => setEnd(Number(e.currentTarget.value))}
        />
      </label>
      <button
        type="button"
        class="ghost"
        onClick={() => setEnd(at())}
        aria-label="End at the player's playhead"
      >
        here ⇥
      </button>
      <label>
        Make it live
        <select value={pick} onChange={(e) => setPick(e.currentTarget.value as "auto" | "yes" | "no")}>
          <option value="auto">if the voice has none</option>
          <option value="yes">yes</option>
          <option value="no">no, keep as a candidate</option>
        </select>
      </label>
      <button type="submit" class="primary" disabled={send.busy || !!problem || !chosen}>
        {send.busy ? "Cutting…" : `Cut from ${name}`}
      </button>
      {problem ? <p class="muted small">{problem}</p> : null}
      <ErrorText error={send.error} />
      {made ? (
        <p class="muted" role="status">
          {made.name}: candidate t{String(made.take).padStart(2, "0")} cut from {made.source.shot} t
          {String(made.source.take).padStart(2, "0")}, {made.source.start.toFixed(2)}–
          {made.source.end.toFixed(2)} s{made.picked ? " · now the live sample" : " · kept as a candidate"}
        </p>
      ) : null}
    </form>
  );
}
