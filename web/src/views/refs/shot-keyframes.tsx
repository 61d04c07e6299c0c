// A shot's keyframes in its detail: the first and last frame pictures the shot reads (or what is missing and
// whether the target needs it), a drop zone to import one and make it live, Clear, and a way to its candidates.
import { api } from "../../api.ts";
import { useStudio } from "../../context.ts";
import type { RefInfo } from "../../types.ts";
import { ErrorText, useAction } from "../../ui.tsx";
import { ImportZone } from "./import-zone.tsx";
import { LivePicture } from "./ref-picture.tsx";
import { allTakes, keyframesOf } from "./refs-model.ts";
import { chosenRef, type RefsStore, useRefs } from "./use-refs.ts";

export function ShotKeyframes({ ep, shot }: { ep: string; shot: string }) {
  const store = useRefs(ep);
  const refs = store.answer.value?.refs;
  if (!refs) return <ErrorText error={store.error.value} />;
  const frames = keyframesOf(refs, shot);
  if (!frames.length) return <p class="muted">This shot reads no keyframes.</p>;
  return (
    <div class="shot-keyframes">
      {frames.map((k) => (
        <Keyframe key={k.id} ep={ep} refInfo={k} store={store} />
      ))}
    </div>
  );
}

function Keyframe({ ep, refInfo: k, store }: { ep: string; refInfo: RefInfo; store: RefsStore }) {
  const studio = useStudio();
  const changed = (r: RefInfo | null) => (r ? store.replace(r) : void store.reload());
  const clear = useAction(async () => {
    changed(await api.del<RefInfo>("refs/pick", {}, { ep, ref: k.id }));
  });
  const count = allTakes(k).length;
  return (
    <section class="shot-keyframe" aria-label={`${k.which === "last" ? "Last" : "First"} frame of ${k.shot}`}>
      <div class="shot-keyframe-head">
        <strong>{k.which === "last" ? "Last frame" : "First frame"}</strong>
        <span class="muted">
          {k.need ?? "not needed"} · {k.method}
        </span>
        {k.exists ? <span class="tag live">live</span> : null}
        {k.exists ? (
          <button
            type="button"
            onClick={() => clear.run()}
            disabled={clear.busy}
            aria-label={`Clear the ${k.which} frame of ${k.shot}`}
          >
            Clear
          </button>
        ) : null}
      </div>
      <LivePicture ep={ep} refInfo={k} width={256} />
      <ImportZone ep={ep} refInfo={k} view={null} pick={true} onDone={changed} compact />
      <button
        type="button"
        class="link-button small"
        onClick={() => {
          chosenRef.value = k.id;
          studio.router.go({ view: "refs" });
        }}
      >
        {count ? `${count} candidate${count === 1 ? "" : "s"} in References` : "Open in References"}
      </button>
      <ErrorText error={clear.error} />
    </section>
  );
}
