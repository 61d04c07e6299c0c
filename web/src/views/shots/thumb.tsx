// A take's picture: its thumbnail, and while the pointer moves over it the strip cell under the pointer, so a take
// can be skimmed without playing it.
import { useState } from "preact/hooks";
import { fileUrl, thumbUrl } from "../../api.ts";
import type { TakeSummary } from "../../types.ts";
import { stripBackground, stripCell } from "./strip.ts";

export function Thumb({
  ep,
  take,
  width,
  label,
}: {
  ep: string;
  take: TakeSummary | null;
  /** The thumbnail width asked of the service (it rounds up to 128, 256, 512 or 1024). */
  width: number;
  label: string;
}) {
  const [cell, setCell] = useState<number | null>(null);
  if (!take?.thumb) {
    const why = !take
      ? "no take"
      : take.status === "queued"
        ? "rendering…"
        : take.status === "failed"
          ? "failed"
          : "";
    return (
      <span
        class={`thumb empty${take ? ` take-${take.status}` : ""}`}
        role="img"
        aria-label={`${label}: ${why || "no picture"}`}
      >
        {take ? why : null}
      </span>
    );
  }
  const strip = take.strip;
  const bg = strip && cell !== null ? stripBackground(cell) : null;
  return (
    <span
      class="thumb"
      onPointerMove={
        strip
          ? (e) => {
              const box = e.currentTarget.getBoundingClientRect();
              setCell(stripCell(e.clientX - box.left, box.width));
            }
          : undefined
      }
      onPointerLeave={() => setCell(null)}
    >
      <img
        src={thumbUrl(ep, take.thumb, width)}
        alt={label}
        loading="lazy"
        decoding="async"
        draggable={false}
      />
      {bg && strip ? (
        <span
          class="strip"
          aria-hidden="true"
          style={{
            backgroundImage: `url("${fileUrl(ep, strip)}")`,
            backgroundSize: bg.size,
            backgroundPosition: bg.position,
          }}
        />
      ) : null}
    </span>
  );
}
