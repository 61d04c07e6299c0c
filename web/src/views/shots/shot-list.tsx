// The shot list: one fixed-height row per shot in script order, drawn only around what is in view so long
// episodes scroll as fast as short ones; a click opens a shot, ctrl/shift clicks and checkboxes select for render.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { seconds } from "../../ui.tsx";
import type { ClickMode, ShotRow } from "./rows.ts";
import { Thumb } from "./thumb.tsx";
import { revealRow, rowWindow } from "./window.ts";

/** Row height in pixels; the stylesheet's `.shot-row` height matches it. */
export const ROW_HEIGHT = 60;

export function ShotList({
  ep,
  rows,
  current,
  selected,
  onOpen,
  onSelect,
}: {
  ep: string;
  rows: readonly ShotRow[];
  current: string | null;
  selected: ReadonlySet<string>;
  onOpen(shot: string): void;
  onSelect(shot: string, mode: ClickMode): void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [scroll, setScroll] = useState(0);
  const [height, setHeight] = useState(0);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    setHeight(el.clientHeight);
    const watch = new ResizeObserver(() => setHeight(el.clientHeight));
    watch.observe(el);
    return () => watch.disconnect();
  }, []);
  const at = current ? rows.findIndex((r) => r.entry.shot === current) : -1;
  // Moving to a shot from the keyboard (or a link) scrolls it into view.
  useEffect(() => {
    const el = box.current;
    if (!el || at < 0) return;
    const top = revealRow(at, ROW_HEIGHT, el.scrollTop, el.clientHeight);
    if (top !== el.scrollTop) el.scrollTop = top;
  }, [at]);
  const w = rowWindow(rows.length, ROW_HEIGHT, scroll, height);
  return (
    <div
      class="shot-list"
      ref={box}
      onScroll={(e) => setScroll(e.currentTarget.scrollTop)}
      // The list scrolls on its own; keyboard users move with J/K and the arrows.
      tabIndex={-1}
    >
      <ol class="shot-rows" aria-label="Shots" style={{ height: `${w.total}px` }}>
        {rows.slice(w.start, w.end).map((r, i) => (
          <Row
            key={r.entry.shot}
            ep={ep}
            row={r}
            top={(w.start + i) * ROW_HEIGHT}
            position={w.start + i + 1}
            count={rows.length}
            current={r.entry.shot === current}
            selected={selected.has(r.entry.shot)}
            onOpen={onOpen}
            onSelect={onSelect}
          />
        ))}
      </ol>
    </div>
  );
}

function Row({
  ep,
  row,
  top,
  position,
  count,
  current,
  selected,
  onOpen,
  onSelect,
}: {
  ep: string;
  row: ShotRow;
  top: number;
  position: number;
  count: number;
  current: boolean;
  selected: boolean;
  onOpen(shot: string): void;
  onSelect(shot: string, mode: ClickMode): void;
}) {
  const e = row.entry;
  const id = e.shot;
  const latest = row.latest;
  const missing = e.missing_refs.length;
  return (
    <li
      class={`shot-row${current ? " current" : ""}${selected ? " selected" : ""}`}
      style={{ top: `${top}px` }}
      aria-setsize={count}
      aria-posinset={position}
    >
      <input
        type="checkbox"
        checked={selected}
        aria-label={`Select ${id} for rendering`}
        // A click (or Space) toggles; with shift it takes the range from the last shot clicked.
        onClick={(ev) => onSelect(id, ev.shiftKey ? "range" : "toggle")}
      />
      <button
        type="button"
        class="shot-open"
        aria-current={current ? "true" : undefined}
        onClick={(ev) => {
          if (ev.shiftKey) onSelect(id, "range");
          else if (ev.ctrlKey || ev.metaKey) onSelect(id, "toggle");
          else onOpen(id);
        }}
      >
        <Thumb ep={ep} take={row.shown ?? row.latest} width={128} label={`${id} picture`} />
        <span class="shot-name">
          <strong>{id}</strong>
          <span class="muted"> {e.sequence}</span>
          {e.orphan ? <span class="tag warn">not in script</span> : null}
          {e.action ? <span class="shot-action">{e.action}</span> : null}
        </span>
        <span class="shot-len num">
          {seconds(e.seconds)}
          <span class="muted">{e.length}f</span>
        </span>
        <span class="shot-target">
          {e.target}
          {e.target_source !== "default" ? <span class="muted">{e.target_source}</span> : null}
        </span>
        <span class="shot-status">
          <span class={`status ${row.status}`}>
            {row.status === "none"
              ? "no take"
              : `t${String(latest?.take ?? 0).padStart(2, "0")} ${row.status}`}
          </span>
          {row.picked ? (
            <span class="tag" title="The cut plays the take picked by hand">
              picked
            </span>
          ) : null}
        </span>
        <span class="shot-tags">
          {row.stale.map((s) => (
            <span key={s} class="tag stale" title={`Out of date: ${s} changed`}>
              {s}
            </span>
          ))}
          {e.override?.fields.length && !e.override.stale ? (
            <span class="tag" title={`Overridden: ${e.override.fields.join(", ")}`}>
              override
            </span>
          ) : null}
          {missing ? (
            <span class="tag warn" title={e.missing_refs.map((m) => `${m.slot}: ${m.path}`).join("\n")}>
              ⚠ {missing} ref{missing === 1 ? "" : "s"} missing
            </span>
          ) : null}
        </span>
      </button>
    </li>
  );
}
