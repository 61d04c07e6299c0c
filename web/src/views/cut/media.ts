// The files a cut entry shows: the take it plays (its clip and thumbnail), looked up in the pass's takes, or in
// the other pass's for a placeholder entry (one that plays the other pass's take), read with GET /studio/episode.
import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../../api.ts";
import type { EpisodeStatus, ShotEntry, TakeSummary } from "../../types.ts";

export type OtherTakes = ReadonlyMap<string, readonly TakeSummary[]>;

/** The take a shot's cut entry plays, when the page knows it. */
export function cutTake(s: ShotEntry, other: OtherTakes): TakeSummary | null {
  const { take } = s.cut;
  if (take === null) return null;
  const takes = s.cut.placeholder ? (other.get(s.shot) ?? []) : s.takes;
  return takes.find((t) => t.take === take) ?? null;
}

/**
 * The other pass's takes of the shots whose entries play them, read again when those entries change, with the
 * service's error when the read failed (the placeholders then show no picture).
 */
export function useOtherTakes(
  ep: string,
  status: EpisodeStatus | null,
): { takes: OtherTakes; error: string | null } {
  const [other, setOther] = useState<OtherTakes>(new Map());
  const [error, setError] = useState<string | null>(null);
  const wanted = status?.shots.filter((s) => s.cut.placeholder && s.cut.take !== null) ?? [];
  const otherPass = status?.pass === "final" ? "proxy" : "final";
  const key = wanted.map((s) => `${s.shot}:${s.cut.take}`).join(",");
  useEffect(() => {
    if (!key) return;
    const ctl = new AbortController();
    api
      .get<EpisodeStatus>("episode", { ep, pass: otherPass }, ctl.signal)
      .then((e) => {
        setOther(new Map(e.shots.map((s) => [s.shot, s.takes])));
        setError(null);
      })
      .catch((err) => {
        if (!ctl.signal.aborted) setError(`the ${otherPass} pass's takes: ${errorText(err)}`);
      });
    return () => ctl.abort();
  }, [ep, otherPass, key]);
  return { takes: other, error };
}
