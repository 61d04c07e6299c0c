// Small pieces every view uses: an error shown as the service wrote it, and actions that track their own busy
// state and error next to the control that started them.
import type { ComponentChildren } from "preact";
import { useCallback, useRef, useState } from "preact/hooks";
import { errorText } from "./api.ts";

export function ErrorText({ error, id }: { error: string | null | undefined; id?: string }) {
  if (!error) return null;
  return (
    <p class="error" role="alert" id={id}>
      {error}
    </p>
  );
}

export interface Action<A extends unknown[]> {
  run(...args: A): Promise<void>;
  busy: boolean;
  error: string | null;
  clear(): void;
}

/** An async action: `busy` while it runs, `error` (the service's message) when it fails; a second run waits. */
export function useAction<A extends unknown[]>(fn: (...args: A) => Promise<unknown>): Action<A> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(fn);
  latest.current = fn;
  const running = useRef(false);
  const run = useCallback(async (...args: A) => {
    if (running.current) return;
    running.current = true;
    setBusy(true);
    setError(null);
    try {
      await latest.current(...args);
    } catch (err) {
      setError(errorText(err));
    } finally {
      running.current = false;
      setBusy(false);
    }
  }, []);
  return { run, busy, error, clear: () => setError(null) };
}

export function Panel({
  title,
  children,
  actions,
}: {
  title: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <section class="panel" aria-label={title}>
      <header class="panel-head">
        <h2>{title}</h2>
        {actions ? <div class="panel-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/** Seconds as the editor shows them: `12.4 s`, `1:05.2` past a minute. */
export function seconds(s: number | null | undefined): string {
  if (s === null || s === undefined || !Number.isFinite(s)) return "–";
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m}:${(s - m * 60).toFixed(1).padStart(4, "0")}`;
}
