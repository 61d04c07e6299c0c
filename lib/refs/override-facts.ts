// What the override routes need of one reference of an episode: that it exists (404 otherwise), whether it has
// a character's four views, and the prompt it is built with, written by the reference prompt builders of the
// compiler from the series config in force and the episode's story. View and keyframe prompts are not built here,
// so their blocks carry no stamp.

import { makeContext } from "../compile/context.ts";
import { plateRef, subjectRef, voiceRef } from "../compile/refs.ts";
import { isGroup } from "../compile/slots.ts";
import type { Services } from "../context.ts";
import { readBuild, readStory } from "../episode/shotlists.ts";
import { readSources } from "../episode/sources.ts";
import { badRequest, notFound } from "../errors.ts";
import { loadSeries } from "../series/load.ts";
import { errorMessage } from "../store/json-guards.ts";
import type { TargetRegistryView } from "../targets/registry.ts";
import type { RefFacts } from "./effective.ts";
import { type RefId, VIEWS } from "./ids.ts";

export async function refFacts(
  services: Pick<Services, "caches">,
  ep: string,
  ref: RefId,
  registry: TargetRegistryView,
): Promise<RefFacts> {
  if (ref.family === "shot") {
    const [final, proxy] = await Promise.all([
      readBuild(services, ep, "final"),
      readBuild(services, ep, "proxy"),
    ]);
    if (!final?.shots.has(ref.name) && !proxy?.shots.has(ref.name)) {
      throw notFound(`${ref.name} is in no build of this episode: build the episode first`);
    }
    return { id: ref.id, kind: "keyframe", built_prompt: null, views: [] };
  }
  const sources = await readSources(ep);
  if (!sources.series) throw notFound(`${ep} has no series config, so it has no ${ref.id}`);
  let series: ReturnType<typeof loadSeries>;
  try {
    series = loadSeries(sources.series.text);
  } catch (err) {
    throw badRequest(`the series config does not load (${errorMessage(err)}): fix it first`);
  }
  // Without a build there are no lines yet: a voice is then written with its neutral sentence.
  const story = (await readStory(services, ep)) ?? {
    episode: "",
    title: "",
    series: { fps: 24, width: 0, height: 0 },
    sequences: [],
  };
  const ctx = makeContext({ story, series, pass: "final", defaultTarget: "animatic", targets: registry });
  const missing = () => notFound(`no reference ${ref.id} in this episode's series config`);
  if (ref.family === "location") {
    if (!Object.hasOwn(series.locations, ref.name)) throw missing();
    return { id: ref.id, kind: "location", built_prompt: plateRef(ctx, ref.name).prompt, views: [] };
  }
  if (!Object.hasOwn(series.subjects, ref.name)) throw missing();
  const subject = series.subjects[ref.name];
  if (ref.family === "voice") {
    if (subject.kind !== "character" || typeof subject.of === "string") throw missing();
    return { id: ref.id, kind: "voice", built_prompt: voiceRef(ctx, ref.name).ref.prompt, views: [] };
  }
  const kind = typeof subject.kind === "string" ? subject.kind : "character";
  const views =
    kind === "character" && !isGroup(subject) ? VIEWS.map((view) => ({ view, built_prompt: null })) : [];
  return { id: ref.id, kind, built_prompt: subjectRef(ctx, ref.name).ref.prompt, views };
}
