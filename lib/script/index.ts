// The script package: parser, story IR helpers, sizes, pacing, seeds, rounding and canonical JSON.
export * from "./canonical.ts";
export * from "./errors.ts";
export * from "./pacing.ts";
export * from "./parse.ts";
export * from "./rounding.ts";
export * from "./seeds.ts";
export * from "./sizes.ts";
export * from "./story.ts";
export type * from "./types.ts";
