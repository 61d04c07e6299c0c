// What each saver/preview class writes and the UI output shape it reports (engines A.8): images (output and
// temp), video under `images` + `animated: [true]`, audio, VHS `gifs`, `text`, an unknown `videos` key, and the
// project's H3 savers (targets 3.13).
import { readdirSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Behaviour, NodeDef } from "./catalogue.ts";
import { type Dirs, savePath } from "./files.ts";
import { type MediaMaker, planAudio, planImage, planLoadedVideo, planVideo } from "./media.ts";
import { pyStr } from "./py.ts";
import { withShotList } from "./shotlist-loader.ts";
import type { FileItem, Graph, UiOutput } from "./types.ts";

export interface SaveContext {
  graph: Graph;
  nodeId: string;
  dirs: Dirs;
  media: MediaMaker;
  def: (classType: string) => NodeDef | undefined;
}

const pad5 = (n: number) => String(n).padStart(5, "0");

function strInput(graph: Graph, id: string, name: string): string | undefined {
  const v = graph[id]?.inputs?.[name];
  return typeof v === "string" && v !== "" ? v : undefined;
}

function safeSubfolder(v: string | undefined, fallback: string): string {
  if (!v) return fallback;
  const norm = path.posix.normalize(v.replace(/\\/g, "/"));
  if (norm.startsWith("/") || norm.split("/").includes("..") || norm === ".") return fallback;
  return norm;
}

function seedOf(graph: Graph): number {
  for (const node of Object.values(graph)) {
    const s = node?.inputs?.noise_seed ?? node?.inputs?.seed;
    if (typeof s === "number") return s;
  }
  return 7;
}

function tempPrefix(): string {
  let s = "";
  for (let i = 0; i < 5; i++) s += String.fromCharCode(97 + Math.floor(Math.random() * 26));
  return `ComfyUI_temp_${s}`;
}

async function counted(
  root: string,
  prefix: string,
  ext: string,
  type: FileItem["type"],
): Promise<{ file: string; item: FileItem }> {
  const { folder, name, counter, subfolder } = await savePath(root, prefix);
  const filename = `${name}_${pad5(counter)}_.${ext}`;
  return { file: path.join(folder, filename), item: { filename, subfolder, type } };
}

/** Run a saver node: write its files and return its UI output. */
export async function runSaver(behaviour: Behaviour, c: SaveContext): Promise<UiOutput | undefined> {
  const { graph, nodeId: id, dirs, media, def } = c;
  const prefix = (fallback: string) => strInput(graph, id, "filename_prefix") ?? fallback;
  switch (behaviour) {
    case "save_image":
    case "preview_image": {
      const temp = behaviour === "preview_image";
      const plan = await planImage(graph, id, def, dirs.input);
      const { folder, name, counter, subfolder } = await savePath(
        temp ? dirs.temp : dirs.output,
        temp ? tempPrefix() : prefix("ComfyUI"),
      );
      const images: FileItem[] = [];
      for (let b = 0; b < plan.batch; b++) {
        const filename = `${name}_${pad5(counter + b)}_.png`;
        await media.png(path.join(folder, filename), plan.width, plan.height, seedOf(graph) + b);
        images.push({ filename, subfolder, type: temp ? "temp" : "output" });
      }
      return { images };
    }
    case "save_video":
    case "save_webm": {
      const webm = behaviour === "save_webm";
      const loaded = webm ? undefined : await planLoadedVideo(graph, id, def, dirs.input);
      if (loaded) {
        const { file, item } = await counted(dirs.output, prefix("video/ComfyUI"), "mp4", "output");
        await media.videoFrom(file, loaded);
        return { images: [item], animated: [true] };
      }
      const plan = planVideo(graph, id, def);
      const { file, item } = await counted(
        dirs.output,
        prefix(webm ? "ComfyUI" : "video/ComfyUI"),
        webm ? "webm" : "mp4",
        "output",
      );
      await media.video(file, webm ? { ...plan, audioSeconds: null } : plan, webm ? "webm" : "mp4");
      return { images: [item], animated: [true] };
    }
    case "save_audio":
    case "preview_audio": {
      const temp = behaviour === "preview_audio";
      const { file, item } = await counted(
        temp ? dirs.temp : dirs.output,
        temp ? tempPrefix() : prefix("audio/ComfyUI"),
        "flac",
        temp ? "temp" : "output",
      );
      await media.audio(file, planAudio(graph, id, def), "flac");
      return { audio: [item] };
    }
    case "vhs_combine": {
      const plan = planVideo(graph, id, def);
      const format = strInput(graph, id, "format") ?? "image/gif";
      const ext = format === "video/h264-mp4" ? "mp4" : format === "video/webm" ? "webm" : "gif";
      const keep = graph[id]?.inputs?.save_output !== false;
      const root = keep ? dirs.output : dirs.temp;
      const { folder, name, subfolder } = await savePath(root, prefix("AnimateDiff"));
      let counter = 1;
      for (const f of readdirSync(folder)) {
        const m = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}_(\\d{5})`).exec(f);
        if (m) counter = Math.max(counter, Number(m[1]) + 1);
      }
      const filename = `${name}_${pad5(counter)}.${ext}`;
      const workflow = `${name}_${pad5(counter)}.png`;
      await media.png(path.join(folder, workflow), 64, 64, counter);
      await media.video(
        path.join(folder, filename),
        ext === "mp4" ? plan : { ...plan, audioSeconds: null },
        ext as "mp4" | "webm" | "gif",
      );
      return {
        gifs: [
          {
            filename,
            subfolder,
            type: keep ? "output" : "temp",
            format,
            frame_rate: plan.fps,
            workflow,
            fullpath: path.join(folder, filename),
          },
        ],
      };
    }
    case "preview_any": {
      const src = graph[id]?.inputs?.source;
      let text = "None";
      if (Array.isArray(src) && typeof src[0] === "string") {
        const node = graph[src[0]];
        const v = node?.inputs?.value ?? node?.inputs?.text;
        text =
          v !== undefined && !Array.isArray(v) ? pyStr(v) : `<${pyStr(node?.class_type)} output ${src[1]}>`;
      }
      return { text: [text] };
    }
    case "h3_shot": {
      // A shot-list loader feeding the graph hands on the frozen shot list's size, length and shot id.
      const loaded = await withShotList(graph);
      const plan = planVideo(loaded, id, def);
      const subfolder = safeSubfolder(strInput(graph, id, "subfolder"), "h3pipe");
      const folder = path.join(dirs.output, subfolder);
      await mkdir(folder, { recursive: true });
      const shot = strInput(loaded, id, "shot_id")?.replace(/[^\w.-]/g, "_");
      const take = graph[id]?.inputs?.take;
      const stem = shot
        ? `${shot}_t${String(typeof take === "number" ? take : 1).padStart(2, "0")}`
        : (await counted(dirs.output, `${subfolder}/H3SaveShot`, "mp4", "output")).item.filename.replace(
            /\.mp4$/,
            "",
          );
      await media.video(path.join(folder, `${stem}.mp4`), plan, "mp4");
      const out: UiOutput = {
        images: [{ filename: `${stem}.mp4`, subfolder, type: "output" }],
        animated: [true],
      };
      if (plan.audioSeconds !== null) {
        await media.audio(path.join(folder, `${stem}_h3.wav`), plan.audioSeconds, "wav");
        out.audio = [{ filename: `${stem}_h3.wav`, subfolder, type: "output" }];
      }
      return out;
    }
    case "h3_ref_take":
    case "h3_ref_audio": {
      const audio = behaviour === "h3_ref_audio";
      const ext = audio ? "wav" : "png";
      const subfolder = safeSubfolder(strInput(graph, id, "subfolder"), "h3pipe");
      const folder = path.join(dirs.output, subfolder);
      await mkdir(folder, { recursive: true });
      const sidecar = strInput(graph, id, "sidecar");
      const filename = sidecar
        ? `${path.posix.basename(sidecar.replace(/\\/g, "/")).replace(/\.json$/i, "")}.${ext}`
        : (
            await counted(
              dirs.output,
              `${subfolder}/${audio ? "H3SaveRefAudio" : "H3SaveRefTake"}`,
              ext,
              "output",
            )
          ).item.filename;
      const file = path.join(folder, filename);
      if (audio) {
        await media.audio(file, planAudio(graph, id, def), "wav");
        return { audio: [{ filename, subfolder, type: "output" }] };
      }
      const plan = await planImage(graph, id, def, dirs.input);
      await media.png(file, plan.width, plan.height, seedOf(graph));
      return { images: [{ filename, subfolder, type: "output" }] };
    }
    case "extra_output": {
      const plan = { ...planVideo(graph, id, def), audioSeconds: null };
      const { file, item } = await counted(dirs.output, "double/videos", "mp4", "output");
      await media.video(file, plan, "mp4");
      return { videos: [item] };
    }
    case "sampler":
      return undefined;
  }
}
