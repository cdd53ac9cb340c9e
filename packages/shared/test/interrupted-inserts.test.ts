/**
 * Inserts that keep existing documents (insertKeepingExisting, a repository's
 * coalesced insertOne) against a real server whose connection is cut: the
 * driver reports the failure as a bulk write error with no document failures,
 * which must reject, not read as "written" (a caller would acknowledge work
 * that was never stored). A duplicate key still counts as written.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mongoose, { Schema } from "mongoose";
import { startMongo, type StartedServer } from "../../../scripts/lib/infra";
import { CuttableProxy } from "../../../test/support/cuttable-proxy";
import { insertKeepingExisting, TenantRepository, type Connection } from "../src/db";

interface NoteDoc {
  _id: string;
  realmId: number;
  text: string;
}

const noteSchema = new Schema<NoteDoc>({ _id: String, realmId: Number, text: String }, { versionKey: false });

class NoteRepository extends TenantRepository<NoteDoc> {
  constructor(conn: Connection) {
    super(conn.model<NoteDoc>("Note", noteSchema));
  }
  add = (id: string) => this.insertOne({ _id: id, realmId: 1, text: id });
}

let dataDir: string;
let server: StartedServer;
let proxy: CuttableProxy;
let conn: Connection;
let notes: NoteRepository;
const stored = async () =>
  (
    await conn
      .collection("notes")
      .find({}, { sort: { _id: 1 } })
      .toArray()
  ).map((d) => String(d._id));

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "teamchat-interrupted-"));
  server = await startMongo({ dataDir, inMemory: true, progress: () => undefined });
  proxy = new CuttableProxy(new URL(server.url));
  const port = new URL(await proxy.listen()).port;
  // a short server selection, so that a cut connection fails the call within the test
  conn = await mongoose
    .createConnection(`mongodb://127.0.0.1:${port}/?directConnection=true`, {
      dbName: "interrupted",
      serverSelectionTimeoutMS: 1_000,
    })
    .asPromise();
  notes = new NoteRepository(conn);
});
afterAll(async () => {
  proxy.close();
  await conn.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it("keeps an existing document and inserts the others", async () => {
  await notes.add("a");
  await insertKeepingExisting(conn.model<NoteDoc>("Note"), [
    { _id: "a", realmId: 1, text: "again" },
    { _id: "b", realmId: 1, text: "b" },
  ]);
  expect(await stored()).toEqual(["a", "b"]);
  await expect(notes.add("a")).rejects.toMatchObject({ code: 11000 });
});

it("rejects an insert the database never took, and stores nothing", async () => {
  proxy.cut();
  await expect(
    insertKeepingExisting(conn.model<NoteDoc>("Note"), [{ _id: "c", realmId: 1, text: "c" }]),
  ).rejects.toThrow();
  await expect(notes.add("d")).rejects.toThrow();
  proxy.resume();
  expect(await stored()).toEqual(["a", "b"]);
  // asked again once the database is back, as a redelivered work item is
  await notes.add("d");
  expect(await stored()).toEqual(["a", "b", "d"]);
}, 20_000);
