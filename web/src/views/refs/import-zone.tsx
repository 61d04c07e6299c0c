// Importing files into a reference (or one of a character's views): drop them on the zone or choose them, each
// posted in turn with its progress shown; the service's answer (the ref as listed) replaces the ref in place.
import { useRef, useState } from "preact/hooks";
import { errorText } from "../../api.ts";
import type { RefInfo, RefViewName } from "../../types.ts";
import { ErrorText } from "../../ui.tsx";
import { byteSize, importFields, importRefusal, uploadPercent, viewTitle } from "./refs-model.ts";
import { type Progress, uploadFile } from "./upload.ts";

interface Sending {
  name: string;
  progress: Progress;
  abort(): void;
}

export function ImportZone({
  ep,
  refInfo,
  view,
  pick,
  onDone,
  compact = false,
}: {
  ep: string;
  refInfo: RefInfo;
  view: RefViewName | null;
  /** Make each imported file live (the form's `pick`). */
  pick: boolean;
  onDone(ref: RefInfo | null): void;
  /** A slim zone under a view column. */
  compact?: boolean;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [sending, setSending] = useState<Sending | null>(null);
  const [error, setError] = useState<string | null>(null);
  const where = `${refInfo.name}${view ? ` ${viewTitle(view).toLowerCase()}` : ""}`;
  const voice = refInfo.kind === "voice";

  const send = async (files: File[]) => {
    if (sending || !files.length) return;
    setError(null);
    const problems: string[] = [];
    for (const file of files) {
      const refusal = importRefusal(refInfo, file.name, file.size);
      if (refusal) {
        problems.push(refusal);
        continue;
      }
      const upload = uploadFile<RefInfo>(
        "refs/import",
        importFields(ep, refInfo.id, view, pick),
        file,
        (progress) => setSending((s) => (s ? { ...s, progress } : s)),
      );
      setSending({ name: file.name, progress: { loaded: 0, total: file.size }, abort: upload.abort });
      try {
        const answer = await upload.done;
        onDone(answer && typeof answer === "object" && typeof answer.id === "string" ? answer : null);
      } catch (err) {
        problems.push(files.length > 1 ? `${file.name}: ${errorText(err)}` : errorText(err));
      }
    }
    setSending(null);
    setError(problems.length ? problems.join("\n") : null);
  };

  const pct = sending ? uploadPercent(sending.progress.loaded, sending.progress.total) : null;
  return (
    <fieldset
      class={`import-zone${over ? " over" : ""}${compact ? " compact" : ""}`}
      aria-label={`Import into ${where}`}
      onDragOver={(e) => {
        if (!e.dataTransfer?.types.includes("Files")) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = "copy";
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        void send([...(e.dataTransfer?.files ?? [])]);
      }}
    >
      <input
        ref={input}
        type="file"
        class="hidden-file"
        accept={voice ? ".wav,.mp3,.flac,.ogg,.m4a" : ".png,.jpg,.jpeg,.webp"}
        multiple
        tabIndex={-1}
        aria-hidden="true"
        onChange={(e) => {
          const files = [...(e.currentTarget.files ?? [])];
          e.currentTarget.value = "";
          void send(files);
        }}
      />
      {sending ? (
        <div class="upload">
          <span class="upload-name">{sending.name}</span>
          <progress
            max={100}
            value={pct ?? undefined}
            aria-label={`Uploading ${sending.name}`}
            aria-valuetext={pct === null ? "sending" : `${pct}%`}
          />
          <span class="muted num">
            {pct === null ? "…" : `${pct}%`}
            {sending.progress.total ? ` of ${byteSize(sending.progress.total)}` : ""}
          </span>
          <button type="button" class="ghost" onClick={() => sending.abort()}>
            Stop
          </button>
        </div>
      ) : (
        <p>
          <span class="muted">Drop {voice ? "a sound" : "pictures"} here or </span>
          <button
            type="button"
            class="link-button"
            onClick={() => input.current?.click()}
            aria-label={`Choose a file to import into ${where}`}
          >
            choose…
          </button>
        </p>
      )}
      <ErrorText error={error} />
    </fieldset>
  );
}
