/**
 * A reply already serialized as JSON (a contract's reply), as UTF-8 bytes: sent on without being
 * decoded or parsed. The bytes may be held in pieces (a merge's parts, a shared list with one entry
 * spliced in): their concatenation is the JSON text, copied into one buffer only where it is
 * written out (docs/adr/0028-replies-as-json-bytes.md).
 */
export class RawJson {
  /** the JSON text's UTF-8 bytes, in order; shared with whoever made them, never written to */
  readonly chunks: readonly Buffer[];
  /** the bytes in all */
  readonly length: number;

  constructor(json: string | Uint8Array | readonly Uint8Array[]) {
    const pieces = typeof json === "string" || json instanceof Uint8Array ? [json] : json;
    // a Buffer is kept as it is (a SharedPiece's slice is known by its identity: shared-pieces.ts)
    this.chunks = pieces.map((p) =>
      typeof p === "string"
        ? Buffer.from(p)
        : Buffer.isBuffer(p)
          ? p
          : Buffer.from(p.buffer, p.byteOffset, p.byteLength),
    );
    this.length = this.chunks.reduce((n, c) => n + c.length, 0);
  }

  /** The bytes in one buffer: the only piece itself, or the pieces copied into a new one. */
  get bytes(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.length);
  }

  /** The JSON text (decoded on each call). */
  get json(): string {
    return this.bytes.toString("utf8");
  }

  /** `before`, the bytes and `after` in one new buffer: the pieces are copied once, as they are written out. */
  framed(before: Uint8Array, after: Uint8Array): Buffer {
    return Buffer.concat([before, ...this.chunks, after], before.length + this.length + after.length);
  }

  /**
   * One object with the members of each part in turn (a later part's member
   * wins, as in JSON.parse), joined as bytes: POST /register's large state is
   * neither decoded, sliced, joined and encoded again nor copied: the merged
   * value holds the parts' pieces (docs/adr/0028-replies-as-json-bytes.md).
   */
  static merge(parts: Array<RawJson | object>): RawJson {
    const chunks: Buffer[] = [OPEN_BRACE];
    for (const part of parts) {
      const json = part instanceof RawJson ? part : new RawJson(JSON.stringify(part));
      if (json.length <= NULL.length && (json.bytes.equals(EMPTY_OBJECT) || json.bytes.equals(NULL))) continue;
      if (chunks.length > 1) chunks.push(COMMA);
      chunks.push(...membersOf(json));
    }
    chunks.push(CLOSE_BRACE);
    return new RawJson(chunks);
  }
}

/** An object's pieces without its braces (its first and last byte). */
function membersOf(json: RawJson): Buffer[] {
  const pieces = json.chunks.filter((c) => c.length > 0);
  pieces[0] = pieces[0]!.subarray(1);
  pieces[pieces.length - 1] = pieces.at(-1)!.subarray(0, -1);
  return pieces.filter((c) => c.length > 0);
}

const OPEN_BRACE = Buffer.from("{");
/** Exported for the server, which closes a success's reply with it too. */
export const CLOSE_BRACE = Buffer.from("}");
const COMMA = Buffer.from(",");
const EMPTY_OBJECT = Buffer.from("{}");
const NULL = Buffer.from("null");
