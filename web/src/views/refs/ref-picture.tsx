// A reference's live file as the page shows it: the picture (asked again whenever its hash changes, so a new pick
// is not taken from the browser's cache), a voice's sample as a player, or a placeholder saying what is missing and
// which shots use it.
import { fileUrl, studioUrl } from "../../api.ts";
import type { RefInfo } from "../../types.ts";
import { missingText } from "./refs-model.ts";

/** The live picture at `width` (the service rounds it to 128, 256, 512 or 1024). */
export function liveThumb(ep: string, ref: RefInfo, width: number): string {
  return studioUrl("thumb", { ep, path: ref.path, w: width, v: ref.sha1 ?? undefined });
}

export function LivePicture({ ep, refInfo, width }: { ep: string; refInfo: RefInfo; width: number }) {
  const label = `Live ${refInfo.kind === "voice" ? "voice sample" : "picture"} of ${refInfo.name}`;
  if (!refInfo.exists) {
    return (
      <div class="live-picture missing" role="img" aria-label={`${label}: ${missingText(refInfo)}`}>
        <p>{missingText(refInfo)}</p>
      </div>
    );
  }
  if (refInfo.kind === "voice") {
    return (
      <div class="live-picture voice">
        {/* biome-ignore lint/a11y/useMediaCaption: a voice sample is the voice itself; there is nothing to caption */}
        <audio
          controls
          preload="none"
          src={`${fileUrl(ep, refInfo.path)}&v=${refInfo.sha1 ?? ""}`}
          aria-label={label}
        />
      </div>
    );
  }
  return (
    <div class="live-picture">
      <img src={liveThumb(ep, refInfo, width)} alt={label} aria-label={label} decoding="async" />
    </div>
  );
}

/** The list row's small picture: the live file, or an empty box that says why. */
export function RefChip({ ep, refInfo }: { ep: string; refInfo: RefInfo }) {
  if (refInfo.exists && refInfo.kind !== "voice") {
    return <img class="ref-chip" src={liveThumb(ep, refInfo, 128)} alt="" loading="lazy" decoding="async" />;
  }
  return (
    <span class={`ref-chip empty${refInfo.exists ? " voice" : ""}`} aria-hidden="true">
      {refInfo.kind === "voice" ? "♪" : refInfo.exists ? "" : "–"}
    </span>
  );
}
