import { RawJson } from "../src/bus";

describe("RawJson in pieces", () => {
  const list = Buffer.from('{"list":[{"id":1},{"id":2},{"id":3}]}');
  // a shared list with one entry spliced in, as identity's realm_users for one viewer
  const [start, end] = [list.indexOf('{"id":2}'), list.indexOf('{"id":2}') + '{"id":2}'.length];
  const spliced = new RawJson([list.subarray(0, start), Buffer.from('{"id":2,"me":true}'), list.subarray(end)]);

  it("is the concatenation of its pieces", () => {
    expect(spliced.json).toBe('{"list":[{"id":1},{"id":2,"me":true},{"id":3}]}');
    expect(spliced.length).toBe(spliced.bytes.length);
    expect(new RawJson([Buffer.from('{"a":'), Buffer.alloc(0), Buffer.from("1}")]).json).toBe('{"a":1}');
  });

  it("merges without copying a part's bytes, the result the same as merging whole buffers", () => {
    const nested = RawJson.merge([spliced, { b: 2 }]);
    const merged = RawJson.merge([{ result: "success" }, nested, new RawJson("{}"), new RawJson('{"z":"Zoë"}')]);
    expect(merged.json).toBe('{"result":"success","list":[{"id":1},{"id":2,"me":true},{"id":3}],"b":2,"z":"Zoë"}');
    expect(merged.chunks.some((c) => c.buffer === list.buffer)).toBe(true);
    expect(RawJson.merge([new RawJson([Buffer.from("{"), Buffer.from("}")]), {}]).json).toBe("{}");
    expect(RawJson.merge([new RawJson("null"), new RawJson('{"a":1}')]).json).toBe('{"a":1}');
  });

  it("is framed into one buffer", () => {
    const framed = spliced.framed(Buffer.from('{"ok":true,"data":'), Buffer.from("}"));
    expect(framed.toString()).toBe('{"ok":true,"data":{"list":[{"id":1},{"id":2,"me":true},{"id":3}]}}');
  });
});
