// Many files dropped on the References view at once: which names to ask POST /studio/refs/match about, and from
// its answer which file goes into which reference and view, and which stay out and why. No DOM here.
import type { RefInfo, RefViewName } from "../../types.ts";
import { importRefusal, viewTitle } from "./refs-model.ts";

/** The service matches at most this many names in one request. */
export const MATCH_LIMIT = 500;

/** One row of POST /studio/refs/match's `matched`. */
export interface MatchedFile {
  file: string;
  ref: string;
  view: RefViewName | null;
  name: string;
  kind: string;
  audio: boolean;
  path: string;
  why: string;
}

export interface MatchAnswer {
  matched: MatchedFile[];
  unmatched: { file: string; why: string }[];
}

/** What a drop is judged by: a file's name and size (a browser File has both). */
export interface DroppedFile {
  name: string;
  size: number;
}

/** One import to make: the dropped file at `index`, into `ref` (and `view`), `where` as the page names it. */
export interface PlannedImport {
  index: number;
  file: string;
  ref: string;
  view: RefViewName | null;
  where: string;
}

export interface Left {
  file: string;
  why: string;
}

/**
 * The names to send to the match route: each name once, at most MATCH_LIMIT of them. Files sharing a name (from two
 * folders) cannot be told apart by the service, and files past the limit are not asked about: both are left out
 * here with the reason.
 */
export function matchRequest(files: readonly DroppedFile[]): { names: string[]; left: Left[] } {
  const count = new Map<string, number>();
  for (const f of files) count.set(f.name, (count.get(f.name) ?? 0) + 1);
  const names: string[] = [];
  const left: Left[] = [];
  for (const f of files) {
    const n = count.get(f.name) ?? 0;
    if (n > 1) {
      left.push({ file: f.name, why: `${n} dropped files are named ${f.name}: drop one at a time` });
    } else if (names.length >= MATCH_LIMIT) {
      left.push({ file: f.name, why: `at most ${MATCH_LIMIT} files are matched in one drop` });
    } else {
      names.push(f.name);
    }
  }
  return { names, left };
}

/** How the page names a reference slot: `Riley side`, `the kettle`, `sh010 first frame`, `Riley's voice`. */
export function slotName(name: string, view: RefViewName | null, kind = ""): string {
  if (kind === "voice") return `${name}'s voice`;
  return view ? `${name} ${viewTitle(view).toLowerCase()}` : name;
}

/**
 * The imports the match answer asks for, in the order the files were dropped, and every file left out with its
 * reason: the service's (no slot answers to the name, ambiguity), a reference the list no longer has, or a file the
 * import would refuse (too big).
 */
export function importPlan(
  files: readonly DroppedFile[],
  answer: MatchAnswer,
  refs: readonly RefInfo[],
): { imports: PlannedImport[]; left: Left[] } {
  const byName = new Map(answer.matched.map((m) => [m.file, m]));
  const why = new Map(answer.unmatched.map((u) => [u.file, u.why]));
  const imports: PlannedImport[] = [];
  const left: Left[] = [];
  files.forEach((f, index) => {
    const m = byName.get(f.name);
    if (!m) {
      const reason = why.get(f.name);
      if (reason) left.push({ file: f.name, why: reason });
      return;
    }
    const ref = refs.find((r) => r.id === m.ref);
    const refusal = ref ? importRefusal(ref, f.name, f.size) : null;
    if (!ref) left.push({ file: f.name, why: `${m.ref} is not among this episode's references any more` });
    else if (refusal) left.push({ file: f.name, why: refusal });
    else
      imports.push({
        index,
        file: f.name,
        ref: m.ref,
        view: m.view,
        where: slotName(ref.name, m.view, ref.kind),
      });
  });
  return { imports, left };
}
