/**
 * The SecantusDB launcher (scripts/secantusd.py): its write statements read a
 * collection's index options once instead of three times per document, and
 * still index every document by the collection's current indexes.
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

/**
 * Inserts 100 documents into a collection with one secondary index, in
 * SecantusDB's own storage layer, and counts how often the index options are
 * read from the catalog: unpatched, then patched by the launcher at `launcher`.
 */
const countCatalogReads = (launcher: string) => `
import json, sys
sys.path.insert(0, ${JSON.stringify(dirname(launcher))})
import ${basename(launcher, ".py")}
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
${basename(launcher, ".py")}._patch()
print(json.dumps({"unpatched": unpatched, "patched": catalog_reads_of_one_insert("after")}))
`;

/** The documents these tests write: numbered, any other fields. */
type Row = Document & { _id: number };

describeOnSecantusDB("the SecantusDB launcher", () => {
  it("reads a collection's index options once per write statement, not three times per document", () => {
    const run = spawnSync(server.bin, ["-c", countCatalogReads(server.launcher[0]!)], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ unpatched: 300, patched: 1 });
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
