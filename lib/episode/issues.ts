// Issue notes: snapshots of a shot as it was rendered, kept in `<ep>/_issues.json`,
// which exists only while a note does. `addressed` is worked out on every read and never stored.
import { randomBytes } from "node:crypto";
import path from "node:path";
import type { Pass } from "../compile/types.ts";
import type { Services } from "../context.ts";
import { badRequest, notFound, StudioError } from "../errors.ts";
import { episodeFence, readShowJson } from "../paths/guarded.ts";
import { storyHash } from "../script/canonical.ts";
import { isObject, str } from "../store/json-guards.ts";
import { withLock } from "../store/lock.ts";
import type { Lenient } from "../store/record.ts";
import { compactEntry, readCutFile } from "./cut.ts";
import {
  type ISSUE_SHAPE,
  ISSUES_FILE,
  ISSUES_VERSION,
  type Issue,
  type IssueRef,
  type IssuesFile,
  issueRecord,
  issuesFileRecord,
  issuesPath,
  writeIssuesFile,
} from "./issues-record.ts";
import { readBuild, readStory } from "./shotlists.ts";
import { readSources } from "./sources.ts";
import { latestUsable, listTakes, passFolder, safeShot, takeUsable } from "./takes.ts";

export { ISSUES_FILE, ISSUES_VERSION, type Issue, type IssueRef };
export const MAX_NOTE = 4000;

/** A note as the routes answer it: the seed as a string, and whether it has been addressed since. */
export type IssueView = Lenient<Omit<typeof ISSUE_SHAPE, "seed">> & {
  seed: string | null;
  addressed: boolean;
};

interface StoredIssues {
  file: IssuesFile;
  /** The notes, oldest first: a fresh copy the caller may change. */
  items: Issue[];
}

/** The stored notes, oldest first; a file of a newer version is refused rather than rewritten. */
async function readIssuesFile(services: Pick<Services, "caches">, ep: string): Promise<StoredIssues> {
  const value = await readShowJson(services, episodeFence(ep), issuesPath(ep), ISSUES_FILE);
  if (value === undefined) return { file: {}, items: [] };
  const file = issuesFileRecord.parse(value);
  if (!file?.items) {
    throw new StudioError(500, `${ISSUES_FILE} in ${ep} is not an issue list; fix or remove it`);
  }
  const version = file.version === undefined ? ISSUES_VERSION : file.version;
  if (version === null || !(version <= ISSUES_VERSION)) {
    throw new StudioError(
      500,
      `${ISSUES_FILE} in ${ep} has version ${String(isObject(value) ? value.version : null)}, newer than this ` +
        `service reads (${ISSUES_VERSION}); it is left as it is`,
    );
  }
  // The cached value is shared: callers get their own copy to change.
  const items = file.items.map((item) => issueRecord.parse(item)).filter((item) => item !== null);
  return { file, items: structuredClone(items) };
}

/** The stored notes, oldest first. */
export async function readIssues(services: Pick<Services, "caches">, ep: string): Promise<Issue[]> {
  return (await readIssuesFile(services, ep)).items;
}

/** The note trimmed; 400 when empty or longer than the limit. */
export function checkNote(note: string): string {
  const text = note.trim();
  if (text === "") throw badRequest("note: say what is wrong with the shot (the note is empty)");
  const length = [...text].length;
  if (length > MAX_NOTE) {
    throw badRequest(`note: at most ${MAX_NOTE} characters (this one has ${length})`);
  }
  return text;
}

export interface NewIssue {
  pass: Pass;
  shot: string;
  note: string;
  /** Absent: the cut's take, else the newest usable; null: no take. */
  take?: number | null;
}

/** POST /issues: snapshot what produced the take and keep the note. */
export function addIssue(
  services: Pick<Services, "caches" | "locks">,
  ep: string,
  input: NewIssue,
  now: Date,
): Promise<IssueView> {
  const note = checkNote(input.note);
  const { pass, shot } = input;
  return withLock(services, ep, async () => {
    const build = await readBuild(services, ep, pass);
    if (!build) throw notFound(`the ${pass} pass has no build: build the episode first`);
    const built = build.shots.get(shot);
    if (!built) throw notFound(`${shot} is not in the ${pass} build`);
    const takes = await listTakes(services, ep, pass, shot);
    let take: number | null;
    if (input.take === undefined) take = (await cutTake(ep, pass, shot)) ?? latestUsable(takes)?.take ?? null;
    else take = input.take;
    const record = take === null ? undefined : takes.find((t) => t.take === take);
    if (take !== null && !record) throw notFound(`${shot} has no ${pass} take ${take}`);

    const entry = built.entry;
    const { file, items } = await readIssuesFile(services, ep);
    const taken = new Set(items.map((i) => i.id));
    let id: string;
    do id = randomBytes(4).toString("hex");
    while (taken.has(id));
    const takeSeed = record?.sidecar?.seed;
    const issue: Issue = {
      id,
      shot,
      pass,
      take,
      shot_hash: storyHash(entry),
      target: built.target,
      script: await scriptLines(services, ep, shot),
      prompt: typeof entry.prompt === "string" ? entry.prompt : "",
      seed: seedOf(takeSeed) ?? seedOf(entry.seed),
      refs: refsOf(build.docs[built.target]?.subjects ?? {}, entry, await plateOf(services, ep, shot), shot),
      take_file:
        record?.files.includes(`${record.stem}.mp4`) === true
          ? `${passFolder(pass)}/${safeShot(shot)}/${record.stem}.mp4`
          : null,
      note,
      when: now.toISOString(),
    };
    items.push(issue);
    await writeIssuesFile(services, ep, file, items);
    return (await views(services, ep, [issue]))[0];
  });
}

/** The take the pass's cut plays for the shot, when it names one of this pass's takes. */
async function cutTake(ep: string, pass: Pass, shot: string): Promise<number | null> {
  const { file } = await readCutFile(ep);
  for (const item of file[pass] ?? []) {
    const e = compactEntry(item, pass);
    if (e?.shot !== shot) continue;
    return e.pass === undefined ? (e.take ?? null) : null;
  }
  return null;
}

const seedOf = (v: unknown): bigint | null =>
  typeof v === "bigint" ? v : typeof v === "number" && Number.isSafeInteger(v) ? BigInt(v) : null;
const wireSeed = (v: unknown): string | null => {
  const s = seedOf(v);
  return s === null ? (typeof v === "string" ? v : null) : s.toString();
};

/** The shot's lines of the script on disk, by the span the build recorded; "" when either is missing. */
async function scriptLines(services: Pick<Services, "caches">, ep: string, shot: string): Promise<string> {
  const [story, sources] = await Promise.all([readStory(services, ep), readSources(ep)]);
  const found = story?.sequences.flatMap((s) => s.shots).find((s) => s.id === shot);
  if (!found || !sources.script) return "";
  const lines = sources.script.text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  return lines
    .slice(found.source.line - 1, found.source.end_line)
    .join("\n")
    .trimEnd();
}

async function plateOf(services: Pick<Services, "caches">, ep: string, shot: string): Promise<string | null> {
  const story = await readStory(services, ep);
  const found = story?.sequences.flatMap((s) => s.shots).find((s) => s.id === shot);
  return found?.plate || null;
}

/** The pictures the entry names: subjects' sheets, the background plate, keyframes. */
function refsOf(
  subjects: Record<string, Record<string, unknown>>,
  entry: Record<string, unknown>,
  plate: string | null,
  shot: string,
): IssueRef[] {
  const refs: IssueRef[] = [];
  for (const id of Array.isArray(entry.subjects) ? entry.subjects : []) {
    refs.push({ role: "subject", id: String(id), path: str(subjects[String(id)]?.sheet) });
  }
  const background = str(entry.background);
  if (background) refs.push({ role: "background", id: plate, path: background });
  if (isObject(entry.keyframes)) {
    for (const which of ["first", "last"]) {
      const p = str(entry.keyframes[which]);
      if (p) refs.push({ role: which, id: `shot:${shot}:${which}`, path: p });
    }
  }
  return refs;
}

// A build and a take list read once per request, whatever the number of notes.
class AddressedCheck {
  private readonly services: Pick<Services, "caches">;
  private readonly ep: string;
  private readonly builds = new Map<Pass, Promise<Awaited<ReturnType<typeof readBuild>>>>();

  constructor(services: Pick<Services, "caches">, ep: string) {
    this.services = services;
    this.ep = ep;
  }

  /** The shot was rebuilt into another story, dropped from the pass, or a newer usable take exists. */
  async of(item: Issue): Promise<boolean> {
    const pass: Pass = item.pass === "final" ? "final" : "proxy";
    if (!this.builds.has(pass)) this.builds.set(pass, readBuild(this.services, this.ep, pass));
    const build = await this.builds.get(pass)!;
    // A note that names no shot has nothing left to fix.
    const shot = item.shot;
    if (!shot) return true;
    if (build) {
      const built = build.shots.get(shot);
      if (!built) return true;
      if (item.shot_hash && storyHash(built.entry) !== item.shot_hash) return true;
    }
    const noted = item.take;
    if (typeof noted !== "number") return false;
    const takes = await listTakes(this.services, this.ep, pass, shot);
    return takes.some((t) => t.take > noted && takeUsable(t));
  }
}

async function views(
  services: Pick<Services, "caches">,
  ep: string,
  items: readonly Issue[],
): Promise<IssueView[]> {
  const check = new AddressedCheck(services, ep);
  const out: IssueView[] = [];
  for (const item of items) out.push({ ...item, seed: wireSeed(item.seed), addressed: await check.of(item) });
  return out;
}

/** GET /issues: the notes in the order they were taken, optionally of one pass. */
export async function listIssues(
  services: Pick<Services, "caches">,
  ep: string,
  pass: Pass | null,
): Promise<IssueView[]> {
  const items = await readIssues(services, ep);
  return views(
    services,
    ep,
    items.filter((i) => pass === null || i.pass === pass),
  );
}

export type RemoveIssues = { ids: string[] } | { pass: Pass | null; addressedOnly: boolean };

/** DELETE /issues: by id, or a pass's notes (only the addressed ones with `addressedOnly`); answers what is left. */
export function removeIssues(
  services: Pick<Services, "caches" | "locks">,
  ep: string,
  how: RemoveIssues,
  listPass: Pass | null,
): Promise<{ removed: number; issues: IssueView[] }> {
  return withLock(services, ep, async () => {
    const { file, items } = await readIssuesFile(services, ep);
    let drop: Set<Issue>;
    if ("ids" in how) {
      const ids = new Set(how.ids);
      drop = new Set(items.filter((i) => ids.has(i.id ?? "")));
    } else {
      const check = new AddressedCheck(services, ep);
      drop = new Set();
      for (const i of items) {
        if (how.pass !== null && i.pass !== how.pass) continue;
        if (!how.addressedOnly || (await check.of(i))) drop.add(i);
      }
    }
    const keep = items.filter((i) => !drop.has(i));
    if (drop.size) await writeIssuesFile(services, ep, file, keep);
    const left = keep.filter((i) => listPass === null || i.pass === listPass);
    return { removed: drop.size, issues: await views(services, ep, left) };
  });
}

// ------------------------------------------------------------------------------------------------- the export

const instruction = (script: string) =>
  "These notes were taken while watching a rendered pass of the episode. For each shot, suggest the " +
  `smallest change to the script (\`${script}\`) or the series config (\`series.json\`) that fixes what the ` +
  "note describes. The script lines are the shot as it was rendered and the prompt is what the build " +
  "compiled from them: wording problems usually sit in the lines, identity or layout problems in the " +
  "reference pictures. Leave alone what a note does not mention.";

export interface ExportOptions {
  pass: Pass | null;
  includeAddressed: boolean;
}

async function exportItems(services: Pick<Services, "caches">, ep: string, opts: ExportOptions) {
  const items = (await listIssues(services, ep, opts.pass)).filter(
    (i) => opts.includeAddressed || !i.addressed,
  );
  const script = (await readSources(ep)).script;
  return { items, scriptName: script ? path.basename(script.path) : "the script" };
}

/** The notes as one Markdown document to paste into an assistant; made fresh each time, never read back. */
export async function exportMarkdown(
  services: Pick<Services, "caches">,
  ep: string,
  opts: ExportOptions,
): Promise<string> {
  const { items, scriptName } = await exportItems(services, ep, opts);
  const name = path.basename(ep);
  const count = `${items.length} issue${items.length === 1 ? "" : "s"}`;
  const out = [
    `# ${name}: ${count}${opts.pass ? ` (${opts.pass} pass)` : ""}`,
    "",
    instruction(scriptName),
    "",
  ];
  if (items.length === 0) out.push("*Nothing noted.*", "");
  for (const i of items) {
    const head = [i.shot, i.take != null ? `take ${i.take}` : null, opts.pass ? null : i.pass, i.target];
    out.push(`## ${head.filter(Boolean).join(" · ")}`, "", i.note ?? "", "");
    if (i.addressed) out.push("*(the shot has been rebuilt or rendered again since this note)*", "");
    if (i.script) out.push("Script, as rendered:", "", "```", i.script, "```", "");
    if (i.prompt) out.push("Prompt the build compiled from it:", "", "```", i.prompt, "```", "");
    const refs = (i.refs ?? []).filter((r) => r.path);
    if (refs.length) {
      out.push("Reference pictures:", "");
      for (const r of refs) out.push(`- ${r.role}${r.id ? ` (${r.id})` : ""}: \`${r.path}\``);
      out.push("");
    }
    if (i.take_file) out.push(`Rendered file: \`${i.take_file}\``, "");
  }
  return out.join("\n");
}

/** The same notes as a JSON bundle. */
export async function exportJson(
  services: Pick<Services, "caches">,
  ep: string,
  opts: ExportOptions,
): Promise<Record<string, unknown>> {
  const { items, scriptName } = await exportItems(services, ep, opts);
  return {
    format: "json",
    episode: path.basename(ep),
    ep,
    pass: opts.pass,
    instruction: instruction(scriptName),
    issues: items,
  };
}
