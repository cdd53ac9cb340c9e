/**
 * Large reply bytes that many replies share (register's user list of an organization, the same for
 * every member who sees it alike), sent to a caller that keeps them once and then referred to: a
 * caller holding a piece gets a reply of the bytes around it and where it goes, so the piece is
 * neither copied into each reply nor carried over the bus for each
 * (docs/adr/0059-shared-reply-pieces.md).
 *
 * The caller says which pieces it holds for the request's organization (PIECES_HELD_HEADER; its
 * presence says it takes pieces at all); the server puts in references to those and attaches any
 * other piece its reply uses after the reply's JSON, once, for the caller to keep; PIECES_HEADER
 * says where each goes. A piece's id is a digest of its bytes, so a caller can never put in stale
 * bytes, whichever instance built them.
 */
import { createHash } from "node:crypto";
import type { RawJson } from "./raw-json";

/** Request: the ids of the pieces the caller holds for the request's organization, comma-separated (may be empty). */
export const PIECES_HELD_HEADER = "x-pieces-held";
/** Reply: where the pieces go (Placement, as JSON); absent when the reply has none. */
export const PIECES_HEADER = "x-pieces";

/** The ids a caller says it holds per request, at most: the newest it was sent for that organization. */
export const MAX_HELD_PER_REQUEST = 8;

/** Immutable bytes that replies share; `slice` marks the parts of it a reply uses. */
export class SharedPiece {
  readonly id: string;

  constructor(readonly bytes: Buffer) {
    this.id = createHash("sha256").update(bytes).digest("base64url").slice(0, 22);
  }

  /** bytes[from, to), as a chunk of a RawJson that the server can send as a reference. */
  slice(from: number, to: number = this.bytes.length): Buffer {
    const chunk = this.bytes.subarray(from, to);
    slices.set(chunk, { piece: this, from });
    return chunk;
  }
}

/** The chunks made by SharedPiece.slice, and what they are a slice of. */
const slices = new WeakMap<Buffer, { piece: SharedPiece; from: number }>();

/**
 * A reply's layout: the JSON text is the payload's first `end` bytes with, at each reference's
 * offset (ascending), bytes [from, to) of that piece put in; `attached` pieces follow the JSON
 * text in the payload ([id, offset, length]), for the caller to keep.
 */
interface Placement {
  end: number;
  refs: Array<[offset: number, id: string, from: number, to: number]>;
  attached: Array<[id: string, offset: number, length: number]>;
}

/**
 * The server's end: `before`, the reply's bytes and `after`, with the chunks that are slices of a
 * shared piece sent as references; null when the reply has none (it is framed as usual).
 */
export function framedWithPieces(
  data: RawJson,
  held: ReadonlySet<string>,
  before: Uint8Array,
  after: Uint8Array,
): { payload: Buffer; placement: string } | null {
  if (!data.chunks.some((c) => slices.has(c))) return null;
  const out: Uint8Array[] = [before];
  let offset = before.length;
  const refs: Placement["refs"] = [];
  const toAttach = new Map<string, SharedPiece>();
  for (const chunk of data.chunks) {
    const slice = slices.get(chunk);
    if (!slice) {
      out.push(chunk);
      offset += chunk.length;
      continue;
    }
    refs.push([offset, slice.piece.id, slice.from, slice.from + chunk.length]);
    if (!held.has(slice.piece.id)) toAttach.set(slice.piece.id, slice.piece);
  }
  out.push(after);
  const end = offset + after.length;
  const attached: Placement["attached"] = [];
  let at = end;
  for (const piece of toAttach.values()) {
    attached.push([piece.id, at, piece.bytes.length]);
    out.push(piece.bytes);
    at += piece.bytes.length;
  }
  const placement: Placement = { end, refs, attached };
  return { payload: Buffer.concat(out, at), placement: JSON.stringify(placement) };
}

/**
 * The caller's end: the pieces sent to it, by organization, the least recently used dropped
 * beyond `maxBytes`; and a reply's JSON text put together from its payload and them.
 */
export class PieceCache {
  /** by organization, its pieces by id, least recently used first */
  private readonly byRealm = new Map<number, Map<string, Buffer>>();
  private bytes = 0;
  /** by organization holding none: the request under way whose reply brings its pieces */
  private readonly fetching = new Map<number, Promise<void>>();

  constructor(private readonly maxBytes: number) {}

  /**
   * The pieces a request that may be sent pieces names (held), once the organization's first such
   * request is answered when none are held: fifty registers at once after a restart had each been
   * sent the organization's whole user list, tens of MiB in flight in every process it crossed.
   * `done` (the first request's) is called once its reply's pieces are kept, or it failed.
   */
  async heldOnceFetched(realmId: number): Promise<{ held: ReadonlyMap<string, Buffer>; done?: () => void }> {
    const held = this.held(realmId);
    if (held.size > 0) return { held };
    const under = this.fetching.get(realmId);
    // one wait at most: if that request brought nothing, this one asks as it is
    if (under) {
      await under;
      return { held: this.held(realmId) };
    }
    let done!: () => void;
    this.fetching.set(
      realmId,
      new Promise<void>((resolve) => {
        done = () => {
          this.fetching.delete(realmId);
          resolve();
        };
      }),
    );
    return { held, done };
  }

  /**
   * The pieces to tell the server of for a request of this organization: the request keeps them
   * (its reply may refer to them) even if the cache drops them meanwhile.
   */
  held(realmId: number): ReadonlyMap<string, Buffer> {
    const pieces = this.byRealm.get(realmId);
    return new Map(pieces ? [...pieces].slice(-MAX_HELD_PER_REQUEST) : []);
  }

  /**
   * The reply's JSON text as chunks (the payload's and the pieces', none copied), keeping the
   * attached pieces; and how many of its bytes came from attached pieces and from held ones.
   */
  assemble(
    realmId: number,
    payload: Uint8Array,
    placementHeader: string,
    held: ReadonlyMap<string, Buffer>,
  ): { chunks: Buffer[]; attached: number; held: number } {
    const placement = JSON.parse(placementHeader) as Placement;
    const body = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
    const sent = new Map(
      placement.attached.map(([id, offset, length]) => [id, body.subarray(offset, offset + length)]),
    );
    const chunks: Buffer[] = [];
    const bytes = { attached: 0, held: 0 };
    let at = 0;
    for (const [offset, id, from, to] of placement.refs) {
      const attached = sent.get(id);
      const piece = attached ?? held.get(id);
      if (!piece) throw new Error(`reply refers to piece ${id}, neither held nor attached`);
      chunks.push(body.subarray(at, offset), piece.subarray(from, to));
      bytes[attached ? "attached" : "held"] += to - from;
      at = offset;
      this.touch(realmId, id);
    }
    chunks.push(body.subarray(at, placement.end));
    for (const [id, piece] of sent) this.keep(realmId, id, piece);
    return { chunks: chunks.filter((c) => c.length > 0), ...bytes };
  }

  /** Makes a held piece the most recently used. */
  private touch(realmId: number, id: string): void {
    const pieces = this.byRealm.get(realmId);
    const piece = pieces?.get(id);
    if (!piece) return;
    pieces!.delete(id);
    pieces!.set(id, piece);
    this.byRealm.delete(realmId);
    this.byRealm.set(realmId, pieces!);
  }

  private keep(realmId: number, id: string, piece: Buffer): void {
    if (piece.length > this.maxBytes) return;
    let pieces = this.byRealm.get(realmId);
    if (pieces?.has(id)) return this.touch(realmId, id);
    // its own copy: the payload it came in is otherwise kept whole for as long as the piece
    const own = Buffer.from(piece);
    pieces ??= new Map();
    pieces.set(id, own);
    this.byRealm.delete(realmId);
    this.byRealm.set(realmId, pieces);
    this.bytes += own.length;
    while (this.bytes > this.maxBytes) this.dropOldest();
  }

  /** The least recently used organization's least recently used piece. */
  private dropOldest(): void {
    const [realmId, pieces] = this.byRealm.entries().next().value as [number, Map<string, Buffer>];
    const [id, piece] = pieces.entries().next().value as [string, Buffer];
    pieces.delete(id);
    if (!pieces.size) this.byRealm.delete(realmId);
    this.bytes -= piece.length;
  }

  /** Bytes held, for the metric. */
  get size(): number {
    return this.bytes;
  }
}
