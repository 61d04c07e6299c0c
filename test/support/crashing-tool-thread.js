// The media tool thread with one addition for the runner's crash test: a run whose first argument is
// `--crash-the-thread` throws in the thread after the real thread has taken it, so the thread dies as in a real crash.
import { parentPort } from "node:worker_threads";
import "../../lib/media/spawn-thread.js";

parentPort.on("message", (msg) => {
  if (msg.type === "run" && msg.args[0] === "--crash-the-thread")
    throw new Error("the thread crashed on purpose");
});
