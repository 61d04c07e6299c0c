// Worker-thread bootstrap: registers tsx when the task module is TypeScript (built ones are plain JavaScript), then
// answers {id, method, arg} calls.
import { parentPort, workerData } from "node:worker_threads";

if (String(workerData.module).endsWith(".ts")) (await import("tsx/esm/api")).register();
const tasks = await import(workerData.module);

parentPort.on("message", async ({ id, method, arg }) => {
  try {
    if (typeof tasks[method] !== "function") throw new Error(`no task ${method} in ${workerData.module}`);
    parentPort.postMessage({ id, ok: true, value: await tasks[method](arg) });
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    parentPort.postMessage({ id, ok: false, error: { name: e.name, message: e.message, stack: e.stack } });
  }
});
parentPort.postMessage({ ready: true });
