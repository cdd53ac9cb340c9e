/**
 * TenantRepository.findOfUser against a real SecantusDB (or mongod): each
 * caller gets exactly its user's documents, in order, whether it reads alone
 * or with others; concurrent callers share one query; a read that starts after
 * a write sees it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mongoose, { Schema } from "mongoose";
import { startMongo, type StartedServer } from "../../../scripts/lib/infra";
import { TenantRepository, type Connection } from "../src/db";

interface ItemDoc {
  realmId: number;
  itemId: number;
  userId: number;
  /** the participants, as a conversation's userIds */
  members: number[];
  done: boolean;
}

class ItemRepository extends TenantRepository<ItemDoc> {
  constructor(conn: Connection) {
    super(
      conn.model<ItemDoc>(
        "Item",
        new Schema<ItemDoc>(
          { realmId: Number, itemId: Number, userId: Number, members: [Number], done: Boolean },
          { versionKey: false },
        ),
      ),
    );
  }
  add = (doc: ItemDoc) => this.insertOne(doc);
  openOf = async (realmId: number, userId: number) =>
    (await this.findOfUser(realmId, "userId", userId, { done: false }, { itemId: -1 })).map((i) => i.itemId);
  withMember = async (realmId: number, userId: number) =>
    (await this.findOfUser(realmId, "members", userId, {}, { itemId: 1 })).map((i) => i.itemId);
}

let dataDir: string;
let server: StartedServer;
let conn: Connection;
let items: ItemRepository;
const finds: string[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "teamchat-user-reads-"));
  server = await startMongo({ dataDir, inMemory: true, replicaSet: false, progress: () => undefined });
  conn = await mongoose.createConnection(server.url, { dbName: "userreads", monitorCommands: true }).asPromise();
  conn.getClient().on("commandStarted", (e) => {
    if (e.commandName === "find") finds.push(JSON.stringify(e.command.filter));
  });
  items = new ItemRepository(conn);
  await items.init();
  // realm 1: users 1-3 (user 3 has nothing open); realm 2: user 1 again
  const docs: ItemDoc[] = [
    { realmId: 1, itemId: 1, userId: 1, members: [1, 2], done: false },
    { realmId: 1, itemId: 2, userId: 2, members: [2, 3], done: false },
    { realmId: 1, itemId: 3, userId: 1, members: [1], done: false },
    { realmId: 1, itemId: 4, userId: 1, members: [1, 3], done: true },
    { realmId: 1, itemId: 5, userId: 3, members: [3], done: true },
    { realmId: 2, itemId: 6, userId: 1, members: [1, 2], done: false },
  ];
  for (const d of docs) await items.add(d);
}, 60_000);

afterAll(async () => {
  await conn?.close();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

beforeEach(() => {
  finds.length = 0;
});

it("alone, a caller gets its own documents, filtered and sorted, in one query on its user", async () => {
  expect(await items.openOf(1, 1)).toEqual([3, 1]);
  expect(finds).toHaveLength(1);
  expect(JSON.parse(finds[0]!)).toEqual({ done: false, userId: 1, realmId: 1 });
});

it("concurrent callers of one realm share one query, and each gets exactly its own documents", async () => {
  const [one, two, three, oneAgain] = await Promise.all([
    items.openOf(1, 1),
    items.openOf(1, 2),
    items.openOf(1, 3),
    items.openOf(1, 1),
  ]);
  expect([one, two, three, oneAgain]).toEqual([[3, 1], [2], [], [3, 1]]);
  // the first caller's query, then one for everyone who arrived while it ran
  expect(finds).toHaveLength(2);
  expect(JSON.parse(finds[1]!)).toEqual({ done: false, userId: { $in: [2, 3, 1] }, realmId: 1 });
});

it("another realm or another filter is another query, never mixed in", async () => {
  const [realm1, realm2, members] = await Promise.all([items.openOf(1, 1), items.openOf(2, 1), items.withMember(1, 1)]);
  expect(realm1).toEqual([3, 1]);
  expect(realm2).toEqual([6]);
  expect(members).toEqual([1, 3, 4]);
  expect(finds).toHaveLength(3);
});

it("an array field gives a document to each of its users", async () => {
  const [one, two, three] = await Promise.all([items.withMember(1, 1), items.withMember(1, 2), items.withMember(1, 3)]);
  expect([one, two, three]).toEqual([
    [1, 3, 4],
    [1, 2],
    [2, 4, 5],
  ]);
});

it("a read that starts after a write finished sees it, though a round was under way", async () => {
  const first = items.openOf(1, 2);
  await items.add({ realmId: 1, itemId: 7, userId: 2, members: [2], done: false });
  expect(await items.openOf(1, 2)).toEqual([7, 2]);
  await first;
});
