import type { FastifyReply } from "fastify";
import { Readable } from "node:stream";
import {
  FILE_CHUNK_BYTES,
  chunkCount,
  newFileId,
  type BusClient,
  type CallContext,
  type Contract,
  type StoredFileLocation,
  type StoredFileRef,
} from "@teamchat/shared";

/** A file part of a multipart request, as @fastify/multipart's onFile gives it to the body. */
export class UploadedFile {
  constructor(
    readonly filename: string,
    readonly contentType: string,
    readonly content: Buffer,
  ) {}
}

/** Types by extension, for parts that name none (Python's guess_type, as Zulip falls back to it). */
const TYPES_BY_EXTENSION: Readonly<Record<string, string>> = {
  avif: "image/avif",
  gif: "image/gif",
  jpeg: "image/jpeg",
  jpg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  svg: "image/svg+xml",
  pdf: "application/pdf",
  mp3: "audio/mpeg",
  wav: "audio/x-wav",
  mp4: "video/mp4",
  webm: "video/webm",
  mov: "video/quicktime",
  html: "text/html",
  json: "application/json",
};

/**
 * A part's type, or the one its name suggests when it gave none: the multipart
 * parser says text/plain for a part without Content-Type (as the Python
 * bindings send files), and Zulip guesses from the name then.
 */
export function partContentType(filename: string, given: string): string {
  if (given !== "text/plain" && given !== "application/octet-stream" && given !== "") return given;
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase();
  return (extension && TYPES_BY_EXTENSION[extension]) || given || "application/octet-stream";
}

/**
 * Writes each file's chunks through the owning service's put-chunk operation
 * (see packages/shared/src/files.ts for why in chunks) and returns the
 * references the operation gets as `files`.
 */
export async function storeFiles(
  bus: BusClient,
  putChunk: Contract,
  files: UploadedFile[],
  ctx: CallContext,
): Promise<StoredFileRef[]> {
  const refs: StoredFileRef[] = [];
  for (const file of files) {
    const fileId = newFileId();
    for (let n = 0; n < chunkCount(file.content.length); n++) {
      const data = file.content.subarray(n * FILE_CHUNK_BYTES, (n + 1) * FILE_CHUNK_BYTES).toString("base64");
      await bus.request(putChunk, { file_id: fileId, n, data }, ctx);
    }
    refs.push({
      file_id: fileId,
      filename: file.filename,
      content_type: partContentType(file.filename, file.contentType),
      size: file.content.length,
    });
  }
  return refs;
}

/**
 * Zulip's INLINE_MIME_TYPES: what browsers may show in the page; anything else
 * (HTML and SVG above all, which could run scripts) is served as a download.
 */
const INLINE_MIME_TYPES = new Set([
  "application/pdf",
  "audio/aac",
  "audio/flac",
  "audio/mp4",
  "audio/mpeg",
  "audio/wav",
  "audio/webm",
  "image/apng",
  "image/avif",
  "image/gif",
  "image/jpeg",
  "image/png",
  "image/webp",
  "video/mp4",
  "video/quicktime",
  "video/webm",
]);

/** Zulip's patch_disposition_header (RFC 6266; RFC 8187 for names that are not ASCII). */
export function contentDisposition(filename: string, contentType: string): string {
  const disposition = INLINE_MIME_TYPES.has(contentType) ? "inline" : "attachment";
  // eslint-disable-next-line no-control-regex
  const fileExpr = /^[\x00-\x7f]*$/.test(filename)
    ? `filename="${filename.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`
    : `filename*=utf-8''${encodeURIComponent(filename)}`;
  return `${disposition}; ${fileExpr}`;
}

/** Streams a stored file, one chunk read from its service at a time. */
export function sendStoredFile(
  reply: FastifyReply,
  bus: BusClient,
  readChunk: Contract,
  location: StoredFileLocation,
  ctx: CallContext,
): FastifyReply {
  async function* chunks() {
    for (let n = 0; n < location.chunks; n++) {
      const { data } = (await bus.request(readChunk, { file_id: location.file_id, n }, ctx)) as { data: string };
      yield Buffer.from(data, "base64");
    }
  }
  return reply.type(location.content_type).header("content-length", location.size).send(Readable.from(chunks()));
}
