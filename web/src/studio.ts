// The page's shared state, built once at start and handed to every view: where the page is, the live socket, and
// what the service said last about the config, the episodes, the open episode and the queue. Events from /ws
// patch it in place; a reconnect refreshes it all. Mounted in ComfyUI, ComfyUI's own events of the jobs' prompts
// are kept beside the queue.
import { batch, effect, type Signal, signal } from "@preact/signals";
import { ApiError, api, errorText } from "./api.ts";
import {
  applyComfyEvent,
  COMFY_EVENT_TYPES,
  type EnginePrompts,
  jobPromptIds,
  keepPrompts,
} from "./comfy-events.ts";
import { createKeys, type Keys } from "./keys.tsx";
import { createRouter, type Router } from "./router.ts";
import { connectSocket, newClientId, type Socket, socketUrl } from "./socket.ts";
import type {
  Config,
  EpisodeStatus,
  EpisodeSummary,
  Job,
  JobsAnswer,
  TakeEvent,
  TakeSummary,
} from "./types.ts";

/** A value from the service with the error of its last load (shown where the value would be). */
export interface Loaded<T> {
  value: Signal<T | null>;
  error: Signal<string | null>;
  loading: Signal<boolean>;
}

export interface Studio {
  router: Router;
  socket: Socket;
  keys: Keys;
  config: Loaded<Config>;
  episodes: Loaded<EpisodeSummary[]>;
  /** The open episode at the route's pass. */
  episode: Loaded<EpisodeStatus>;
  jobs: Loaded<JobsAnswer>;
  /** What ComfyUI's own events said of the listed jobs' prompts (only when mounted in ComfyUI). */
  engine: Signal<EnginePrompts>;
  refreshConfig(): Promise<void>;
  refreshEpisodes(): Promise<void>;
  refreshEpisode(): Promise<void>;
  refreshJobs(): Promise<void>;
  /** Listen to one event kind of /ws. */
  on(type: string, listener: (data: unknown) => void): () => void;
  close(): void;
}

function loaded<T>(): Loaded<T> {
  return { value: signal(null), error: signal(null), loading: signal(false) };
}

/** Run `load` into `into`; a newer call wins over an older one still on its way. */
function loader<T>(into: Loaded<T>, load: () => Promise<T | null>): () => Promise<void> {
  let generation = 0;
  return async () => {
    const mine = ++generation;
    into.loading.value = true;
    try {
      const v = await load();
      if (mine !== generation) return;
      batch(() => {
        into.value.value = v;
        into.error.value = null;
      });
    } catch (err) {
      if (mine !== generation) return;
      into.error.value = errorText(err);
      if (err instanceof ApiError && err.status === 404) into.value.value = null;
    } finally {
      if (mine === generation) into.loading.value = false;
    }
  };
}

/** Calls `fn` at most once per `ms`, the last call always landing. */
function throttled(fn: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last = 0;
  return () => {
    if (timer) return;
    const wait = Math.max(0, last + ms - Date.now());
    timer = setTimeout(() => {
      timer = undefined;
      last = Date.now();
      fn();
    }, wait);
  };
}

/** The episode with one take's status and thumbnail as an event tells them, the take added when it is new. */
export function withTake(status: EpisodeStatus, e: TakeEvent): EpisodeStatus | null {
  const i = status.shots.findIndex((s) => s.shot === e.shot);
  if (i < 0) return null;
  const shot = status.shots[i];
  const at = shot.takes.findIndex((t) => t.take === e.take);
  const before: TakeSummary =
    at >= 0
      ? shot.takes[at]
      : {
          take: e.take,
          status: e.status,
          has_video: false,
          seed: null,
          frames: null,
          fps: null,
          width: null,
          height: null,
          note: null,
          overrides: [],
          stale: [],
          thumb: null,
          strip: null,
          mp4: null,
          queued: null,
          finished: null,
          save_notes: null,
          target: null,
        };
  const take: TakeSummary = { ...before, status: e.status, thumb: e.thumb ?? before.thumb };
  const takes = at >= 0 ? shot.takes.map((t, j) => (j === at ? take : t)) : [...shot.takes, take];
  takes.sort((a, b) => a.take - b.take);
  const shots = status.shots.slice();
  shots[i] = { ...shot, takes };
  return { ...status, shots };
}

export function createStudio(): Studio {
  const router = createRouter();
  // /ws on the page's own host: the service's socket, or ComfyUI's when the page is served through ComfyUI.
  const socket = connectSocket({ url: socketUrl(location, newClientId()) });
  const keys = createKeys();
  const config = loaded<Config>();
  const episodes = loaded<EpisodeSummary[]>();
  const episode = loaded<EpisodeStatus>();
  const jobs = loaded<JobsAnswer>();
  const engine = signal<EnginePrompts>(new Map());

  const refreshConfig = loader(config, () => api.get<Config>("config"));
  const refreshEpisodes = loader(
    episodes,
    // The contract answers a bare array of summaries.
    () => api.get<EpisodeSummary[]>("episodes"),
  );
  const refreshEpisode = loader(episode, async () => {
    const { ep, pass } = router.route.value;
    if (!ep) return null;
    return api.get<EpisodeStatus>("episode", { ep, pass });
  });
  const refreshJobs = loader(jobs, () => api.get<JobsAnswer>("jobs"));

  // The open episode follows the route's episode and pass.
  let shown = "";
  const stopFollowing = effect(() => {
    const { ep, pass } = router.route.value;
    const key = `${ep}\n${pass}`;
    if (key === shown) return;
    shown = key;
    episode.value.value = null;
    episode.error.value = null;
    void refreshEpisode();
  });

  // ComfyUI's notes are kept only for prompts the listed jobs name, so the map shrinks as the list moves on.
  const stopPruning = effect(() => {
    const list = jobs.value.value?.jobs;
    if (list) engine.value = keepPrompts(engine.peek(), jobPromptIds(list));
  });
  const onComfy = (type: string) => (data: unknown) => {
    const ids = jobPromptIds(jobs.value.peek()?.jobs ?? []);
    engine.value = applyComfyEvent(engine.peek(), type, data, (id) => ids.has(id));
  };

  const laterEpisode = throttled(() => void refreshEpisode(), 200);
  const laterEpisodes = throttled(() => void refreshEpisodes(), 500);
  const laterJobs = throttled(() => void refreshJobs(), 300);
  const offs = [
    socket.on("studio.take", (data) => {
      const e = data as TakeEvent;
      const { ep, pass } = router.route.value;
      const now = episode.value.value;
      if (!now || e.ep !== ep || e.pass !== pass) return;
      const next = withTake(now, e);
      if (next) episode.value.value = next;
      // The rest of the take (seed, frames, strip, clip) comes with the next read of the episode.
      laterEpisode();
    }),
    socket.on("studio.episode", (data) => {
      const e = data as { ep?: string };
      if (!e?.ep || e.ep === router.route.value.ep) laterEpisode();
      laterEpisodes();
    }),
    socket.on("studio.job", (data) => {
      const job = data as Job;
      const now = jobs.value.value;
      if (now && job?.id) {
        const at = now.jobs.findIndex((j) => j.id === job.id);
        const list = at >= 0 ? now.jobs.map((j, i) => (i === at ? { ...j, ...job } : j)) : [job, ...now.jobs];
        jobs.value.value = { ...now, jobs: list };
      }
      // Lanes (waiting, running) move with every job: read them again, at most a few times a second.
      laterJobs();
    }),
    socket.on("studio.jobs", () => laterJobs()),
    // Upscales and post-processes are summarised on their takes; their events carry no pass, so either pass reads.
    socket.on("studio.upscale", (data) => {
      if ((data as { ep?: string })?.ep === router.route.value.ep) laterEpisode();
    }),
    socket.on("studio.post", (data) => {
      if ((data as { ep?: string })?.ep === router.route.value.ep) laterEpisode();
    }),
    ...COMFY_EVENT_TYPES.map((type) => socket.on(type, onComfy(type))),
    socket.onReconnect(() => {
      void refreshConfig();
      void refreshEpisodes();
      void refreshEpisode();
      void refreshJobs();
    }),
  ];

  return {
    router,
    socket,
    keys,
    config,
    episodes,
    episode,
    jobs,
    engine,
    refreshConfig,
    refreshEpisodes,
    refreshEpisode,
    refreshJobs,
    on: socket.on,
    close() {
      stopFollowing();
      stopPruning();
      for (const off of offs) off();
      socket.close();
      keys.close();
      router.close();
    },
  };
}
