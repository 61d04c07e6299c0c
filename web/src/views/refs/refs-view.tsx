// The References view: every reference of the episode in groups with its live picture or what is missing, and the
// chosen one in full beside the list. The list follows `studio.ref` events as they arrive. Files dropped anywhere
// on the view (outside a reference's own zone) go to the references their names match.
import { useEffect, useRef, useState } from "preact/hooks";
import { useStudio } from "../../context.ts";
import { useShortcuts } from "../../keys.tsx";
import type { RefInfo } from "../../types.ts";
import { ErrorText } from "../../ui.tsx";
import { useBulkDrop } from "./bulk-drop.tsx";
import { DefaultsBar } from "./defaults-bar.tsx";
import { GenerateMissing } from "./generate-missing.tsx";
import { RefDetail } from "./ref-detail.tsx";
import { RefChip } from "./ref-picture.tsx";
import { groupRefs, listOrder, refState, stepRef } from "./refs-model.ts";
import { chosenRef, useRefs } from "./use-refs.ts";
import { useRefTargets } from "./use-targets.ts";

export function RefsView() {
  const studio = useStudio();
  const ep = studio.router.route.value.ep;
  if (!ep) return null;
  return <Refs key={ep} ep={ep} />;
}

function Refs({ ep }: { ep: string }) {
  const studio = useStudio();
  const store = useRefs(ep);
  const targets = useRefTargets(ep);
  const [filter, setFilter] = useState("");
  // One "make imports live" choice for every import of the view: a reference's zones and the view-wide drop.
  const [pick, setPick] = useState(true);
  const [missingOpen, setMissingOpen] = useState(false);
  const files = useRef<HTMLInputElement>(null);
  const answer = store.answer.value;
  const refs = answer?.refs ?? [];
  const groups = groupRefs(refs, filter);
  const ids = listOrder(groups);
  const chosen = refs.find((r) => r.id === chosenRef.value) ?? refs.find((r) => r.id === ids[0]) ?? null;
  const list = useRef<HTMLDivElement>(null);
  const choose = (id: string | null) => {
    chosenRef.value = id;
  };
  useShortcuts(studio.keys, [
    {
      keys: ["j", "ArrowDown"],
      label: "Next reference",
      run: () => choose(stepRef(ids, chosen?.id ?? null, 1)),
    },
    {
      keys: ["k", "ArrowUp"],
      label: "Previous reference",
      run: () => choose(stepRef(ids, chosen?.id ?? null, -1)),
    },
  ]);
  useEffect(() => {
    if (!chosen) return;
    list.current
      ?.querySelector(`[data-ref="${CSS.escape(chosen.id)}"]`)
      ?.scrollIntoView({ block: "nearest" });
  }, [chosen?.id]);
  const changed = (ref: RefInfo | null) => {
    if (ref) store.replace(ref);
    else void store.reload();
  };
  const bulk = useBulkDrop({ ep, refs, pick, onDone: changed });
  const missing = refs.filter((r) => refState(r).tone === "bad").length;
  return (
    <div class={`refs-view${bulk.over ? " drop-over" : ""}`} {...bulk.handlers}>
      {bulk.over ? (
        <p class="refs-drop-hint" aria-hidden="true">
          Drop files: each goes into the reference its name matches (riley_side.png → Riley side)
        </p>
      ) : null}
      <div class="refs-bar">
        <label class="inline">
          <span class="sr-only">Filter references</span>
          <input
            type="search"
            placeholder="Filter references"
            value={filter}
            onInput={(e) => setFilter(e.currentTarget.value)}
          />
        </label>
        <span class="muted">
          {refs.length} references
          {missing ? <span class="warn"> · {missing} missing that shots use</span> : null}
        </span>
        {refs.length ? (
          <>
            <input
              ref={files}
              type="file"
              class="hidden-file"
              multiple
              tabIndex={-1}
              aria-hidden="true"
              onChange={(e) => {
                const chosen = [...(e.currentTarget.files ?? [])];
                e.currentTarget.value = "";
                void bulk.send(chosen);
              }}
            />
            <button
              type="button"
              disabled={bulk.busy}
              onClick={() => files.current?.click()}
              title="Each file goes into the reference its name matches; you can also drop files anywhere here"
            >
              Import by name…
            </button>
            <button
              type="button"
              aria-expanded={missingOpen}
              onClick={() => setMissingOpen(true)}
              title="Preview what the shots need and nothing provides yet, then make it"
            >
              Generate missing…
            </button>
          </>
        ) : null}
        {answer ? (
          <DefaultsBar
            ep={ep}
            defaults={answer.defaults}
            targets={targets.image}
            audioTargets={targets.audio}
            onSaved={(defaults) => {
              const now = store.answer.value;
              if (now) store.answer.value = { ...now, defaults };
            }}
          />
        ) : null}
      </div>
      {bulk.report}
      {missingOpen && answer ? (
        <GenerateMissing
          ep={ep}
          refs={refs}
          targets={targets.image}
          onOpen={choose}
          onClose={() => setMissingOpen(false)}
        />
      ) : null}
      <ErrorText error={store.error.value ?? targets.error} />
      {!answer && !store.error.value ? <p class="muted empty">Loading references…</p> : null}
      {answer && !refs.length ? (
        <p class="muted empty">
          This episode has no references: its series config names none and no shot reads keyframes.
        </p>
      ) : null}
      {refs.length ? (
        <div class="refs-body">
          <div class="refs-list" ref={list}>
            {groups.map((g) => (
              <section key={g.kind} aria-label={g.title}>
                <h3>
                  {g.title} <span class="muted">{g.refs.length}</span>
                </h3>
                <ul>
                  {g.refs.map((r) => {
                    const state = refState(r);
                    return (
                      <li key={r.id}>
                        <button
                          type="button"
                          class={`ref-row${r.id === chosen?.id ? " on" : ""}`}
                          data-ref={r.id}
                          aria-current={r.id === chosen?.id ? "true" : undefined}
                          onClick={() => choose(r.id)}
                        >
                          <RefChip ep={ep} refInfo={r} />
                          <span class="ref-row-name">
                            {r.kind === "keyframe" ? (r.shot ?? r.name) : r.name}
                            <span class="muted small">
                              {r.kind === "keyframe" ? `${r.which} frame` : r.id}
                            </span>
                          </span>
                          <span class={`ref-state ${state.tone}`}>{state.text}</span>
                        </button>
                      </li>
                    );
                  })}
                </ul>
              </section>
            ))}
            {!groups.length ? <p class="muted">No reference matches “{filter}”.</p> : null}
          </div>
          {chosen ? (
            <RefDetail
              key={chosen.id}
              ep={ep}
              refInfo={chosen}
              refs={refs}
              targets={chosen.kind === "voice" ? targets.audio : targets.image}
              pick={pick}
              onPickChange={setPick}
              onChanged={changed}
              reload={store.reload}
            />
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
