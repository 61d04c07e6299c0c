// The video targets and backends a render can choose from, read once per episode (targets include the show's own)
// and shared by every control that offers them.
import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../../api.ts";
import type { BackendInfo, TargetInfo } from "../../types.ts";

export interface Choices {
  targets: TargetInfo[];
  backends: BackendInfo[];
  error: string | null;
}

const targetsByEp = new Map<string, Promise<TargetInfo[]>>();
let backendsRead: { at: number; list: Promise<BackendInfo[]> } | null = null;
/** Backends come and go (a ComfyUI started later): their state is asked again after this long. */
const BACKENDS_FRESH_MS = 30_000;

function videoTargets(ep: string): Promise<TargetInfo[]> {
  let p = targetsByEp.get(ep);
  if (!p) {
    // Drafts are a provider's cheap previews, not targets a shot is rendered on from here.
    p = api
      .get<{ targets: TargetInfo[] }>("targets", { kind: "video", ep })
      .then((a) => a.targets.filter((t) => !t.draft));
    p.catch(() => targetsByEp.delete(ep));
    targetsByEp.set(ep, p);
  }
  return p;
}

function backends(): Promise<BackendInfo[]> {
  if (!backendsRead || Date.now() - backendsRead.at > BACKENDS_FRESH_MS) {
    const list = api.get<{ backends: BackendInfo[] }>("backends").then((a) => a.backends);
    list.catch(() => {
      backendsRead = null;
    });
    backendsRead = { at: Date.now(), list };
  }
  return backendsRead.list;
}

export function useChoices(ep: string): Choices {
  const [state, setState] = useState<Choices>({ targets: [], backends: [], error: null });
  useEffect(() => {
    let live = true;
    Promise.all([videoTargets(ep), backends()]).then(
      ([targets, list]) => live && setState({ targets, backends: list, error: null }),
      (err) => live && setState((s) => ({ ...s, error: errorText(err) })),
    );
    return () => {
      live = false;
    };
  }, [ep]);
  return state;
}

/** A target as a picker shows it. */
export function targetLabel(targets: readonly TargetInfo[], id: string): string {
  return targets.find((t) => t.id === id)?.label ?? id;
}
