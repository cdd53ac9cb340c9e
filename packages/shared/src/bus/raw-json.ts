/** A reply already serialized as JSON (a contract's reply), as UTF-8 bytes: sent on without being decoded or parsed. */
export class RawJson {
  readonly bytes: Buffer;

  constructor(json: string | Uint8Array) {
    this.bytes =
      typeof json === "string" ? Buffer.from(json) : Buffer.from(json.buffer, json.byteOffset, json.byteLength);
  }

  /** The JSON text (decoded on each call). */
  get json(): string {
    return this.bytes.toString("utf8");
  }

  /**
   * One object with the members of each part in turn (a later part's member
   * wins, as in JSON.parse), joined as bytes: POST /register's large state is
   * copied once, not decoded, sliced, joined and encoded again
   * (docs/adr/0028-replies-as-json-bytes.md).
   */
  static merge(parts: Array<RawJson | object>): RawJson {
    const members = parts
      .map((p) => (p instanceof RawJson ? p.bytes : Buffer.from(JSON.stringify(p))))
      .filter((json) => !(json.equals(EMPTY_OBJECT) || json.equals(NULL)))
      .flatMap((json, i) => (i > 0 ? [COMMA, json.subarray(1, -1)] : [json.subarray(1, -1)]));
    return new RawJson(Buffer.concat([OPEN_BRACE, ...members, CLOSE_BRACE]));
  }
}
const OPEN_BRACE = Buffer.from("{");
/** Exported for the server, which closes a success's reply with it too. */
export const CLOSE_BRACE = Buffer.from("}");
const COMMA = Buffer.from(",");
const EMPTY_OBJECT = Buffer.from("{}");
const NULL = Buffer.from("null");
