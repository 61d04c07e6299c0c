// The image and audio targets references can be made on (GET /studio/targets?kind=), read once per episode and
// shared by the defaults bar and every override form.
import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../../api.ts";
import type { TargetInfo } from "../../types.ts";

/** A target as the pickers and the override form read it: name, and what it takes (negative prompt, params). */
export type TargetChoice = Pick<TargetInfo, "id" | "label" | "widgets" | "capabilities">;

export interface RefTargets {
  image: TargetChoice[];
  audio: TargetChoice[];
  error: string | null;
}

const read = new Map<string, Promise<Omit<RefTargets, "error">>>();

function targetsOf(ep: string): Promise<Omit<RefTargets, "error">> {
  let p = read.get(ep);
  if (!p) {
    const kind = (k: string) =>
      api
        .get<{ targets: TargetInfo[] }>("targets", { kind: k, ep })
        .then((a) => a.targets.filter((t) => !t.draft));
    p = Promise.all([kind("image"), kind("audio")]).then(([image, audio]) => ({ image, audio }));
    p.catch(() => read.delete(ep));
    read.set(ep, p);
  }
  return p;
}

export function useRefTargets(ep: string): RefTargets {
  const [state, setState] = useState<RefTargets>({ image: [], audio: [], error: null });
  useEffect(() => {
    let live = true;
    targetsOf(ep).then(
      (t) => live && setState({ ...t, error: null }),
      (err) => live && setState((s) => ({ ...s, error: errorText(err) })),
    );
    return () => {
      live = false;
    };
  }, [ep]);
  return state;
}
