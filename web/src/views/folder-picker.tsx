// A folder browser over GET /studio/browse: starting points, then down into folders and up to the parent; the
// chosen folder goes back to whoever asked.
import { useEffect, useState } from "preact/hooks";
import { api, errorText } from "../api.ts";
import { ErrorText } from "../ui.tsx";

interface Listing {
  path: string | null;
  parent: string | null;
  episode: boolean;
  truncated: boolean;
  dirs: { name: string; path: string; episode: boolean; series_config: boolean }[];
}

export function FolderPicker({
  label,
  onPick,
  onCancel,
}: {
  label: string;
  onPick: (path: string) => void;
  onCancel: () => void;
}) {
  const [at, setAt] = useState<string | null>(null);
  const [listing, setListing] = useState<Listing | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setError(null);
    api
      .get<Listing>("browse", at ? { path: at } : {})
      .then((l) => live && setListing(l))
      .catch((err) => live && setError(errorText(err)));
    return () => {
      live = false;
    };
  }, [at]);
  return (
    <fieldset class="picker" aria-label={label}>
      <div class="picker-bar">
        <button type="button" disabled={!listing?.path} onClick={() => setAt(listing?.parent || null)}>
          Up
        </button>
        <code class="picker-path">{listing?.path ?? "Starting points"}</code>
      </div>
      <ErrorText error={error} />
      <ul class="picker-list">
        {listing?.dirs.map((d) => (
          <li key={d.path}>
            <button type="button" class="link-button" onClick={() => setAt(d.path)}>
              {d.name}
            </button>
            {d.episode ? (
              <span class="badge">episode</span>
            ) : d.series_config ? (
              <span class="badge">show</span>
            ) : null}
          </li>
        ))}
        {listing && listing.dirs.length === 0 ? <li class="muted">No folders here</li> : null}
        {listing?.truncated ? <li class="muted">More folders than shown</li> : null}
      </ul>
      <div class="row">
        <button
          type="button"
          class="primary"
          disabled={!listing?.path}
          onClick={() => listing?.path && onPick(listing.path)}
        >
          {label}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </fieldset>
  );
}
