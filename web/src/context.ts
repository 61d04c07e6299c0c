// The one Studio of the page, handed to every component through Preact's context.
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Studio } from "./studio.ts";

export const StudioContext = createContext<Studio | null>(null);

export function useStudio(): Studio {
  const s = useContext(StudioContext);
  if (!s) throw new Error("useStudio outside the page's StudioContext");
  return s;
}
