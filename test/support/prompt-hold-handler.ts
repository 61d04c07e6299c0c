// Test-only job handler (kind `prompt-hold`, loaded through STUDIO_WORKER_EXTRA_HANDLERS): records the payload's
// prompt id as the job's backend_prompt_id, as an engine job does once ComfyUI has its prompt, then holds the job
// running until it is canceled, so a page test can send ComfyUI's events for that prompt.
import type { ExtraHandler } from "../../workers/jobs/index.ts";

export interface PromptHoldPayload {
  prompt: string;
}

const promptHold: ExtraHandler = {
  kind: "prompt-hold",
  async handler(job, ctx) {
    const { prompt } = job.payload as PromptHoldPayload;
    ctx.progress({ backend_prompt_id: prompt, progress: 0, step: "in ComfyUI" });
    await new Promise<never>((_resolve, reject) => {
      if (ctx.signal.aborted) return reject(ctx.signal.reason);
      ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
    });
  },
};

export default promptHold;
