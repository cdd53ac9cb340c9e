/**
 * Write safety: the write concern and transactions chosen from what the server
 * says it is (hello), and withTransaction against real servers: SecantusDB as a
 * one-member replica set (as it starts without --standalone) and as a single
 * server (as the test harness and `npm start` run it). Each is started here, in
 * memory, in about a second.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Schema } from "mongoose";
import { ensureMongoServer, startMongo, type StartedServer } from "../../../scripts/lib/infra";
import {
  connectDatabase,
  isDuplicateKey,
  TenantRepository,
  withTransaction,
  writeSafety,
  writeSafetyOf,
  type Connection,
} from "../src/db";

describe("the write safety chosen from the server's hello", () => {
  it("a standalone server (no setName) keeps the driver's defaults and has no transactions", () => {
    expect(writeSafetyOf({})).toEqual({ transactions: false });
  });

  it("a replica set member writes and reads at majority, in transactions", () => {
    expect(writeSafetyOf({ setName: "rs0" })).toEqual({
      replicaSet: "rs0",
      transactions: true,
      writeConcern: { w: "majority" },
      readConcern: { level: "majority" },
    });
  });

  it("a mongos (sharded cluster) too", () => {
    expect(writeSafetyOf({ msg: "isdbgrid" })).toEqual({
      transactions: true,
      writeConcern: { w: "majority" },
      readConcern: { level: "majority" },
    });
  });
});

interface NoteDoc {
  _id: string;
  realmId: number;
  text: string;
}

class NoteRepository extends TenantRepository<NoteDoc> {
  constructor(conn: Connection, name: string) {
    super(
      conn.model<NoteDoc>(
        name,
        new Schema<NoteDoc>({ _id: String, realmId: Number, text: String }, { versionKey: false }),
      ),
    );
  }
  add = (realmId: number, id: string, text = id) => this.insertOne({ _id: id, realmId, text });
  addKeepingExisting = (realmId: number, ids: string[], text: string) =>
    this.insertKeepingExisting(ids.map((id) => ({ _id: id, realmId, text })));
  rename = (realmId: number, id: string, text: string) => this.updateOne(realmId, { _id: id }, { $set: { text } });
  byKeys = async (realmId: number, keys: string[]) => (await this.findByKeys(realmId, keys)).map((n) => n.text).sort();
  renameByKeys = (realmId: number, keys: string[], text: string) =>
    this.updateByKeys(realmId, keys, { $set: { text } });
  dropByKeys = (realmId: number, keys: string[]) => this.deleteByKeys(realmId, keys);
  all = async (realmId: number) =>
    (await this.find(realmId, {}, { sort: { _id: 1 } })).map((n) => `${n._id}:${n.text}`);
}

// SecantusDB is the embedded engine; with mongod on PATH instead, no replica set is started here.
const secantusdb = ensureMongoServer({ dataDir: tmpdir() }).kind === "secantusdb";
const describeOnSecantusDB = secantusdb ? describe : describe.skip;

/** A server started for these tests, a connection to it, and two repositories on it. */
async function serve(replicaSet: boolean) {
  const dataDir = mkdtempSync(join(tmpdir(), "teamchat-write-safety-"));
  const server: StartedServer = await startMongo({ dataDir, inMemory: true, replicaSet, progress: () => undefined });
  const conn = await connectDatabase(server.url, "writesafety");
  const notes = new NoteRepository(conn, "Note");
  const tags = new NoteRepository(conn, "Tag");
  await Promise.all([notes.init(), tags.init()]);
  const stop = async () => {
    await conn.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { server, conn, notes, tags, stop };
}

const failure = new Error("the change fails halfway");

describeOnSecantusDB("withTransaction on a replica set", () => {
  let db: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    db = await serve(true);
  });
  afterAll(() => db.stop());

  it("is detected at connect: majority write and read concerns on the connection, transactions on", () => {
    expect(writeSafety(db.conn)).toEqual({
      replicaSet: "secantus",
      transactions: true,
      writeConcern: { w: "majority" },
      readConcern: { level: "majority" },
    });
    expect(db.conn.getClient().writeConcern?.w).toBe("majority");
    expect(db.conn.getClient().readConcern?.level).toBe("majority");
  });

  it("commits the writes of several repositories together, and answers what the work returns", async () => {
    const result = await withTransaction(db.conn, async () => {
      await db.notes.add(1, "a");
      await db.tags.add(1, "b");
      return "done";
    });
    expect(result).toBe("done");
    expect([await db.notes.all(1), await db.tags.all(1)]).toEqual([["a:a"], ["b:b"]]);
  });

  it("shows nothing to others before the commit", async () => {
    const other = await connectDatabase(db.server.url, "writesafety");
    const outside = new NoteRepository(other, "Note");
    try {
      await withTransaction(db.conn, async () => {
        await db.notes.add(2, "pending");
        expect(await db.notes.all(2)).toEqual(["pending:pending"]);
        expect(await outside.all(2)).toEqual([]);
      });
      expect(await outside.all(2)).toEqual(["pending:pending"]);
    } finally {
      await other.close();
    }
  });

  it("undoes every write when the work fails halfway, and rethrows", async () => {
    await db.notes.add(3, "kept");
    await expect(
      withTransaction(db.conn, async () => {
        await db.notes.rename(3, "kept", "changed");
        await db.tags.add(3, "t");
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect([await db.notes.all(3), await db.tags.all(3)]).toEqual([["kept:kept"], []]);
  });

  it("a nested call joins the outer transaction: undone with it", async () => {
    await expect(
      withTransaction(db.conn, async () => {
        await withTransaction(db.conn, () => db.notes.add(4, "inner"));
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await db.notes.all(4)).toEqual([]);
  });

  it("insertKeepingExisting keeps the rows there and adds the others without aborting the transaction", async () => {
    await db.notes.add(5, "x", "before");
    await withTransaction(db.conn, async () => {
      await db.notes.addKeepingExisting(5, ["w", "x", "y"], "new");
      await db.tags.add(5, "after");
    });
    expect([await db.notes.all(5), await db.tags.all(5)]).toEqual([["w:new", "x:before", "y:new"], ["after:after"]]);
  });

  it("writes by key join the transaction: undone with it", async () => {
    await db.notes.add(7, "7:a", "before");
    await expect(
      withTransaction(db.conn, async () => {
        await db.notes.renameByKeys(7, ["7:a"], "changed");
        await db.notes.dropByKeys(7, ["7:a"]);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await db.notes.all(7)).toEqual(["7:a:before"]);
  });

  it("two concurrent transactions writing one document both apply: the driver runs the loser again", async () => {
    await db.notes.add(6, "n", "0");
    let attempts = 0;
    const bump = (text: string) =>
      withTransaction(db.conn, async () => {
        attempts++;
        await db.notes.rename(6, "n", text);
        await new Promise((resolve) => setTimeout(resolve, 50));
        await db.tags.add(6, text);
      });
    await Promise.all([bump("1"), bump("2")]);
    expect(await db.tags.all(6)).toEqual(["1:1", "2:2"]);
    expect(attempts).toBeGreaterThan(2);
  });
});

describeOnSecantusDB("withTransaction on a single server", () => {
  let db: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    db = await serve(false);
  });
  afterAll(() => db.stop());

  it("is detected at connect: the driver's default concerns, no transactions", () => {
    expect(writeSafety(db.conn)).toEqual({ transactions: false });
    expect(db.conn.getClient().writeConcern).toBeUndefined();
  });

  it("runs the work plainly: a failure halfway leaves the steps done before it", async () => {
    await expect(
      withTransaction(db.conn, async () => {
        await db.notes.add(1, "done");
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await db.notes.all(1)).toEqual(["done:done"]);
  });

  it("insertKeepingExisting keeps the rows there and adds the others", async () => {
    await db.notes.add(2, "x", "before");
    await withTransaction(db.conn, () => db.notes.addKeepingExisting(2, ["w", "x"], "new"));
    expect(await db.notes.all(2)).toEqual(["w:new", "x:before"]);
  });

  it("reads, updates and deletes by key, and refuses a key of another organization before writing anything", async () => {
    await Promise.all([db.notes.add(4, "4:a"), db.notes.add(4, "4:b"), db.notes.add(40, "40:a")]);
    expect(await db.notes.byKeys(4, ["4:a", "4:b", "4:missing"])).toEqual(["4:a", "4:b"]);
    expect(await db.notes.renameByKeys(4, ["4:a", "4:missing"], "renamed")).toBe(1);
    // "40:a" starts with "4" but not with "4:"
    await expect(db.notes.renameByKeys(4, ["4:b", "40:a"], "stolen")).rejects.toThrow(
      "key 40:a is not of organization 4",
    );
    await expect(db.notes.byKeys(4, ["40:a"])).rejects.toThrow("key 40:a is not of organization 4");
    await expect(db.notes.dropByKeys(4, ["40:a"])).rejects.toThrow("key 40:a is not of organization 4");
    expect(await db.notes.dropByKeys(4, ["4:b"])).toBe(1);
    expect([await db.notes.all(4), await db.notes.all(40)]).toEqual([["4:a:renamed"], ["40:a:40:a"]]);
  });

  it("concurrent inserts share one insert, yet only the caller of a duplicate or invalid document is refused", async () => {
    const inserts: string[] = [];
    db.conn.set("debug", (collection: string, method: string) => {
      if (method === "insertMany") inserts.push(collection);
    });
    try {
      const results = await Promise.allSettled([
        db.notes.add(3, "a"),
        db.notes.add(3, "b"),
        db.notes.add(3, "a", "again"),
        db.notes.add(3, "c", { not: "a string" } as unknown as string),
        db.notes.add(3, "d"),
        db.notes.addKeepingExisting(3, ["e", "f"], "kept"),
      ]);
      expect(results.map((r) => r.status)).toEqual([
        "fulfilled",
        "fulfilled",
        "rejected",
        "rejected",
        "fulfilled",
        "fulfilled",
      ]);
      expect(isDuplicateKey((results[2] as PromiseRejectedResult).reason)).toBe(true);
      expect(String((results[3] as PromiseRejectedResult).reason)).toMatch(/Cast to string failed/);
      expect(await db.notes.all(3)).toEqual(["a:a", "b:b", "d:d", "e:kept", "f:kept"]);
      // each kind of insert: the first call goes alone, what arrives while it runs goes in one more
      expect(inserts).toEqual(["notes", "notes", "notes"]);
    } finally {
      db.conn.set("debug", false);
    }
  });
});
