// Play all: the cut played in order on two <video> elements taking turns, the next clip loaded and seeked to its
// trim-in while the current one plays, so a cut plays through with no visible load between clips. Each clip
// plays from its trim-in to its out point at its own rate; a gap (no usable take) is a black card held for the
// shot's planned length. The playhead is reported on every animation frame.

export interface PlayItem {
  index: number;
  shot: string;
  kind: "clip" | "gap";
  /** The take's file URL (clips only). */
  src: string | null;
  /** Timeline start and played length, seconds. */
  start: number;
  duration: number;
  /** Played part of the file, seconds. */
  sourceIn: number;
  sourceOut: number;
}

export interface PlayerEvents {
  /** The playhead, in timeline seconds. */
  time(t: number): void;
  /** The item now shown (null: nothing), and whether the player runs. */
  state(item: PlayItem | null, playing: boolean): void;
}

/** How close to its out point a clip is handed over (about a frame at 60 Hz drawing). */
const HANDOVER_S = 0.012;

export class Player {
  private items: PlayItem[] = [];
  private k = -1;
  private front = 0;
  private playing = false;
  private raf = 0;
  private gapFrom = 0;
  private readonly vids: [HTMLVideoElement, HTMLVideoElement];

  constructor(
    a: HTMLVideoElement,
    b: HTMLVideoElement,
    private readonly on: PlayerEvents,
  ) {
    this.vids = [a, b];
    for (const v of this.vids) {
      v.preload = "auto";
      v.playsInline = true;
      v.addEventListener("ended", () => {
        if (this.playing && v === this.vids[this.front]) this.advance();
      });
    }
    this.reveal(null);
  }

  get running(): boolean {
    return this.playing;
  }

  /** Play `items` (the playable clips from the playhead on) starting at timeline time `t`. */
  play(items: PlayItem[], t: number): void {
    this.stopLoop();
    this.items = items;
    this.playing = items.length > 0;
    if (!this.playing) {
      this.on.state(null, false);
      return;
    }
    const first = items[0];
    this.start(0, Math.min(Math.max(0, t - first.start), first.duration));
    this.loop();
  }

  pause(): void {
    if (!this.playing) return;
    this.playing = false;
    this.stopLoop();
    for (const v of this.vids) v.pause();
    this.on.state(this.items[this.k] ?? null, false);
  }

  /** Show the still frame at timeline time `t` of `item` (when paused: scrubbing, trimming). */
  show(item: PlayItem | null, t: number): void {
    if (this.playing) return;
    this.items = item ? [item] : [];
    this.k = item ? 0 : -1;
    if (!item || item.kind === "gap") {
      this.reveal(item);
      this.on.state(item, false);
      return;
    }
    const v = this.vids[this.front];
    this.load(v, item, item.sourceIn + Math.min(Math.max(0, t - item.start), item.duration));
    this.reveal(item);
    this.on.state(item, false);
  }

  destroy(): void {
    this.playing = false;
    this.stopLoop();
    for (const v of this.vids) {
      v.pause();
      v.removeAttribute("src");
      v.load();
    }
  }

  private start(k: number, offset: number): void {
    this.k = k;
    const item = this.items[k];
    if (item.kind === "gap") {
      this.vids[this.front].pause();
      this.gapFrom = performance.now() - offset * 1000;
    } else {
      const v = this.vids[this.front];
      this.load(v, item, item.sourceIn + offset);
      v.muted = false;
      void v.play().catch(() => undefined);
    }
    this.reveal(item);
    this.on.state(item, true);
    this.preload(k + 1);
  }

  /** Load the next clip into the element not shown, seeked to its trim-in. */
  private preload(k: number): void {
    const next = this.items[k];
    if (next?.kind !== "clip") return;
    const back = this.vids[1 - this.front];
    back.muted = true;
    this.load(back, next, next.sourceIn);
  }

  private load(v: HTMLVideoElement, item: PlayItem, at: number): void {
    if (!item.src) return;
    if (v.dataset.src !== item.src) {
      v.dataset.src = item.src;
      v.src = item.src;
    }
    if (Math.abs(v.currentTime - at) > 0.001) v.currentTime = at;
  }

  private advance(): void {
    const k = this.k + 1;
    this.vids[this.front].pause();
    if (k >= this.items.length) {
      const last = this.items[this.items.length - 1];
      this.playing = false;
      this.stopLoop();
      this.on.time(last.start + last.duration);
      this.on.state(last, false);
      return;
    }
    // The next clip was loaded into the other element: it comes to the front.
    if (this.items[k].kind === "clip") this.front = 1 - this.front;
    this.start(k, 0);
  }

  private loop(): void {
    const tick = () => {
      if (!this.playing) return;
      const item = this.items[this.k];
      if (item.kind === "gap") {
        const s = (performance.now() - this.gapFrom) / 1000;
        this.on.time(item.start + Math.min(s, item.duration));
        if (s >= item.duration) this.advance();
      } else {
        const v = this.vids[this.front];
        const s = v.currentTime - item.sourceIn;
        this.on.time(item.start + Math.min(Math.max(0, s), item.duration));
        if (v.currentTime >= item.sourceOut - HANDOVER_S) this.advance();
      }
      if (this.playing) this.raf = requestAnimationFrame(tick);
    };
    this.raf = requestAnimationFrame(tick);
  }

  private stopLoop(): void {
    cancelAnimationFrame(this.raf);
  }

  /** Only the front element is seen; none for a gap. */
  private reveal(item: PlayItem | null): void {
    this.vids.forEach((v, i) => {
      v.classList.toggle("on", item?.kind === "clip" && i === this.front);
    });
  }
}
