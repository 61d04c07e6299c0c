// Which lanes this worker's engines reach, told to the other workers through the job store, and what that means for
// claiming: a lane whose engine is down here is left to a worker that reaches it, and a lane several workers reach is
// shared among them. The decisions are plain functions; the Reach class does the probing and the store traffic.
import os from "node:os";
import { BackendUnreachable } from "../lib/backends/http.ts";
import { configuredBackends, probe } from "../lib/backends/list.ts";
import { effectiveSettings } from "../lib/config/settings-store.ts";
import type { Services } from "../lib/context.ts";
import { ComfyDownError } from "../lib/engines/comfyui/http.ts";
import { FIXED_LANES } from "../lib/jobs/lanes.ts";
import type { JobStore, WorkerAd } from "../lib/jobs/types.ts";
import { errorField, errorMessage } from "../lib/store/json-guards.ts";

/** Lane → why its engine cannot be reached now, or null when it answered. */
export type Probed = Record<string, string | null>;

export interface ReachState {
  /** Lanes whose engine answered (builtin always). */
  lanes: string[];
  /** Configured lanes that did not answer, or failed a job as unreachable since, and why. */
  down: Record<string, string>;
}

/** What the probes said, with lanes a job found unreachable since kept down until a probe says otherwise. */
export function reachOf(probed: Probed, marked: ReadonlyMap<string, string>): ReachState {
  const lanes: string[] = [];
  const down: Record<string, string> = {};
  for (const [lane, why] of Object.entries(probed)) {
    const failed = lane === "builtin" ? null : (marked.get(lane) ?? why);
    if (failed === null) lanes.push(lane);
    else down[lane] = failed;
  }
  for (const [lane, why] of marked) if (!(lane in probed) && lane !== "builtin") down[lane] = why;
  if (!lanes.includes("builtin")) lanes.push("builtin");
  return { lanes: lanes.sort(), down };
}

export interface ClaimInput {
  /** This worker's reach. */
  mine: ReachState;
  /** The other live workers' adverts (this worker's own left out). */
  others: readonly WorkerAd[];
  /** Lane names that may hold jobs (the fixed lanes, lanes the store has seen). */
  known: readonly string[];
  /** Each lane's parallelism (1 when absent). */
  parallel: Readonly<Record<string, number>>;
  /** Jobs of each lane this worker runs now. */
  holding: Readonly<Record<string, number>>;
  /** Claim only from these (the pool's own setting), when given. */
  only?: readonly string[];
}

/** How many of a lane's `parallel` slots one of `reachers` workers may fill: an even share, at least one. */
export function laneShare(parallel: number, reachers: number): number {
  return Math.max(1, Math.ceil(parallel / Math.max(1, reachers)));
}

/**
 * The lanes to claim from, or undefined for every lane. Left out: a lane this worker cannot reach while another
 * live worker does, and a lane several workers reach once this worker holds its share of the lane's slots. A lane no
 * live worker reaches stays in, so its jobs fail with the engine's own message, as on one machine.
 */
export function claimLanes(input: ClaimInput): string[] | undefined {
  const reachers = new Map<string, number>();
  for (const ad of input.others)
    for (const lane of new Set(ad.lanes)) reachers.set(lane, (reachers.get(lane) ?? 0) + 1);
  const mine = new Set(input.mine.lanes);
  const excluded = new Set<string>();
  for (const lane of reachers.keys()) if (!mine.has(lane)) excluded.add(lane);
  for (const lane of mine) {
    const others = reachers.get(lane) ?? 0;
    if (others === 0) continue;
    const share = laneShare(input.parallel[lane] ?? 1, others + 1);
    if ((input.holding[lane] ?? 0) >= share) excluded.add(lane);
  }
  if (excluded.size === 0) return input.only ? [...input.only] : undefined;
  const all = new Set([
    ...input.known,
    ...mine,
    ...Object.keys(input.mine.down),
    ...reachers.keys(),
    ...input.others.flatMap((ad) => Object.keys(ad.down)),
    ...(input.only ?? []),
  ]);
  const only = input.only ? new Set(input.only) : null;
  return [...all].filter((lane) => !excluded.has(lane) && (!only || only.has(lane))).sort();
}

/** Whether another live worker reaches `lane`, so a job this worker cannot run there goes back for it. */
export function othersReach(lane: string, others: readonly WorkerAd[]): boolean {
  return others.some((ad) => ad.lanes.includes(lane));
}

/** Why the engine could not be reached, when that is what `err` (or an error it wraps) says; null otherwise. */
export function engineUnreachable(err: unknown): string | null {
  const seen = new Set<unknown>();
  let e: unknown = err;
  while (typeof e === "object" && e !== null && !seen.has(e)) {
    seen.add(e);
    if (e instanceof ComfyDownError || e instanceof BackendUnreachable) return e.message;
    e = errorField(e, "cause");
  }
  return null;
}

/** The configured backends of the settings in force now, each probed (bounded, in parallel). */
export async function probeConfigured(services: Pick<Services, "home" | "env" | "caches">): Promise<Probed> {
  const s = await effectiveSettings(services);
  const out: Probed = {};
  await Promise.all(
    configuredBackends(s).map(async (b) => {
      try {
        out[b.name] = await probe(b, s.api_key);
      } catch (err) {
        out[b.name] = errorMessage(err);
      }
    }),
  );
  return out;
}

/** How often a worker probes its engines: STUDIO_REACH_MS, 5 s by default (50 ms to 60 s). */
export function reachMsFromEnv(env: Record<string, string | undefined>): number {
  const text = env.STUDIO_REACH_MS?.trim();
  if (!text) return 5_000;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 50 || n > 60_000)
    throw new Error(`STUDIO_REACH_MS: ${text} is not a whole number of milliseconds from 50 to 60000`);
  return n;
}

/** How often a worker re-advertises and reads the others' adverts (between probes, which are slower). */
export const ADVERT_MS = 1_000;
/** An advert older than this is a worker gone (a killed process stops advertising). */
export const ADVERT_MAX_AGE_MS = 10_000;

export interface ReachOptions {
  store: JobStore;
  owner: string;
  /** The kinds this worker runs, for its advert. */
  kinds: () => Promise<string[]>;
  /** Lane → why it is down now (null = it answered). */
  probe: () => Promise<Probed>;
  /** Adverts older than this are workers gone. */
  maxAgeMs: number;
  log: Services["log"];
}

/** One worker's reach: probed, advertised, and the other workers' adverts as last read. */
export class Reach {
  private readonly opts: ReachOptions;
  private probed: Probed = { builtin: null };
  private readonly marked = new Map<string, string>();
  private others: WorkerAd[] = [];
  private known: string[] = [...FIXED_LANES];
  private parallel: Record<string, number> = {};
  private refreshing: Promise<void> | null = null;
  private again = false;
  private probeNext = false;
  private retired = false;

  constructor(opts: ReachOptions) {
    this.opts = opts;
  }

  /** This worker's reach now. */
  get state(): ReachState {
    return reachOf(this.probed, this.marked);
  }

  /** Probe the engines, advertise, and read the other workers and the lanes; one at a time (a call meanwhile runs once more after). */
  refresh(): Promise<void> {
    this.probeNext = true;
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.again = false;
        const probe = this.probeNext;
        this.probeNext = false;
        await this.once(probe);
      } while (this.again);
    })().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  /**
   * Advertise again and read the other workers, without probing: the light round that keeps this worker's advert
   * fresh and its view of the others current between probes. Skipped while a round runs.
   */
  beat(): Promise<void> {
    if (this.refreshing) return this.refreshing;
    this.refreshing = this.once(false).finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async once(probe: boolean): Promise<void> {
    const { store, log } = this.opts;
    if (probe) {
      try {
        const probed = await this.opts.probe();
        probed.builtin = null;
        // A lane a job found unreachable stays down until its engine answers a probe again.
        for (const lane of [...this.marked.keys()]) if (probed[lane] === null) this.marked.delete(lane);
        this.probed = probed;
      } catch (err) {
        log.warn(`worker: probing the engines failed: ${errorMessage(err)}`);
      }
    }
    await this.advertise();
    try {
      const [workers, list] = await Promise.all([
        store.workers(this.opts.maxAgeMs),
        probe ? store.list() : Promise.resolve(null),
      ]);
      this.others = workers.filter((ad) => ad.owner !== this.opts.owner);
      if (list) {
        this.known = [...new Set([...FIXED_LANES, ...Object.keys(list.lanes)])];
        this.parallel = Object.fromEntries(Object.entries(list.lanes).map(([lane, s]) => [lane, s.parallel]));
      }
    } catch (err) {
      log.warn(`worker: reading the other workers failed: ${errorMessage(err)}`);
    }
  }

  private async advertise(): Promise<void> {
    // A job that outlives the stop must not bring the advert back.
    if (this.retired) return;
    const { lanes, down } = this.state;
    try {
      await this.opts.store.advertise({
        owner: this.opts.owner,
        host: os.hostname(),
        pid: process.pid,
        kinds: await this.opts.kinds(),
        lanes,
        down,
      });
    } catch (err) {
      this.opts.log.warn(`worker: advertising failed: ${errorMessage(err)}`);
    }
  }

  /** The lanes to claim from now (undefined = all), given what this worker runs per lane and its own lane setting. */
  claimable(holding: Record<string, number>, only?: readonly string[]): string[] | undefined {
    return claimLanes({
      mine: this.state,
      others: this.others,
      known: this.known,
      parallel: this.parallel,
      holding,
      only,
    });
  }

  /**
   * A job found `lane`'s engine unreachable: the lane is down here from now on (advertised at once, so no worker
   * hands the job back to this one), and answers whether another live worker reaches it.
   */
  async unreachable(lane: string, why: string): Promise<boolean> {
    if (lane !== "builtin") this.marked.set(lane, why);
    await this.advertise();
    try {
      this.others = (await this.opts.store.workers(this.opts.maxAgeMs)).filter(
        (ad) => ad.owner !== this.opts.owner,
      );
    } catch (err) {
      this.opts.log.warn(`worker: reading the other workers failed: ${errorMessage(err)}`);
      return false;
    }
    // Probe again now: the engine may be back, and the lane then opens again without waiting a round.
    void this.refresh();
    return othersReach(lane, this.others);
  }

  /** Take this worker's advert away (a graceful stop). */
  async retire(): Promise<void> {
    this.retired = true;
    await this.refreshing?.catch(() => {});
    try {
      await this.opts.store.retire(this.opts.owner);
    } catch (err) {
      this.opts.log.warn(`worker: retiring the advert failed: ${errorMessage(err)}`);
    }
  }
}
