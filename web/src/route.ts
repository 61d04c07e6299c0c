// Where the page is: episode, shot, view and pass, as the address writes them (?ep=&shot=&view=&pass=); pure,
// so tests read it without a browser (the browser side is router.ts).
export const VIEWS = ["script", "shots", "refs", "cut", "finishing", "queue", "settings", "simple"] as const;
export type View = (typeof VIEWS)[number];
export type Pass = "final" | "proxy";

export interface Route {
  ep: string | null;
  shot: string | null;
  view: View;
  pass: Pass;
}

export function parseRoute(search: string): Route {
  const q = new URLSearchParams(search);
  const view = q.get("view");
  return {
    ep: q.get("ep") || null,
    shot: q.get("shot") || null,
    view: (VIEWS as readonly string[]).includes(view ?? "") ? (view as View) : "shots",
    pass: q.get("pass") === "final" ? "final" : "proxy",
  };
}

export function routeSearch(r: Route): string {
  const q = new URLSearchParams();
  if (r.ep) q.set("ep", r.ep);
  if (r.shot) q.set("shot", r.shot);
  if (r.view !== "shots") q.set("view", r.view);
  if (r.pass !== "proxy") q.set("pass", r.pass);
  const s = q.toString();
  return s ? `?${s}` : "";
}
