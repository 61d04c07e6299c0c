// The media tool process with one addition for the runner's crash test: a run whose first argument is
// `--crash-the-process` throws after the real code has taken it, so the process dies as in a real crash.
import "../../lib/media/tool-process.js";

process.on("message", (msg) => {
  if (msg.type === "run" && msg.args[0] === "--crash-the-process")
    throw new Error("the process crashed on purpose");
});
