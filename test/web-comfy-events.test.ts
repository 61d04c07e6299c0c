// ComfyUI's own events on the page's socket (mounted mode): kept per watched prompt, shown on the job whose
// backend_prompt_id matches as steps and as "… failed in ComfyUI: <node_type>: <message>"; anything else ignored.
import { describe, expect, it } from "vitest";
import {
  applyComfyEvent,
  type EnginePrompts,
  engineNote,
  jobPromptIds,
  keepPrompts,
  unsaidEngineError,
} from "../web/src/comfy-events.ts";

const watched = (id: string) => id === "p1";
const none: EnginePrompts = new Map();
const job = { title: "s02 take 3", backend_prompt_id: "p1" };

function run(events: [string, unknown][]): EnginePrompts {
  return events.reduce((m, [type, data]) => applyComfyEvent(m, type, data, watched), none);
}

describe("applyComfyEvent", () => {
  it("counts a watched prompt's steps and node", () => {
    const m = run([
      ["execution_start", { prompt_id: "p1", timestamp: 1 }],
      ["executing", { node: "3", display_node: "3", prompt_id: "p1" }],
      ["progress", { value: 5, max: 20, prompt_id: "p1", node: "3" }],
    ]);
    expect(m.get("p1")).toEqual({ state: "running", value: 5, max: 20, node: "3", error: null });
    expect(engineNote(job, m)).toMatchObject({
      progress: 0.25,
      text: "ComfyUI node 3: step 5 of 20",
      error: null,
    });
  });

  it("keeps ComfyUI's failure words for the job", () => {
    const m = run([
      ["progress", { value: 2, max: 8, prompt_id: "p1", node: "3" }],
      [
        "execution_error",
        {
          prompt_id: "p1",
          node_id: "3",
          node_type: "KSampler",
          exception_message: "CUDA out of memory",
          exception_type: "torch.OutOfMemoryError",
          traceback: [],
        },
      ],
    ]);
    expect(engineNote(job, m)?.error).toBe("s02 take 3 failed in ComfyUI: KSampler: CUDA out of memory");
  });

  it("says an interruption and a finished prompt", () => {
    const stopped = run([
      ["execution_interrupted", { prompt_id: "p1", node_id: "7", node_type: "VAEDecode" }],
    ]);
    expect(engineNote(job, stopped)?.error).toBe("s02 take 3 was interrupted in ComfyUI at VAEDecode");
    const done = run([
      ["progress", { value: 8, max: 8, prompt_id: "p1", node: "3" }],
      ["executing", { node: null, prompt_id: "p1" }],
    ]);
    expect(done.get("p1")?.state).toBe("done");
    expect(engineNote(job, done)?.text).toBe("ComfyUI finished; collecting the outputs");
    // A failure stays a failure when ComfyUI then says the prompt is over.
    const failed = run([
      ["execution_error", { prompt_id: "p1", node_type: "KSampler", exception_message: "boom" }],
      ["executing", { node: null, prompt_id: "p1" }],
    ]);
    expect(failed.get("p1")?.state).toBe("failed");
  });

  it.each([
    ["another prompt", "progress", { value: 1, max: 2, prompt_id: "p2" }],
    ["no prompt", "progress", { value: 1, max: 2 }],
    ["a payload that is not an object", "progress", "p1"],
    ["a null payload", "execution_error", null],
    ["steps that are not numbers", "progress", { value: "1", max: 2, prompt_id: "p1" }],
    ["a zero step count", "progress", { value: 0, max: 0, prompt_id: "p1" }],
    ["a negative step", "progress", { value: -1, max: 4, prompt_id: "p1" }],
    [
      "an event type it does not read",
      "status",
      { status: { exec_info: { queue_remaining: 0 } }, prompt_id: "p1" },
    ],
  ])("changes nothing for %s", (_what, type, data) => {
    expect(applyComfyEvent(none, type, data, watched)).toBe(none);
  });

  it("takes node ids sent as numbers by older ComfyUI versions, and clamps steps past the end", () => {
    const m = run([["progress", { value: 12, max: 10, prompt_id: "p1", node: 4 }]]);
    expect(m.get("p1")).toMatchObject({ value: 10, max: 10, node: "4" });
  });

  it("names an unnamed failing node by its id, and a failure with no message as such", () => {
    const m = run([["execution_error", { prompt_id: "p1", node_id: "9" }]]);
    expect(engineNote(job, m)?.error).toBe("s02 take 3 failed in ComfyUI: node 9: no message");
  });
});

describe("the jobs' prompts", () => {
  it("collects the prompt ids jobs name and forgets the others", () => {
    const ids = jobPromptIds([{ backend_prompt_id: "p1" }, { backend_prompt_id: null }, {}]);
    expect([...ids]).toEqual(["p1"]);
    const m = run([["progress", { value: 1, max: 2, prompt_id: "p1" }]]);
    expect(keepPrompts(m, ids)).toBe(m);
    expect(keepPrompts(m, new Set()).size).toBe(0);
  });

  it("shows nothing for a job without a prompt or one ComfyUI said nothing of", () => {
    expect(engineNote({ title: "x" }, none)).toBeNull();
    expect(engineNote(job, none)).toBeNull();
  });

  it("adds ComfyUI's failure to a failed job only when the job's own error lacks its words", () => {
    const m = run([
      ["execution_error", { prompt_id: "p1", node_type: "KSampler", exception_message: "boom" }],
    ]);
    const failed = { ...job, status: "failed" };
    expect(unsaidEngineError({ ...failed, error: "the engine went away" }, m)).toBe(
      "s02 take 3 failed in ComfyUI: KSampler: boom",
    );
    expect(unsaidEngineError({ ...failed, error: "ComfyUI failed at KSampler: boom" }, m)).toBeNull();
    expect(unsaidEngineError({ ...job, status: "canceled", error: null }, m)).toBeNull();
  });
});
