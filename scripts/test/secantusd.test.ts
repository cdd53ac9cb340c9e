/**
 * The SecantusDB launcher (scripts/secantusd.py): its write statements read a
 * collection's index options once instead of three times per document, and
 * still index every document by the collection's current indexes; its index
 * keys are byte for byte SecantusDB's own; its commits, written without an
 * fsync, survive a SIGKILL.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { MongoClient, type Collection, type Document } from "mongodb";
import { ensureMongoServer, startMongo, type StartedServer } from "../lib/infra";

// SecantusDB is the embedded engine; with mongod on PATH instead, there is nothing to launch.
const server = ensureMongoServer({ dataDir: tmpdir() });
const describeOnSecantusDB = server.kind === "secantusdb" ? describe : describe.skip;

/** Python that imports the launcher at `launcher` as the module `launcher`, unpatched. */
const importLauncher = (launcher: string) => `import sys
sys.path.insert(0, ${JSON.stringify(dirname(launcher))})
launcher = __import__(${JSON.stringify(basename(launcher, ".py"))})`;

/**
 * Inserts 100 documents into a collection with one secondary index, in
 * SecantusDB's own storage layer, and counts how often the index options are
 * read from the catalog: unpatched, then patched by the launcher at `launcher`.
 */
const countCatalogReads = (launcher: string) => `
import json
${importLauncher(launcher)}
from secantus import storage

reads = 0
read_options = storage.Storage._index_options_map
def counted(self, db, coll):
    global reads
    reads += 1
    return read_options(self, db, coll)
storage.Storage._index_options_map = counted

def catalog_reads_of_one_insert(coll):
    global reads
    db = storage.Storage(":memory:", enable_oplog=False)
    db.create_index("t", coll, "userId_1", {"userId": 1})
    reads = 0
    inserted, errors = db.insert("t", coll, [{"_id": i, "userId": i} for i in range(100)])
    assert inserted == 100 and not errors, (inserted, errors)
    return reads

unpatched = catalog_reads_of_one_insert("before")
launcher._patch()
print(json.dumps({"unpatched": unpatched, "patched": catalog_reads_of_one_insert("after")}))
`;

/**
 * Updates a document by a filter that an index serves (no `_id`), in
 * SecantusDB's own storage layer, and counts how often the index catalog is
 * walked: unpatched, then patched by the launcher at `launcher`.
 */
const countCatalogWalks = (launcher: string) => `
import json
${importLauncher(launcher)}
from secantus import storage

walks = 0
walk = storage.Storage._iter_indexes
def counted(self, db, coll):
    global walks
    walks += 1
    return walk(self, db, coll)
storage.Storage._iter_indexes = counted

def catalog_walks_of_one_update(coll):
    global walks
    db = storage.Storage(":memory:", enable_oplog=False)
    db.create_index("t", coll, "realmId_1_userId_1", {"realmId": 1, "userId": 1})
    db.create_index("t", coll, "realmId_1_streamId_1", {"realmId": 1, "streamId": 1})
    db.insert("t", coll, [{"_id": i, "realmId": 1, "userId": i, "streamId": i % 5} for i in range(20)])
    walks = 0
    result = db.update_matching("t", coll, {"realmId": 1, "userId": 7}, {"$set": {"read": 9}})
    assert result["matched"] == 1, result
    return walks

unpatched = catalog_walks_of_one_update("before")
launcher._patch()
print(json.dumps({"unpatched": unpatched, "patched": catalog_walks_of_one_update("after")}))
`;

/**
 * Finds, updates and deletes by filters holding an `_id` among other clauses
 * (point lookups, `$in`, ranges, subdocuments, misses), in SecantusDB's own
 * storage layer: what its planner does and what the launcher's does.
 */
const compareIdLookups = (launcher: string) => `
import json
${importLauncher(launcher)}
from bson import ObjectId
from secantus import storage

oid = ObjectId("0123456789abcdef01234567")
docs = [
    {"_id": 1, "realmId": 1, "version": 0, "tags": ["a", "b"]},
    {"_id": 2, "realmId": 1, "version": 3},
    {"_id": "1:2:3", "realmId": 2, "version": 1},
    {"_id": oid, "realmId": 1, "version": 0},
    {"_id": {"k": 1}, "realmId": 1, "version": 0},
    {"_id": 2.5, "realmId": 1},
]
filters = [
    {"_id": 1, "realmId": 1}, {"_id": 1, "realmId": 2}, {"_id": 1, "tags": "b", "version": 0},
    {"_id": 1, "version": {"$gt": 0}}, {"_id": 2, "realmId": 1, "version": 3},
    {"_id": "1:2:3", "realmId": 2, "version": 1}, {"_id": "1:2:3", "realmId": 2, "version": 2},
    {"_id": oid, "realmId": 1}, {"_id": {"$eq": 2}, "realmId": 1}, {"_id": {"$in": [1, 2, "1:2:3", 9]}, "realmId": 1},
    {"_id": {"$in": []}, "realmId": 1}, {"_id": {"$gt": 1}, "realmId": 1}, {"_id": {"k": 1}, "realmId": 1},
    {"_id": 9, "realmId": 1}, {"_id": 2, "$or": [{"version": 3}, {"version": 4}]},
    {"_id": 2.5, "version": {"$exists": False}}, {"_id": 2, "realmId": 1, "version": None},
]

def outcomes(coll):
    db = storage.Storage(":memory:", enable_oplog=False)
    db.create_index("t", coll, "realmId_1_version_1", {"realmId": 1, "version": 1})
    db.create_index("t", coll, "tags_1", {"tags": 1})
    db.insert("t", coll, docs)
    rows = lambda found: sorted(json.dumps(d, default=str, sort_keys=True) for d in found)
    found = [rows(db.find_matching("t", coll, f)) for f in filters]
    updated = [db.update_matching("t", coll, f, {"$set": {"seen": i}}, multi=True)["matched"] for i, f in enumerate(filters)]
    after = rows(db.find_matching("t", coll, {}))
    deleted = [db.delete_matching("t", coll, f) for f in filters]
    return {"found": found, "updated": updated, "after": after, "deleted": deleted}

unpatched = outcomes("before")
launcher._patch()
patched = outcomes("after")
print(json.dumps({"same": unpatched == patched, "found": sum(map(len, unpatched["found"])), "updated": sum(unpatched["updated"]), "deleted": sum(unpatched["deleted"])}))
`;

/**
 * The index keys of varied documents under varied key patterns, by
 * SecantusDB's own functions and by the launcher's: how many differ.
 */
const compareIndexKeys = (launcher: string) => `
import json, random
${importLauncher(launcher)}
from bson import Decimal128, ObjectId
from secantus import sortkey, storage

random.seed(7)
ints = [0, 1, -1, 9, 10, -10, 99, 100, 101, 120000, -120000, 2**31, -(2**31), 2**63 - 1, -(2**63), 10**27, 10**28, -(10**28) + 1, 10**30, 10**200]
ints += [random.randint(-10**12, 10**12) for _ in range(3000)] + [random.randint(-1000, 1000) * 10**random.randint(0, 30) for _ in range(3000)]
ints += [random.randint(-10**40, 10**40) for _ in range(30)]  # beyond the 28 digits Decimal keeps
others = [True, False, None, 1.0, -0.0, 2.5, -1e300, float("nan"), float("inf"), Decimal128("1.10"), "", "abc", "ABC", ObjectId("0123456789abcdef01234567"), {"a": 1}, []]
values = ints + others
docs = [{"_id": i, "a": v, "b": [v, values[(i * 7) % len(values)], v], "c": {"d": [{"e": v}, {"e": -v if isinstance(v, int) and not isinstance(v, bool) else v}]}} for i, v in enumerate(values)]
docs.append({"_id": "sparse"})
specs = [({"a": 1}, False), ({"a": -1}, False), ({"b": 1}, False), ({"a": 1, "b": -1, "_id": 1}, False), ({"c.d.e": 1, "a": 1}, False), ({"z": 1}, True), ({"z": 1, "a": 1}, False)]

def keys(variants, encode):
    sortkey._encode_number = encode
    return [variants(doc, spec, sparse=sparse) for doc in docs for spec, sparse in specs]

expected = keys(storage._index_key_variants, launcher.encode_number)
actual = keys(launcher.index_key_variants, launcher.encode_int)
again = keys(launcher.index_key_variants, launcher.encode_int)
print(json.dumps({"compared": len(expected), "differ": sum(e != a for e, a in zip(expected, actual)), "differ_again": sum(e != a for e, a in zip(expected, again))}))
`;

/** The documents these tests write: numbered, any other fields. */
type Row = Document & { _id: number };

/**
 * Runs the launcher's start after `change` (Python, with `launcher`, `sortkey` and `storage` imported)
 * has altered SecantusDB or the launcher's expectations; prints whether SecantusDB was left unpatched.
 */
const startLauncherAfter = (launcher: string, change: string) => `
import sys
${importLauncher(launcher)}
from secantus import sortkey, storage
${change}
replaced = (sortkey._encode_number, storage._index_key_variants, storage.Storage._index_options_map)
sys.argv = ["secantusd.py", "--host=127.0.0.1", "--storage-path=:memory:"]
try:
    launcher.main()
finally:
    print(replaced == (sortkey._encode_number, storage._index_key_variants, storage.Storage._index_options_map))
`;

describeOnSecantusDB("the SecantusDB launcher", () => {
  it("finds the installed SecantusDB to be the one its patches were written for", () => {
    const check = `${importLauncher(server.launcher[0]!)}\nprint(launcher.target_changes())`;
    const run = spawnSync(server.bin, ["-c", check], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("[]\n");
  });

  it.each([
    ["another SecantusDB version", "secantus.__version__ = '0.7.0b4'", "SecantusDB 0.7.0b4 is installed, not 0.7.0b3"],
    [
      "a changed write statement",
      "storage.Storage._insert_chunk = lambda self, *args, **kwargs: None",
      "storage.Storage._insert_chunk has changed",
    ],
    ["a function gone", "del storage._sparse_covers", "storage._sparse_covers is not a function any more"],
    [
      "a fingerprint it does not match",
      "launcher.TARGET_SOURCES['sortkey._encode_number'] = '0' * 64",
      "sortkey._encode_number has changed: its source's SHA-256 is",
    ],
  ])("refuses to start on %s, saying what changed and what to do, and patches nothing", (_case, change, says) => {
    const start = startLauncherAfter(server.launcher[0]!, `import secantus\n${change}`);
    const run = spawnSync(server.bin, ["-c", start], { encoding: "utf8", timeout: 30_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(says);
    expect(run.stderr).toContain("re-measure the patches as docs/adr/0004-secantusdb-launcher-patches.md describes");
    expect(run.stdout).toBe("True\n");
  });

  it("reads a collection's index options once per write statement, not three times per document", () => {
    const run = spawnSync(server.bin, ["-c", countCatalogReads(server.launcher[0]!)], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ unpatched: 300, patched: 1 });
  });

  it("walks a collection's index catalog once per write statement, not at each step of its planning", () => {
    const run = spawnSync(server.bin, ["-c", countCatalogWalks(server.launcher[0]!)], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ unpatched: 10, patched: 1 });
  });

  it("finds, updates and deletes by an _id among other clauses what SecantusDB's own planner does", () => {
    const run = spawnSync(server.bin, ["-c", compareIdLookups(server.launcher[0]!)], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ same: true, found: 13, updated: 13, deleted: 6 });
  });

  it("writes the same index keys as SecantusDB's own encoding, for every kind of value", () => {
    const run = spawnSync(server.bin, ["-c", compareIndexKeys(server.launcher[0]!)], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ compared: 6067 * 7, differ: 0, differ_again: 0 });
  });

  it("keeps every acknowledged write across a SIGKILL, its commits written without an fsync", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "teamchat-secantusd-"));
    const started: StartedServer[] = [];
    const clients: MongoClient[] = [];
    const open = async () => {
      const mongo = await startMongo({ dataDir, progress: () => undefined });
      started.push(mongo);
      const client = await MongoClient.connect(mongo.url);
      clients.push(client);
      return { mongo, writes: client.db("durability").collection<Row>("writes") };
    };
    try {
      const first = await open();
      for (let i = 0; i < 500; i++) await first.writes.insertOne({ _id: i });
      await first.mongo.kill();
      // with neither --sync-on-commit nor --sync-method=none, the last writes would still be in
      // WiredTiger's buffer here, and lost (498 of 500 kept when tried)
      const second = await open();
      expect(await second.writes.countDocuments()).toBe(500);
    } finally {
      await Promise.all(clients.map((c) => c.close(true)));
      await Promise.all(started.map((m) => m.stop()));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  describe("through the wire", () => {
    let dataDir: string;
    let mongo: StartedServer;
    let client: MongoClient;
    const collection = (name: string): Collection<Row> => client.db("launcher").collection<Row>(name);
    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), "teamchat-secantusd-"));
      mongo = await startMongo({ dataDir, inMemory: true, progress: () => undefined });
      client = await MongoClient.connect(mongo.url);
    });
    afterAll(async () => {
      await client.close();
      await mongo.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("applies each index's options to every document of a statement (a case-insensitive unique name)", async () => {
      const people = collection("people");
      await people.createIndex({ name: 1 }, { unique: true, collation: { locale: "en", strength: 2 } });
      const insert = people.insertMany(
        [
          { _id: 1, name: "ada" },
          { _id: 2, name: "ADA" },
          { _id: 3, name: "bob" },
        ],
        { ordered: false },
      );
      await expect(insert).rejects.toMatchObject({ code: 11000 });
      expect(await people.find().sort({ _id: 1 }).toArray()).toEqual([
        { _id: 1, name: "ada" },
        { _id: 3, name: "bob" },
      ]);
    });

    it("indexes the next statement's documents by an index created in between", async () => {
      const notes = collection("notes");
      await notes.insertMany([{ _id: 1, tag: "x" }]);
      await notes.createIndex({ tag: 1 });
      await notes.insertMany([
        { _id: 2, tag: "x" },
        { _id: 3, tag: "y" },
      ]);
      expect(await notes.find({ tag: "x" }).hint("tag_1").sort({ _id: 1 }).toArray()).toEqual([
        { _id: 1, tag: "x" },
        { _id: 2, tag: "x" },
      ]);
    });

    it("finds array elements after one statement's documents made an index multikey", async () => {
      const posts = collection("posts");
      await posts.createIndex({ tags: 1 });
      await posts.insertMany([
        { _id: 1, tags: "a" },
        { _id: 2, tags: ["a", "b"] },
      ]);
      await posts.updateMany({ _id: 1 }, { $set: { tags: ["b", "c"] } });
      expect(await posts.find({ tags: "b" }).sort({ _id: 1 }).toArray()).toEqual([
        { _id: 1, tags: ["b", "c"] },
        { _id: 2, tags: ["a", "b"] },
      ]);
      expect(await posts.find({ tags: "a" }).toArray()).toEqual([{ _id: 2, tags: ["a", "b"] }]);
    });

    it("walks a compound multikey index in numeric order, negative and large ids included", async () => {
      const messages = collection("messages");
      await messages.createIndex({ realmId: 1, receivers: 1, messageId: 1 });
      const ids = [-(2 ** 40), -120000, -10, -1, 0, 1, 9, 10, 100, 101, 120000, 2 ** 40, 2 ** 53 - 1];
      await messages.insertMany(ids.map((id, i) => ({ _id: i, realmId: 3, receivers: [7, 8 + i], messageId: id })));
      const walked = await messages
        .find({ realmId: 3, receivers: 7, messageId: { $gt: -120000, $lte: 2 ** 40 } })
        .hint("realmId_1_receivers_1_messageId_1")
        .sort({ messageId: -1 })
        .toArray();
      expect(walked.map((m) => m.messageId)).toEqual(ids.slice(2, 12).reverse());
      expect(await messages.find({ realmId: 3, receivers: 12 }).toArray()).toEqual([
        { _id: 4, realmId: 3, receivers: [7, 12], messageId: 0 },
      ]);
    });

    it("finds array elements of a document an upsert inserted into a fresh index", async () => {
      const drafts = collection("drafts");
      await drafts.createIndex({ tags: 1 });
      await drafts.updateOne({ _id: 1 }, { $set: { tags: ["x", "y"] } }, { upsert: true });
      await drafts.updateOne({ _id: 2 }, { $set: { tags: "y" } }, { upsert: true });
      expect(await drafts.find({ tags: "y" }).sort({ _id: 1 }).toArray()).toEqual([
        { _id: 1, tags: ["x", "y"] },
        { _id: 2, tags: "y" },
      ]);
    });
  });
});
