// The models panel's mapping: sizes in MB/GB, the listing grouped with each file's size, task and whether it can be
// installed, tasks updated from events, progress in words, and a target's downloadable missing files.
import { describe, expect, it } from "vitest";
import {
  downloadableFiles,
  type FeaturesAnswer,
  featureGroups,
  formatBytes,
  type InstallTask,
  installSummary,
  itemPlace,
  taskFraction,
  tasksForFiles,
  taskText,
  withTask,
} from "../web/src/views/settings/features-model.ts";

const MB = 1024 * 1024;
const GB = 1024 * MB;

const task = (over: Partial<InstallTask> = {}): InstallTask => ({
  key: "model:vae/a.safetensors",
  kind: "model",
  name: "a.safetensors",
  folder: "vae",
  status: "queued",
  bytes: 0,
  total: null,
  error: null,
  note: null,
  ...over,
});

const answer: FeaturesAnswer = {
  groups: [
    { id: "video", label: "Video targets", about: "video" },
    { id: "image", label: "Image targets", about: "image" },
  ],
  features: [
    {
      id: "ltx2",
      group: "video",
      label: "LTX-2",
      about: "ltx",
      restart: false,
      status: "partial",
      items: [
        {
          key: "model:vae/a.safetensors",
          kind: "model",
          name: "a.safetensors",
          folder: "vae",
          url: "https://h/a",
          status: "missing",
        },
        {
          key: "model:vae/b.safetensors",
          kind: "model",
          name: "b.safetensors",
          folder: "vae",
          url: "https://h/b",
          status: "installed",
        },
        {
          key: "model:loras/c.safetensors",
          kind: "model",
          name: "c.safetensors",
          folder: "loras",
          url: null,
          status: "missing",
          note: "no trustworthy download address is recorded: search for c",
        },
        {
          key: "model:vae/d.safetensors",
          kind: "model",
          name: "d.safetensors",
          folder: "vae",
          url: "https://h/d",
          status: "missing",
        },
      ],
    },
    {
      id: "h3",
      group: "video",
      label: "H3",
      about: "h3",
      restart: true,
      status: "unavailable",
      items: [
        {
          key: "pack:p",
          kind: "pack",
          name: "p",
          status: "missing",
          note: "node packs are installed with git",
        },
      ],
    },
  ],
  place: { root: "/c", custom_nodes: null, python: null, why_not: null },
  hf_token: false,
  job: { running: false, restart: false, tasks: [] },
};

describe("features model", () => {
  it("writes sizes in KB, MB and GB, and a dash when unknown", () => {
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(300_000)).toBe("293 KB");
    expect(formatBytes(312 * MB)).toBe("312 MB");
    expect(formatBytes(4.72 * GB)).toBe("4.7 GB");
    expect(formatBytes(null)).toBe("–");
    expect(formatBytes(undefined)).toBe("–");
  });

  it("groups features with sizes, tasks and what can be installed; empty groups stay empty", () => {
    const running = task({ status: "running", bytes: 10, total: 100 });
    const groups = featureGroups(
      answer,
      { "https://h/a": 2 * GB, "https://h/b": MB, "https://h/d": 3 * GB },
      [running],
    );
    expect(groups.map((g) => [g.id, g.features.map((f) => f.id)])).toEqual([
      ["video", ["ltx2", "h3"]],
      ["image", []],
    ]);
    const ltx = groups[0].features[0];
    expect(ltx.items.map((i) => [i.name, i.size, i.installable])).toEqual([
      ["a.safetensors", 2 * GB, true],
      ["b.safetensors", MB, false],
      ["c.safetensors", null, false],
      ["d.safetensors", 3 * GB, true],
    ]);
    expect(ltx.installable).toBe(2);
    expect(ltx.missingBytes).toBe(5 * GB);
    expect(ltx.active).toBe(true);
    expect(ltx.items[0].task).toBe(running);
    const h3 = groups[0].features[1];
    expect(h3.installable).toBe(0);
    expect(h3.active).toBe(false);
  });

  it("says the total is not known when one missing file's size is not", () => {
    const ltx = featureGroups(answer, { "https://h/a": GB }, [])[0].features[0];
    expect(ltx.missingBytes).toBeNull();
  });

  it("puts an event's task in place by key, adding a new one", () => {
    const a = task();
    const b = task({ key: "model:vae/b.safetensors", name: "b.safetensors" });
    const moved = withTask([a, b], { ...a, status: "running", bytes: 5 });
    expect(moved.map((t) => [t.key, t.status])).toEqual([
      [a.key, "running"],
      [b.key, "queued"],
    ]);
    expect(withTask([a], b)).toEqual([a, b]);
  });

  it("tells progress in words and as a fraction", () => {
    expect(taskText(task())).toBe("queued");
    const half = task({ status: "running", bytes: 512 * MB, total: GB });
    expect(taskFraction(half)).toBe(0.5);
    expect(taskText(half)).toBe("512 MB of 1.0 GB · 50%");
    const unsized = task({ status: "running", bytes: 3 * MB });
    expect(taskFraction(unsized)).toBeNull();
    expect(taskText(unsized)).toBe("3 MB so far");
    expect(taskText(task({ status: "done", bytes: GB, total: GB, note: "SHA-256 checked" }))).toBe(
      "done · SHA-256 checked",
    );
    expect(taskFraction(task({ status: "done" }))).toBe(1);
    expect(taskText(task({ status: "canceled", bytes: 20 * MB, total: 40 * MB }))).toBe(
      "canceled at 20 MB of 40 MB",
    );
    expect(taskText(task({ status: "canceled" }))).toBe("canceled");
    expect(taskText(task({ status: "failed", error: "checksum mismatch" }))).toBe("failed");
  });

  it("names where an item goes", () => {
    expect(itemPlace(answer.features[0].items[0])).toBe("models/vae");
    expect(itemPlace(answer.features[1].items[0])).toBe("custom_nodes/p");
  });

  it("picks a target's missing files with an address, each once, and their tasks by name", () => {
    const names = downloadableFiles([
      { want: "a.safetensors", url: "https://h/a" },
      { want: "c.safetensors", url: null },
      { want: "a.safetensors", url: "https://h/a" },
      { want: "d.safetensors", url: "https://h/d" },
    ]);
    expect(names).toEqual(["a.safetensors", "d.safetensors"]);
    const other = task({ key: "model:vae/x", name: "x.safetensors" });
    expect(tasksForFiles([task({ name: "A.safetensors" }), other], names).map((t) => t.name)).toEqual([
      "A.safetensors",
    ]);
  });

  it("counts what an install queued", () => {
    expect(installSummary({ queued: ["k"] })).toBe("1 file queued");
    expect(installSummary({ queued: ["k", "l"] })).toBe("2 files queued");
    expect(installSummary({ queued: [] })).toBe("nothing queued");
  });
});
