// The series package: loading and validating series.json.
export * from "./errors.ts";
export * from "./load.ts";
export type * from "./types.ts";
