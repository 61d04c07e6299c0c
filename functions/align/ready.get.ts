// GET /studio/align/ready: whether a recording can be aligned here, with which engine, and what to install if not.
import { alignReadiness } from "../../lib/align/ready.ts";
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/align/ready",
  summary:
    "Whether alignment can run: ffmpeg, the engine (a Python with numpy and faster-whisper, else PocketSphinx), the program that would run, what is missing and how to install it",
  async handler(_input, ctx) {
    return (await alignReadiness(ctx)).answer;
  },
});
