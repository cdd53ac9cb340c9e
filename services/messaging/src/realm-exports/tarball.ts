import { once } from "node:events";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { pack, type Pack } from "tar-stream";
import { FILE_CHUNK_BYTES, type FileStore } from "@teamchat/shared";

/**
 * A tar.gz written as it is made into a file's chunks in the FileStore: each
 * entry goes through tar and gzip into a sink that stores every full chunk
 * before it takes more, so memory holds about one chunk and the entry being
 * written, whatever the tarball's size.
 */
export class TarballWriter {
  private readonly tar: Pack = pack();
  private readonly done: Promise<void>;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private chunks = 0;
  /** bytes of the compressed tarball */
  size = 0;

  constructor(files: FileStore, realmId: number, fileId: string) {
    const store = async (data: Buffer) => {
      await files.putChunk(realmId, fileId, this.chunks++, data);
      this.size += data.length;
    };
    const sink = new Writable({
      write: (data: Buffer, _enc, cb) => {
        this.pending.push(data);
        this.pendingBytes += data.length;
        if (this.pendingBytes < FILE_CHUNK_BYTES) return cb();
        const all = Buffer.concat(this.pending);
        const rest = all.subarray(FILE_CHUNK_BYTES);
        this.pending = rest.length ? [rest] : [];
        this.pendingBytes = rest.length;
        store(all.subarray(0, FILE_CHUNK_BYTES)).then(() => cb(), cb);
      },
      final: (cb) => {
        // a file has at least one chunk (FileStore's chunkCount), an empty tarball none otherwise
        if (this.pendingBytes === 0 && this.chunks > 0) return cb();
        store(Buffer.concat(this.pending)).then(() => cb(), cb);
      },
    });
    this.done = pipeline(this.tar, createGzip(), sink);
    // a failure is reported by finish(); this keeps it from being unhandled meanwhile
    this.done.catch(() => undefined);
  }

  /** One file of the tarball, whole. */
  async add(name: string, content: string | Buffer): Promise<void> {
    const data = typeof content === "string" ? Buffer.from(content) : content;
    await new Promise<void>((resolve, reject) =>
      this.entry(name, data.length, (err) => (err ? reject(err) : resolve()), data),
    );
  }

  /** One file of `size` bytes, given piece by piece (an upload's chunks). */
  async addStream(name: string, size: number, pieces: AsyncIterable<Buffer>): Promise<void> {
    let settle: (err?: Error | null) => void = () => undefined;
    const finished = new Promise<void>((resolve, reject) => (settle = (err) => (err ? reject(err) : resolve())));
    const entry = this.entry(name, size, (err) => settle(err));
    const failed = finished.then(
      () => undefined,
      (err: unknown) => err,
    );
    for await (const piece of pieces) {
      // discarded meanwhile: the entry is destroyed and no drain comes
      if (!entry.write(piece)) await Promise.race([once(entry, "drain"), failed]);
      if (entry.destroyed) break;
    }
    entry.end(() => undefined);
    await finished;
  }

  /**
   * An entry whose end or failure is told to `done` alone: destroyed with the
   * tarball (discard), an entry also emits its error, which unheard would end
   * the process.
   */
  private entry(
    name: string,
    size: number,
    done: (err?: Error | null) => void,
    data?: Buffer,
  ): ReturnType<Pack["entry"]> {
    const header = { name, size, mtime: new Date() };
    const entry = data ? this.tar.entry(header, data, done) : this.tar.entry(header, done);
    entry.on("error", () => undefined);
    return entry;
  }

  /** Stops writing (an attempt that failed or was aborted); what was stored is the caller's to remove. */
  discard(): void {
    this.tar.destroy();
  }

  /** Ends the tarball; resolves once every chunk is stored. */
  async finish(): Promise<void> {
    this.tar.finalize();
    await this.done;
  }
}
