// An episode's references (GET /studio/refs), shared by the References view and the shot detail's keyframes:
// one list per episode while anything shows it, patched in place by `studio.ref` events and read again, at most a
// few times a second, to bring what an event does not carry (pictures, hashes, stitched sheets).
import { type Signal, signal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { api, errorText } from "../../api.ts";
import { useStudio } from "../../context.ts";
import type { Studio } from "../../studio.ts";
import type { RefEvent, RefInfo, RefsAnswer } from "../../types.ts";
import { eventConcerns, withRef, withRefEvent } from "./refs-model.ts";

export interface RefsStore {
  ep: string;
  answer: Signal<RefsAnswer | null>;
  error: Signal<string | null>;
  /** Read the list again now. */
  reload(): Promise<void>;
  /** Put one ref's newer listing in place (every mutating refs route answers the ref as listed). */
  replace(ref: RefInfo): void;
}

interface Held {
  store: RefsStore;
  users: number;
  stop(): void;
}

const held = new Map<string, Held>();

/** The reference the References view shows, kept while the page is open (other views open it on one). */
export const chosenRef = signal<string | null>(null);

/** How long after an event the list is read again (events come in bursts: discarded, cleared, episode). */
const SETTLE_MS = 250;

function open(studio: Studio, ep: string): Held {
  const answer = signal<RefsAnswer | null>(null);
  const error = signal<string | null>(null);
  let generation = 0;
  const reload = async () => {
    const mine = ++generation;
    try {
      const next = await api.get<RefsAnswer>("refs", { ep });
      if (mine !== generation) return;
      answer.value = next;
      error.value = null;
    } catch (err) {
      if (mine === generation) error.value = errorText(err);
    }
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const later = () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void reload();
    }, SETTLE_MS);
  };
  const store: RefsStore = {
    ep,
    answer,
    error,
    reload,
    replace(ref) {
      const now = answer.value;
      // A read still on its way was asked before this change: its answer must not undo it.
      generation++;
      if (now) answer.value = { ...now, refs: withRef(now.refs, ref) };
    },
  };
  const offs = [
    studio.on("studio.ref", (data) => {
      const e = data as RefEvent;
      if (!e?.ref || !eventConcerns(answer.value?.refs ?? null, ep, e)) return;
      const now = answer.value;
      const next = now && e.ep === ep ? withRefEvent(now.refs, e) : null;
      if (now && next) answer.value = { ...now, refs: next };
      later();
    }),
    // A build, a series config saved or defaults changed can add, drop or re-word references.
    studio.on("studio.episode", (data) => {
      const e = data as { ep?: string };
      if (!e?.ep || e.ep === ep) later();
    }),
    studio.socket.onReconnect(() => void reload()),
  ];
  void reload();
  return {
    store,
    users: 0,
    stop() {
      clearTimeout(timer);
      for (const off of offs) off();
    },
  };
}

/** The references of `ep`, kept live while the component is shown. */
export function useRefs(ep: string): RefsStore {
  const studio = useStudio();
  let h = held.get(ep);
  if (!h) {
    h = open(studio, ep);
    held.set(ep, h);
  }
  const mine = h;
  useEffect(() => {
    mine.users++;
    return () => {
      mine.users--;
      // Kept a moment after the last user leaves, so switching views does not read the list twice.
      setTimeout(() => {
        if (mine.users === 0 && held.get(ep) === mine) {
          mine.stop();
          held.delete(ep);
        }
      }, 5000);
    };
  }, [mine, ep]);
  return mine.store;
}
