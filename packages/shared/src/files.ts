/**
 * Files kept in the database (uploads, custom emoji images, avatars), shared by the
 * services that own them. The bus carries JSON and NATS refuses messages over
 * 1 MiB by default, so a file travels in base64 chunks of FILE_CHUNK_BYTES: the
 * gateway writes each chunk through the owning service's `<service>.files.put_chunk`
 * (any instance may take any chunk: each is one document) and then calls the
 * operation with a reference to the file (`StoredFileRef`); downloads read the
 * chunks back through `<service>.files.read_chunk`, one at a time, so memory
 * holds one chunk per download. Chunks are documents of a `file_chunks`
 * collection (`{fileId, n, data}`, GridFS's layout), which works on MongoDB
 * and on the embedded server alike; the owning service keeps the file's
 * metadata (name, type, size) with its own records.
 */
import { randomBytes } from "node:crypto";
import { Schema, type Connection } from "mongoose";
import { z } from "zod";
import type { Handler } from "./bus";
import { defineContract, emptyReply } from "./contract";
import { TenantRepository } from "./db";
import { badRequest } from "./errors";
import { int } from "./contracts/common";

/** 512 KiB: in base64 with the envelope, well under NATS's default 1 MiB max_payload. */
export const FILE_CHUNK_BYTES = 512 * 1024;

/** A file the gateway stored for an upload operation: what the multipart part said, and its size. */
export const storedFileRefSchema = z.strictObject({
  file_id: z.string(),
  filename: z.string(),
  content_type: z.string(),
  size: int,
});
export type StoredFileRef = z.infer<typeof storedFileRefSchema>;

/** What an upload operation's params hold: the request's files, as the gateway stored them. */
export const uploadedFilesParam = z.array(storedFileRefSchema).default([]);

/** Where a download's bytes are: the file id and its chunk count. */
export const storedFileLocationSchema = z.strictObject({
  file_id: z.string(),
  content_type: z.string(),
  size: int,
  chunks: int,
});
export type StoredFileLocation = z.infer<typeof storedFileLocationSchema>;

/** The internal operations (no HTTP binding) a service that stores files answers. */
export const fileContracts = (service: string) => ({
  putChunk: defineContract({
    subject: `${service}.files.put_chunk`,
    params: z.object({ file_id: z.string(), n: int, data: z.string() }),
    reply: emptyReply,
  }),
  readChunk: defineContract({
    subject: `${service}.files.read_chunk`,
    params: z.object({ file_id: z.string(), n: int }),
    reply: z.strictObject({ data: z.string() }),
  }),
});

type FileContractSet = ReturnType<typeof fileContracts>;

/** A new file's id: random, so a file's chunks cannot be guessed or written by another upload. */
export const newFileId = (): string => randomBytes(12).toString("hex");

export const chunkCount = (size: number): number => Math.max(1, Math.ceil(size / FILE_CHUNK_BYTES));

interface FileChunkDoc {
  realmId: number;
  fileId: string;
  n: number;
  data: Buffer;
}

const fileChunkSchema = new Schema<FileChunkDoc>(
  {
    realmId: { type: Number, required: true },
    fileId: { type: String, required: true },
    n: { type: Number, required: true },
    data: { type: Buffer, required: true },
  },
  { collection: "file_chunks", versionKey: false },
);
// read, putChunk (a chunk written twice by a retried request stays one), remove, chunksStored
fileChunkSchema.index({ realmId: 1, fileId: 1, n: 1 }, { unique: true });

/** The chunks of one service's files. */
export class FileStore extends TenantRepository<FileChunkDoc> {
  constructor(conn: Connection) {
    super(conn.model<FileChunkDoc>("FileChunk", fileChunkSchema));
  }

  async putChunk(realmId: number, fileId: string, n: number, data: Buffer): Promise<void> {
    await this.upsertOne(realmId, { fileId, n }, { $set: { data } });
  }

  async readChunk(realmId: number, fileId: string, n: number): Promise<Buffer | null> {
    const chunk = await this.findOne(realmId, { fileId, n });
    if (!chunk) return null;
    // lean reads give the driver's Binary, whose bytes are its `buffer`
    const data = chunk.data as Buffer | { buffer: Uint8Array };
    return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer);
  }

  /** A whole file the service itself made (a resized image), written in chunks as the gateway writes uploads. */
  async write(realmId: number, fileId: string, data: Buffer): Promise<void> {
    for (let n = 0; n < chunkCount(data.length); n++) {
      await this.putChunk(realmId, fileId, n, data.subarray(n * FILE_CHUNK_BYTES, (n + 1) * FILE_CHUNK_BYTES));
    }
  }

  /** A whole stored file, for an operation that works on its bytes (small files only: it is held in memory). */
  async read(realmId: number, file: Pick<StoredFileRef, "file_id" | "size">): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for (let n = 0; n < chunkCount(file.size); n++) {
      const chunk = await this.readChunk(realmId, file.file_id, n);
      if (!chunk) throw new Error(`file ${file.file_id} has no chunk ${n}`);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  /** Whether every chunk of a file of `size` bytes arrived (the gateway writes them all before the operation). */
  async isComplete(realmId: number, file: StoredFileRef): Promise<boolean> {
    return (await this.count(realmId, { fileId: file.file_id })) === chunkCount(file.size);
  }

  async remove(realmId: number, fileIds: string[]): Promise<void> {
    if (fileIds.length) await this.deleteMany(realmId, { fileId: { $in: fileIds } });
  }

  /**
   * An operation's check of the files it was given: `check` (which throws its
   * refusal), then that each arrived whole. Any refusal deletes every file of
   * the request first, so a refused request leaves no chunks behind.
   */
  async accept(realmId: number, files: StoredFileRef[], check: () => Promise<void> | void): Promise<void> {
    try {
      await check();
      for (const file of files) {
        if (!(await this.isComplete(realmId, file))) throw badRequest("Upload incomplete: send the file again");
      }
    } catch (err) {
      await this.remove(
        realmId,
        files.map((f) => f.file_id),
      );
      throw err;
    }
  }

  /** The bus side of the chunk transfer: handlers of the service's FileContracts. */
  handlers() {
    const put: Handler<FileContractSet["putChunk"]> = async ({ file_id, n, data }, ctx) => {
      if (!ctx.realm) throw new Error("file chunks belong to an organization");
      await this.putChunk(ctx.realm.id, file_id, n, Buffer.from(data, "base64"));
      return {};
    };
    const read: Handler<FileContractSet["readChunk"]> = async ({ file_id, n }, ctx) => {
      if (!ctx.realm) throw new Error("file chunks belong to an organization");
      const data = await this.readChunk(ctx.realm.id, file_id, n);
      if (!data) throw new Error(`file ${file_id} has no chunk ${n}`);
      return { data: data.toString("base64") };
    };
    return { put, read };
  }
}
