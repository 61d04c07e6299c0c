// GET /studio/info: what this server is, where its settings live and whether the media tools are there.
import { defineFunction } from "../fn.ts";

export default defineFunction({
  method: "GET",
  path: "/info",
  queue: true,
  summary: "Server info: name, version, Node version, roles, port, settings folder, ffmpeg and ffprobe",
  async handler(_input, ctx) {
    const [ffmpeg, ffprobe] = await Promise.all([ctx.media.find("ffmpeg"), ctx.media.find("ffprobe")]);
    return {
      service: "episode-studio",
      version: ctx.version,
      node: process.version,
      roles: ctx.roles,
      host: ctx.server?.host ?? null,
      port: ctx.server?.port ?? null,
      settings: ctx.home,
      ffmpeg,
      ffprobe,
    };
  },
});
