// One GET answer for a panel, asked again whenever `key` changes or `reload()` is called; an answer that arrives
// after a newer question is dropped, so a slow first read never overwrites the read a save asked for.
import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../../api.ts";

type Query = Record<string, string | number | boolean | null | undefined>;

export interface Answer<T> {
  value: T | null;
  error: string | null;
  busy: boolean;
  reload(): void;
}

export function useAnswer<T>(path: string, query: Query = {}, key: unknown = null): Answer<T> {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(true);
  const [round, setRound] = useState(0);
  const asked = JSON.stringify([path, query, key, round]);
  useEffect(() => {
    let current = true;
    setBusy(true);
    api.get<T>(path, query).then(
      (v) => {
        if (!current) return;
        setValue(v);
        setError(null);
        setBusy(false);
      },
      (err) => {
        if (!current) return;
        setError(errorText(err));
        setBusy(false);
      },
    );
    return () => {
      current = false;
    };
  }, [asked]);
  return { value, error, busy, reload: () => setRound((r) => r + 1) };
}
