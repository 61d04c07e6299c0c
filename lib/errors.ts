// StudioError: the one way a handler says "this request failed" with a status and a message for a person.
export class StudioError extends Error {
  readonly status: number;
  readonly extra: Record<string, unknown> | undefined;

  constructor(status: number, message: string, extra?: Record<string, unknown>) {
    super(message);
    this.name = "StudioError";
    this.status = status;
    this.extra = extra;
  }

  /** The flat JSON body: `{"error": message, ...extra}`. */
  body(): Record<string, unknown> {
    return { error: this.message, ...(this.extra ?? {}) };
  }
}

export const badRequest = (message: string, extra?: Record<string, unknown>) =>
  new StudioError(400, message, extra);
export const forbidden = (message: string) => new StudioError(403, message);
export const notFound = (message: string) => new StudioError(404, message);
export const conflict = (message: string, extra?: Record<string, unknown>) =>
  new StudioError(409, message, extra);
export const notImplemented = (message: string) => new StudioError(501, message);
