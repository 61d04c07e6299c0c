// The episode's recording chosen from the page: a file picked here is uploaded to POST /studio/track (it lands in
// the episode's audio/ folder and becomes the series config's `audio.track`), with the bytes sent shown while it
// goes; a recording set can be replaced the same way or cleared (the file itself stays).
import { useRef, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useStudio } from "../../context.ts";
import type { Pass } from "../../route.ts";
import type { TrackAnswer } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import { type Progress, uploadFile } from "../refs/upload.ts";

/** The recordings the service takes. */
const ACCEPT = ".wav,.mp3,.flac,.ogg,.m4a,.aac,.opus";

export function TrackPicker({ ep, pass, hasTrack }: { ep: string; pass: Pass; hasTrack: boolean }) {
  const studio = useStudio();
  const input = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const upload = useAction(async (file: File) => {
    setDone(null);
    try {
      const a = await uploadFile<TrackAnswer>(
        "track",
        [
          ["ep", ep],
          ["pass", pass],
        ],
        file,
        setProgress,
      ).done;
      setDone(
        `${a.path}${a.copied ? "" : " (already in the episode)"}${a.reformatted ? " · series config reformatted" : ""}`,
      );
    } finally {
      setProgress(null);
      await studio.refreshEpisode();
    }
  });
  const clear = useAction(async () => {
    setDone(null);
    await api.post<TrackAnswer>("track", { ep, track: null, pass });
    await studio.refreshEpisode();
  });
  const pct = progress?.total ? Math.round((progress.loaded / progress.total) * 100) : null;
  return (
    <div class="track-picker">
      <input
        ref={input}
        type="file"
        class="hidden-file"
        accept={ACCEPT}
        tabIndex={-1}
        aria-hidden="true"
        onChange={(e) => {
          const f = e.currentTarget.files?.[0];
          e.currentTarget.value = "";
          if (f) void upload.run(f);
        }}
      />
      <button
        type="button"
        class={hasTrack ? "" : "primary"}
        onClick={() => input.current?.click()}
        disabled={upload.busy}
        title="A dialogue recording (wav, mp3, flac, ogg, m4a, aac, opus) the shots' audio windows point into"
      >
        {hasTrack ? "Replace recording…" : "Set recording…"}
      </button>
      {hasTrack ? (
        <button
          type="button"
          class="ghost"
          onClick={() => clear.run()}
          disabled={clear.busy || upload.busy}
          title="The episode stops using the recording; the file stays in audio/"
        >
          Clear recording
        </button>
      ) : null}
      {upload.busy ? (
        <span class="muted" role="status">
          Uploading{pct !== null ? ` ${pct}%` : "…"}
        </span>
      ) : null}
      {done ? (
        <span class="muted" role="status">
          Recording set: {done}
        </span>
      ) : null}
      <ErrorText error={upload.error ?? clear.error} />
    </div>
  );
}
