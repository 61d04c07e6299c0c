// The page's place in the browser's address: a link opens the same place, and back and forward move between
// places (the address's format is route.ts).
import { type Signal, signal } from "@preact/signals";
import { parseRoute, type Route, routeSearch } from "./route.ts";

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
