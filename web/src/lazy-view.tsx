// A view whose code is fetched the first time it is wanted: the Script view's editor (CodeMirror) is most of the
// page's code, and a page opened on the Shots view should not wait for it to download and compile.
import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import { errorText } from "./api.ts";
import { ErrorText } from "./ui.tsx";

export type LazyView = ComponentType & {
  /** Fetch the view's code now (once; again after a failure); resolves when it can be drawn. */
  load(): Promise<void>;
};

/** The view `name` from `importer` (an `import()` of its module), drawn once its code has arrived. */
export function lazyView(name: string, importer: () => Promise<ComponentType>): LazyView {
  let loaded: ComponentType | null = null;
  let loading: Promise<void> | null = null;
  const load = () => {
    loading ??= importer().then(
      (view) => {
        loaded = view;
      },
      (err) => {
        loading = null;
        throw err;
      },
    );
    return loading;
  };
  function Lazy() {
    const [, arrived] = useState(0);
    const [error, setError] = useState<string | null>(null);
    useEffect(() => {
      if (loaded) return;
      let live = true;
      load().then(
        () => live && arrived((n) => n + 1),
        (err) => live && setError(errorText(err)),
      );
      return () => {
        live = false;
      };
    }, []);
    if (loaded) {
      const View = loaded;
      return <View />;
    }
    // A page left open across an update of the service asks for code that is no longer served.
    if (error) return <ErrorText error={`The ${name} view did not load (${error}): reload the page.`} />;
    return <p class="muted empty">Loading the {name} view…</p>;
  }
  Lazy.displayName = `Lazy(${name})`;
  return Object.assign(Lazy, { load });
}
