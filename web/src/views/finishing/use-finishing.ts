// What the Finishing view reads besides the episode: the master plan (POST /studio/master action plan, with the
// view's post mode and conform), the upscale and post options (the series recipes, what the backend can run) and
// the master job. Upscale, post and master events read them again shortly after (events come in bursts); a master
// event carries the whole job, so it replaces the job at once.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { api, errorText } from "../../api.ts";
import { useStudio } from "../../context.ts";
import type { Pass } from "../../route.ts";
import type { MasterAnswer, MasterJob, MasterPlan, PostOptions, UpscaleOptions } from "../../types.ts";
import { sameEpisode } from "./finishing-model.ts";

export type PostMode = "off" | "present" | "recipe";

export interface Finishing {
  plan: MasterPlan | null;
  planError: string | null;
  existing: { output: string; mov: string | null } | null;
  options: UpscaleOptions | null;
  postOptions: PostOptions | null;
  optionsError: string | null;
  job: MasterJob | null;
  setJob(job: MasterJob | null): void;
  /** A master answer's plan and master in place of the ones shown. */
  took(answer: MasterAnswer): void;
  reload(): void;
}

const SETTLE_MS = 300;

export function useFinishing(ep: string, pass: Pass, post: PostMode, conform: boolean): Finishing {
  const studio = useStudio();
  const [plan, setPlan] = useState<MasterPlan | null>(null);
  const [planError, setPlanError] = useState<string | null>(null);
  const [existing, setExisting] = useState<Finishing["existing"]>(null);
  const [options, setOptions] = useState<UpscaleOptions | null>(null);
  const [postOptions, setPostOptions] = useState<PostOptions | null>(null);
  const [optionsError, setOptionsError] = useState<string | null>(null);
  const [job, setJob] = useState<MasterJob | null>(null);
  const generation = useRef(0);

  const took = useCallback((a: MasterAnswer) => {
    generation.current++;
    if (a.plan) setPlan(a.plan);
    if (a.existing !== undefined) setExisting(a.existing ?? null);
    if (a.job) setJob(a.job);
    setPlanError(null);
  }, []);

  const loadPlan = useCallback(async () => {
    const mine = ++generation.current;
    try {
      const a = await api.post<MasterAnswer>("master", { ep, pass, action: "plan", post, conform });
      if (mine !== generation.current) return;
      setPlan(a.plan ?? null);
      setExisting(a.existing ?? null);
      setPlanError(null);
    } catch (err) {
      if (mine !== generation.current) return;
      setPlan(null);
      setExisting(null);
      setPlanError(errorText(err));
    }
  }, [ep, pass, post, conform]);

  const loadOptions = useCallback(async () => {
    const [up, po] = await Promise.allSettled([
      api.get<UpscaleOptions>("upscale/options", { ep }),
      api.get<PostOptions>("post/options", { ep }),
    ]);
    setOptions(up.status === "fulfilled" ? up.value : null);
    setPostOptions(po.status === "fulfilled" ? po.value : null);
    const failed = [up, po].find((r) => r.status === "rejected");
    setOptionsError(failed ? errorText(failed.reason) : null);
  }, [ep]);

  const loadJob = useCallback(async () => {
    try {
      const a = await api.get<{ job: MasterJob | null }>("master/job", { ep });
      setJob(a.job);
    } catch {
      // The job is a hint; the plan's error says what is wrong with the episode.
    }
  }, [ep]);

  useEffect(() => {
    void loadPlan();
  }, [loadPlan]);
  useEffect(() => {
    void loadOptions();
    void loadJob();
  }, [loadOptions, loadJob]);

  const latest = useRef({ loadPlan, loadOptions, loadJob });
  latest.current = { loadPlan, loadOptions, loadJob };
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let withOptions = false;
    const later = (options = false) => {
      withOptions ||= options;
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        void latest.current.loadPlan();
        if (withOptions) void latest.current.loadOptions();
        withOptions = false;
      }, SETTLE_MS);
    };
    const mine = (data: unknown) => sameEpisode((data as { ep?: string } | null)?.ep, ep);
    const offs = [
      studio.on("studio.upscale", (d) => mine(d) && later()),
      studio.on("studio.post", (d) => mine(d) && later()),
      // Picks, the cut, overrides and the series config all change the plan and the recipes.
      studio.on("studio.episode", (d) => mine(d) && later(true)),
      studio.on("studio.take", (d) => mine(d) && later()),
      studio.on("studio.master", (d) => {
        if (!mine(d)) return;
        const j = d as MasterJob;
        setJob(j);
        if (j.state !== "running") later();
      }),
      studio.socket.onReconnect(() => {
        later(true);
        void latest.current.loadJob();
      }),
    ];
    return () => {
      clearTimeout(timer);
      for (const off of offs) off();
    };
  }, [studio, ep]);

  const reload = useCallback(() => {
    void loadPlan();
    void loadOptions();
  }, [loadPlan, loadOptions]);

  return { plan, planError, existing, options, postOptions, optionsError, job, setJob, took, reload };
}
