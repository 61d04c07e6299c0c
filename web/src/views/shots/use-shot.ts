// A shot's detail (GET /studio/shot) kept current: read again when one of its takes changes (`studio.take`) or the
// episode changes (`studio.episode`: discards, overrides, saves), a newer read always winning over an older one.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../../api.ts";
import { useStudio } from "../../context.ts";
import type { Pass } from "../../route.ts";
import type { ShotDetail } from "../../types.ts";

export interface ShotState {
  detail: ShotDetail | null;
  error: string | null;
  reload(): Promise<void>;
}

/** Events come in bursts (a render of many shots): one read per burst. */
const SETTLE_MS = 150;
/** Holding J runs through shots faster than they load: a shot is read once it stays open this long. */
export const OPEN_DELAY_MS = 90;

export function useShot(ep: string, pass: Pass, shot: string): ShotState {
  const studio = useStudio();
  const [detail, setDetail] = useState<ShotDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    try {
      const d = await api.get<ShotDetail>("shot", { ep, pass, shot });
      if (mine !== generation.current) return;
      setDetail(d);
      setError(null);
    } catch (err) {
      if (mine === generation.current) setError(errorText(err));
    }
  }, [ep, pass, shot]);
  useEffect(() => {
    setDetail(null);
    setError(null);
    let timer: ReturnType<typeof setTimeout> | undefined = setTimeout(() => void reload(), OPEN_DELAY_MS);
    const later = () => {
      clearTimeout(timer);
      timer = setTimeout(() => void reload(), SETTLE_MS);
    };
    const offs = [
      studio.on("studio.take", (data) => {
        const e = data as { ep?: string; pass?: string; shot?: string };
        if (e?.ep === ep && e.pass === pass && e.shot === shot) later();
      }),
      studio.on("studio.episode", (data) => {
        const e = data as { ep?: string } | null;
        if (!e?.ep || e.ep === ep) later();
      }),
      studio.socket.onReconnect(later),
    ];
    return () => {
      clearTimeout(timer);
      for (const off of offs) off();
      generation.current++;
    };
  }, [studio, reload, ep, pass, shot]);
  return { detail, error, reload };
}
