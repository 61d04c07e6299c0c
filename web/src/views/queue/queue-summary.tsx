// The queue in a few words for the top bar ("2 running · 5 waiting"), a link to the Queue view; absent when idle.
import { useStudio } from "../../context.ts";
import { queueCounts } from "./queue-model.ts";

export function QueueSummary() {
  const studio = useStudio();
  const answer = studio.jobs.value.value;
  if (!answer) return null;
  const { running, waiting } = queueCounts(answer);
  if (running + waiting === 0) return null;
  const text = [running ? `${running} running` : null, waiting ? `${waiting} waiting` : null]
    .filter(Boolean)
    .join(" · ");
  return (
    <button
      type="button"
      class="ghost queue-summary"
      onClick={() => studio.router.go({ view: "queue" })}
      title="Open the queue"
      aria-label={`Queue: ${text}`}
    >
      {running ? <span class="pulse" aria-hidden="true" /> : null}
      {text}
    </button>
  );
}
