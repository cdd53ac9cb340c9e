/**
 * Shared reply pieces: what the server frames for a caller holding some pieces, and the JSON
 * text the caller puts back together, byte for byte what an unshared reply would have been.
 */
import { OK_PREFIX_BYTES } from "../src/bus/wire";
import { CLOSE_BRACE, RawJson } from "../src/bus/raw-json";
import { PieceCache, SharedPiece, framedWithPieces } from "../src/bus/shared-pieces";

const b = (s: string) => Buffer.from(s);
const list = new SharedPiece(Buffer.from('{"users":[{"id":1,"n":"a"},{"id":2,"n":"b"},{"id":3,"n":"c"}]}'));
const other = new SharedPiece(Buffer.from('{"groups":[7,8,9]}'));

/** A reply of literal bytes around two slices of `list` (one entry spliced out) and all of `other`. */
function reply(): RawJson {
  const text = list.bytes.toString();
  const [start, end] = [text.indexOf('{"id":2'), text.indexOf(',{"id":3')];
  return RawJson.merge([
    new RawJson([b("{"), list.slice(1, start), b('{"id":2,"n":"ME"}'), list.slice(end, list.bytes.length - 1), b("}")]),
    new RawJson([b("{"), other.slice(1, other.bytes.length - 1), b("}")]),
    { total: 3 },
  ]);
}

/** The caller's end: the reply's JSON text from a payload and its placement, as BusClient puts it together. */
function received(cache: PieceCache, realmId: number, framed: { payload: Buffer; placement: string }): string {
  const { chunks } = cache.assemble(realmId, framed.payload, framed.placement, cache.held(realmId));
  return Buffer.concat(chunks).subarray(OK_PREFIX_BYTES.length, -1).toString();
}

const expected = '{"users":[{"id":1,"n":"a"},{"id":2,"n":"ME"},{"id":3,"n":"c"}],"groups":[7,8,9],"total":3}';

it("attaches the pieces a caller lacks, once, then sends references to them", () => {
  const cache = new PieceCache(1 << 20);
  expect(reply().json).toBe(expected);
  const first = framedWithPieces(reply(), new Set(), OK_PREFIX_BYTES, CLOSE_BRACE)!;
  expect(received(cache, 5, first)).toBe(expected);
  expect([...cache.held(5).keys()].sort()).toEqual([list.id, other.id].sort());

  const second = framedWithPieces(reply(), new Set(cache.held(5).keys()), OK_PREFIX_BYTES, CLOSE_BRACE)!;
  expect(received(cache, 5, second)).toBe(expected);
  // what the metric counts: the bytes put in from held pieces (all but the spliced-out entry and the braces)
  const { attached, held } = cache.assemble(5, second.payload, second.placement, cache.held(5));
  expect({ attached, held }).toEqual({
    attached: 0,
    held: list.bytes.length - 2 - '{"id":2,"n":"b"}'.length + other.bytes.length - 2,
  });
  // neither piece travels again: the payload is the reply without them (and without the spliced entry's neighbours)
  expect(second.payload.length).toBe(first.payload.length - list.bytes.length - other.bytes.length);
  expect(second.payload.length).toBeLessThan(OK_PREFIX_BYTES.length + 40);
});

it("keeps pieces per organization: another's request names none and gets them attached", () => {
  const cache = new PieceCache(1 << 20);
  received(cache, 5, framedWithPieces(reply(), new Set(), OK_PREFIX_BYTES, CLOSE_BRACE)!);
  expect(cache.held(6).size).toBe(0);
  const framed = framedWithPieces(reply(), new Set(cache.held(6).keys()), OK_PREFIX_BYTES, CLOSE_BRACE)!;
  expect(received(cache, 6, framed)).toBe(expected);
});

it("frames a reply without slices as usual (null), and a piece's id follows its bytes", () => {
  expect(framedWithPieces(new RawJson('{"a":1}'), new Set(), OK_PREFIX_BYTES, CLOSE_BRACE)).toBeNull();
  expect(new SharedPiece(Buffer.from(list.bytes)).id).toBe(list.id);
  expect(new SharedPiece(Buffer.from('{"users":[]}')).id).not.toBe(list.id);
});

it("drops the least recently used pieces beyond its bytes, and a request keeps those it named", () => {
  const piece = (n: number) => new SharedPiece(Buffer.from(`{"n":${n},"pad":"${"x".repeat(80)}"}`));
  const send = (cache: PieceCache, realmId: number, p: SharedPiece) =>
    received(
      cache,
      realmId,
      framedWithPieces(
        new RawJson([b("{"), p.slice(1, p.bytes.length - 1), b("}")]),
        new Set(cache.held(realmId).keys()),
        OK_PREFIX_BYTES,
        CLOSE_BRACE,
      )!,
    );
  const [a, bb, c] = [piece(1), piece(2), piece(3)];
  const cache = new PieceCache(a.bytes.length * 2);
  send(cache, 1, a);
  send(cache, 2, bb);
  send(cache, 1, a); // a used again: bb is now the least recently used
  const held = cache.held(2);
  send(cache, 3, c);
  expect(cache.size).toBe(a.bytes.length * 2);
  expect([...cache.held(2).keys()]).toEqual([]);
  expect([...cache.held(1).keys()]).toEqual([a.id]);
  // a reply to a request made while it held bb still refers to bb
  const framed = framedWithPieces(
    new RawJson([b("{"), bb.slice(1, bb.bytes.length - 1), b("}")]),
    new Set(held.keys()),
    OK_PREFIX_BYTES,
    CLOSE_BRACE,
  )!;
  expect(framed.payload.length).toBeLessThan(bb.bytes.length);
  const { chunks } = cache.assemble(2, framed.payload, framed.placement, held);
  expect(Buffer.concat(chunks).subarray(OK_PREFIX_BYTES.length, -1).toString()).toBe(bb.bytes.toString());
});
