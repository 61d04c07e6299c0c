// Route names as a person writes them ("POST /studio/source/check", "GET /config"): the canonical key of one and the
// module files it may live in (the rule of functions/index.ts). No Node module here: every entry uses it.

/** `POST /source/check` for "POST /studio/source/check", "POST  /api/studio/source/check" or "POST /source/check". */
export function routeName(name: string): string {
  return name
    .trim()
    .replace(/\s+/, " ")
    .replace(/ \/(api\/)?studio(?=\/)/, " ");
}

/**
 * The function modules a route name may live in: `POST /studio/source/check` (or `/source/check`) is
 * `source/check.post`, `GET /studio/config` is `config/get`, `:name` is written `name`; a route mounted at the
 * server's root lives under `root/`.
 */
export function routeFiles(name: string): string[] {
  const m = /^(GET|POST|PUT|DELETE)\s+(\/\S*)$/.exec(name.trim());
  if (!m) return [];
  const method = m[1].toLowerCase();
  const segments = m[2]
    .replace(/^\/(api\/)?studio(?=\/)/, "")
    .split("/")
    .filter(Boolean)
    .map((s) => s.replace(/^:/, ""));
  if (!segments.length || segments.some((s) => !/^[\w-]+$/.test(s))) return [];
  const [first, ...rest] = segments;
  const file = rest.length ? `${first}/${rest.join("/")}.${method}` : `${first}/${method}`;
  return [file, `root/${file}`];
}
