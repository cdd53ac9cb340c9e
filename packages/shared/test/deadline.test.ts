/**
 * A request whose caller gave up stops at its next read, unless it has already
 * written (then it finishes, so that its writes are complete). Against the real
 * database, through a TenantRepository as every service uses it.
 */
import { randomBytes } from "node:crypto";
import { Schema } from "mongoose";
import { connectDatabase, TenantRepository, type Connection } from "../src/db";
import { withDeadline } from "../src/deadline";

interface NoteDoc {
  realmId: number;
  text: string;
}

class NoteRepository extends TenantRepository<NoteDoc> {
  constructor(conn: Connection) {
    super(conn.model<NoteDoc>("Note", new Schema<NoteDoc>({ realmId: Number, text: String }, { versionKey: false })));
  }
  add = (realmId: number, text: string) => this.insertOne({ realmId, text });
  texts = async (realmId: number) => (await this.find(realmId, {})).map((n) => n.text);
}

let conn: Connection;
let notes: NoteRepository;
beforeAll(async () => {
  conn = await connectDatabase(process.env.TEST_MONGO_URL!, `deadline${randomBytes(4).toString("hex")}`);
  notes = new NoteRepository(conn);
  await notes.init();
});
afterAll(async () => {
  await conn.dropDatabase();
  await conn.close();
});

const past = () => Date.now() - 1;
const future = () => Date.now() + 60_000;

it("a read of an abandoned request is refused with 504 and does not reach the database", async () => {
  await expect(withDeadline(past(), () => notes.texts(1))).rejects.toMatchObject({
    code: "GATEWAY_TIMEOUT",
    status: 504,
  });
});

it("a request that has written finishes, reads included, even after its caller gave up", async () => {
  const done = await withDeadline(past(), async () => {
    await notes.add(2, "first write");
    return notes.texts(2);
  });
  expect(done).toEqual(["first write"]);
});

it("reads within the deadline, and work outside any request, go ahead", async () => {
  await notes.add(3, "kept");
  expect(await withDeadline(future(), () => notes.texts(3))).toEqual(["kept"]);
  expect(await notes.texts(3)).toEqual(["kept"]);
});
