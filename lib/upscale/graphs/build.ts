// Small pieces every finishing graph shares: numbered nodes with the classes they need, the take's video read with
// core nodes (LoadVideo + GetVideoComponents: frames, sound, rate), frames brought to the delivered size, and the
// core saver (CreateVideo with the take's sound and rate, SaveVideo as an mp4).
import type { ApiGraph, Link } from "../../targets/graph.ts";
import type { BuiltGraph, ModelNeed, NodeNeed, OutputSize, SourceVideo } from "./types.ts";

export class GraphBuilder {
  readonly graph: ApiGraph;
  private readonly nodes = new Map<string, NodeNeed>();
  private readonly models = new Map<string, ModelNeed>();
  readonly notes: string[] = [];
  private next = 1;
  private readonly prefix: string;

  /** Starts empty, or from `graph` (kept as is) with new nodes numbered under `prefix` so ids never collide. */
  constructor(graph: ApiGraph = {}, prefix = "") {
    this.graph = graph;
    this.prefix = prefix;
  }

  /** Records a node class the graph sends (for nodes that came with a graph given to the constructor). */
  need(class_type: string, pack?: string): void {
    if (!this.nodes.has(class_type)) this.nodes.set(class_type, pack ? { class_type, pack } : { class_type });
  }

  /** Adds a node and answers its id; `pack` names the custom-node pack the class comes from. */
  add(class_type: string, inputs: Record<string, unknown>, pack?: string, title?: string): string {
    const id = `${this.prefix}${this.next++}`;
    this.graph[id] = { class_type, inputs, ...(title ? { _meta: { title } } : {}) };
    this.need(class_type, pack);
    return id;
  }

  model(need: ModelNeed): void {
    this.models.set(`${need.folder}/${need.file}`, need);
  }

  built(output: string): BuiltGraph {
    return {
      graph: this.graph,
      needs: { nodes: [...this.nodes.values()], models: [...this.models.values()] },
      output,
      notes: this.notes,
    };
  }
}

export const out = (id: string, slot = 0): Link => [id, slot];

/** The take's frames, sound and rate: `{images, audio, fps}` links. */
export function loadVideo(b: GraphBuilder, source: SourceVideo): { images: Link; audio: Link; fps: Link } {
  const load = b.add("LoadVideo", { file: source.file }, undefined, "the take");
  const parts = b.add("GetVideoComponents", { video: out(load) });
  return { images: out(parts, 0), audio: out(parts, 1), fps: out(parts, 2) };
}

/** Frames brought to exactly `size`: cover and centre crop, contain and pad black, or a plain scale. */
export function fitTo(b: GraphBuilder, images: Link, size: OutputSize): Link {
  if (size.fit === "pad") {
    const id = b.add("ResizeAndPadImage", {
      image: images,
      target_width: size.width,
      target_height: size.height,
      padding_color: "black",
      interpolation: "lanczos",
    });
    return out(id);
  }
  const id = b.add("ImageScale", {
    image: images,
    upscale_method: "lanczos",
    width: size.width,
    height: size.height,
    crop: size.fit === "crop" ? "center" : "disabled",
  });
  return out(id);
}

/** The core saver: an mp4 of `images` at the take's rate with the take's sound. Answers the saver's id. */
export function saveVideo(b: GraphBuilder, images: Link, audio: Link, fps: Link, prefix: string): string {
  const video = b.add("CreateVideo", { images, fps, audio });
  return b.add("SaveVideo", { video: out(video), filename_prefix: prefix, format: "mp4", codec: "h264" });
}
