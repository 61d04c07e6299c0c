// The encoder settings every file the studio writes shares: H.264 pictures tagged BT.709 (so re-encoded, resampled
// and titled clips join copied ones as one stream and play in the same colours), and the cut's 48 kHz stereo AAC.

/** The sound rate of every cut, title and master. */
export const AUDIO_RATE = 48000;

/** A filter step bringing any sound to the cut's sample format, rate and stereo layout. */
export const AUDIO_FORMAT = `aformat=sample_fmts=fltp:sample_rates=${AUDIO_RATE}:channel_layouts=stereo`;

/** BT.709 said in the stream: HD pictures are, and players that are not told guess differently. */
export const BT709_TAGS: readonly string[] = [
  "-color_primaries",
  "bt709",
  "-color_trc",
  "bt709",
  "-colorspace",
  "bt709",
];

/** How hard x264 works (`preset`) and how much picture it keeps (`crf`: lower keeps more). */
export interface H264Settings {
  preset: "veryfast" | "fast" | "medium" | "slow";
  crf: number;
}

/** H.264 high profile, 8-bit 4:2:0 (every player and the concat join take it), BT.709 tagged. */
export function h264Args(s: H264Settings): string[] {
  return [
    "-c:v",
    "libx264",
    "-preset",
    s.preset,
    "-crf",
    String(s.crf),
    "-pix_fmt",
    "yuv420p",
    "-profile:v",
    "high",
    ...BT709_TAGS,
  ];
}

/** AAC at 192 kb/s, 48 kHz stereo; `fast`: ffmpeg's fast coder (twice as fast, for cuts that only check timing). */
export function aacArgs(opts: { fast?: boolean } = {}): string[] {
  return [
    "-c:a",
    "aac",
    ...(opts.fast ? ["-aac_coder", "fast"] : []),
    "-b:a",
    "192k",
    "-ar",
    String(AUDIO_RATE),
    "-ac",
    "2",
  ];
}
