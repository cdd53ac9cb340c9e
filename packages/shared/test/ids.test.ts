/**
 * IdAllocator against the real database: two instances (as two service
 * processes would be) on separate connections to one fresh database allocate
 * at once, so their first calls race to create the counter.
 */
import { randomBytes } from "node:crypto";
import { connectDatabase, type Connection } from "../src/db";
import { IdAllocator } from "../src/ids";

const CONCURRENT = 16;

let conns: Connection[];
let allocators: IdAllocator[];

beforeAll(async () => {
  const dbName = `ids${randomBytes(4).toString("hex")}`;
  conns = await Promise.all([1, 2].map(() => connectDatabase(process.env.TEST_MONGO_URL!, dbName)));
  allocators = conns.map((c) => new IdAllocator(c));
});

afterAll(async () => {
  await conns[0]!.dropDatabase();
  await Promise.all(conns.map((c) => c.close()));
});

/** CONCURRENT calls on each instance at once. */
const round = (kind: string) =>
  Promise.all(allocators.flatMap((a) => Array.from({ length: CONCURRENT }, () => a.next(kind))));

const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

it("hands out 1..N exactly once across instances allocating concurrently", async () => {
  const ids: number[] = [];
  for (let i = 0; i < 5; i++) ids.push(...(await round("thing")));
  expect(new Set(ids).size).toBe(ids.length);
  expect([...ids].sort((a, b) => a - b)).toEqual(oneToN(ids.length));
});

it("starts every new kind at 1 however many callers create its counter at once", async () => {
  // A counter's creation is the racy moment (an upserting $inc there can return no document), so race it often.
  for (let i = 0; i < 10; i++) {
    const ids = await round(`fresh-${i}`);
    expect([...ids].sort((a, b) => a - b)).toEqual(oneToN(ids.length));
  }
});

it("gives one instance's concurrent callers increasing ids in the order they asked", async () => {
  const [a] = allocators;
  const ids = await Promise.all(Array.from({ length: CONCURRENT }, () => a!.next("ordered")));
  expect(ids).toEqual([...ids].sort((x, y) => x - y));
  expect(new Set(ids).size).toBe(CONCURRENT);
});
