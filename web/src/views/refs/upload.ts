// Multipart uploads with progress: fetch cannot report how much of a request body has gone, so files are posted
// with XMLHttpRequest and its upload.onprogress. Errors come back as the same ApiError the rest of the page reads.
import { ApiError, studioUrl } from "../../api.ts";

export interface Progress {
  loaded: number;
  total: number | null;
}

export interface Upload<T> {
  done: Promise<T>;
  abort(): void;
}

/** POST `fields` and `file` as multipart/form-data to `/studio/<path>`, reporting the bytes sent as they go. */
export function uploadFile<T>(
  path: string,
  fields: readonly [string, string][],
  file: File,
  onProgress: (p: Progress) => void,
): Upload<T> {
  const xhr = new XMLHttpRequest();
  const form = new FormData();
  for (const [k, v] of fields) form.append(k, v);
  // The file goes last, so the service has every field before the bytes start arriving.
  form.append("file", file, file.name);
  const done = new Promise<T>((resolve, reject) => {
    xhr.upload.onprogress = (e) =>
      onProgress({ loaded: e.loaded, total: e.lengthComputable ? e.total : null });
    xhr.onerror = () => reject(new ApiError("the upload stopped: the service does not answer", 0, null));
    xhr.onabort = () => reject(new ApiError("upload cancelled", 0, null));
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        body = xhr.responseText;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as T);
      else {
        const error =
          body && typeof body === "object" && typeof (body as { error?: unknown }).error === "string"
            ? (body as { error: string }).error
            : `POST ${path}: ${xhr.status} ${xhr.statusText}`;
        reject(new ApiError(error, xhr.status, body));
      }
    };
  });
  xhr.open("POST", studioUrl(path));
  xhr.send(form);
  return { done, abort: () => xhr.abort() };
}
