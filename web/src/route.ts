// Where the page is: episode, shot, view and pass, kept in the address (?ep=&shot=&view=&pass=) so a link opens the
// same place and the browser's back and forward move between places.
import { type Signal, signal } from "@preact/signals";

export const VIEWS = ["script", "shots", "cut", "queue", "settings"] as const;
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

export interface Router {
  route: Signal<Route>;
  /**
   * Move to another place. A new episode, view or pass is a new history entry (back returns to it); choosing
   * another shot replaces the entry, so back does not step through every shot looked at.
   */
  go(change: Partial<Route>): void;
  close(): void;
}

export function createRouter(): Router {
  const route = signal<Route>(parseRoute(location.search));
  const onPop = () => {
    route.value = parseRoute(location.search);
  };
  addEventListener("popstate", onPop);
  return {
    route,
    go(change) {
      const before = route.value;
      const next: Route = { ...before, ...change };
      if (change.ep !== undefined && change.ep !== before.ep && change.shot === undefined) next.shot = null;
      const search = routeSearch(next);
      if (search !== location.search) {
        const push = next.ep !== before.ep || next.view !== before.view || next.pass !== before.pass;
        if (push) history.pushState(null, "", `/studio/${search}`);
        else history.replaceState(null, "", `/studio/${search}`);
      }
      route.value = next;
    },
    close() {
      removeEventListener("popstate", onPop);
    },
  };
}
