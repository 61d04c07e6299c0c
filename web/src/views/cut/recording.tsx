// The Cut view's dialogue recording: with none set, the control that sets one; with one, its waveform and shot
// windows under the timeline and the Align panel that writes the windows from it.
import type { Pass } from "../../route.ts";
import type { EpisodeStatus } from "../../types.ts";
import { AlignPanel } from "./align-panel.tsx";
import { TrackPicker } from "./track-picker.tsx";
import { Waveform } from "./waveform.tsx";

export function Recording({
  ep,
  pass,
  status,
  zoom,
  selected,
  timeline,
  onSelect,
}: {
  ep: string;
  pass: Pass;
  status: EpisodeStatus;
  zoom: number;
  selected: string | null;
  timeline: { current: HTMLElement | null };
  onSelect(shot: string): void;
}) {
  const track = status.track ?? null;
  if (!track) {
    return (
      <section class="wave wave-none" aria-label="Recording">
        <span class="muted">No dialogue recording: shots are timed by the script.</span>
        <TrackPicker ep={ep} pass={pass} hasTrack={false} />
      </section>
    );
  }
  return (
    <>
      <Waveform
        ep={ep}
        track={track}
        shots={status.shots}
        zoom={zoom}
        selected={selected}
        timeline={timeline}
        onSelect={onSelect}
        tools={<TrackPicker ep={ep} pass={pass} hasTrack />}
      />
      <AlignPanel ep={ep} pass={pass} status={status} />
    </>
  );
}
