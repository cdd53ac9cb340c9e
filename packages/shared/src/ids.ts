import type { Connection, mongo } from "mongoose";
import { isDuplicateKey } from "./db";

/**
 * Takes the first free number from `start` up by inserting it under a unique
 * index, the one write that FerretDB (SQLite) isolates: there, findOneAndUpdate
 * with $inc and conditional updates are unisolated read-modify-writes, and
 * concurrent callers get the same value. `insert(n)` must fail with a
 * duplicate-key error when n is taken; `onTaken` may move the start past what
 * others took meanwhile.
 */
export async function insertWithFreeNumber(
  start: number,
  insert: (n: number) => Promise<unknown>,
  onTaken: (n: number) => Promise<number> = async (n) => n + 1,
): Promise<number> {
  for (let n = start; ;) {
    try {
      await insert(n);
      return n;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      n = await onTaken(n);
    }
  }
}

/**
 * Integer IDs as in Zulip, increasing, unique across instances.
 * - MongoDB: one counter document per kind, `$inc` in findOneAndUpdate (atomic there).
 * - FerretDB (dev and tests): that is not atomic, so each id is claimed by
 *   inserting `<kind>:<n>` into `id_claims` (insertWithFreeNumber). Callers in
 *   one process take distinct candidates from a local cursor; after a collision
 *   with another instance the cursor jumps past the highest claim. Correct with
 *   any number of instances, fast with one (several allocating at once collide).
 */
export class IdAllocator {
  private mode?: Promise<"inc" | "claim">;
  private readonly cursors = new Map<string, Promise<{ next: number }>>();
  private indexed?: Promise<unknown>;

  constructor(private readonly conn: Connection) {}

  async next(kind: string): Promise<number> {
    this.mode ??= this.conn
      .db!.admin()
      .command({ buildInfo: 1 })
      .then((info) => (info.ferretdbVersion ? "claim" : "inc"));
    return (await this.mode) === "inc" ? this.increment(kind) : this.claim(kind);
  }

  private async increment(kind: string): Promise<number> {
    const doc = await this.conn
      .collection<{ _id: string; seq: number }>("counters")
      .findOneAndUpdate({ _id: kind }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: "after" });
    return doc!.seq;
  }

  private async claim(kind: string): Promise<number> {
    const cursor = await this.cursorOf(kind);
    const claims = this.conn.collection("id_claims");
    return insertWithFreeNumber(
      cursor.next++,
      (n) => claims.insertOne({ _id: `${kind}:${n}` as unknown as mongo.ObjectId, kind, n }),
      async () => {
        cursor.next = Math.max(cursor.next, (await this.highestClaim(kind)) + 1);
        return cursor.next++;
      },
    );
  }

  private cursorOf(kind: string): Promise<{ next: number }> {
    let cursor = this.cursors.get(kind);
    if (!cursor) {
      cursor = this.highestClaim(kind).then((n) => ({ next: n + 1 }));
      this.cursors.set(kind, cursor);
    }
    return cursor;
  }

  private async highestClaim(kind: string): Promise<number> {
    const claims = this.conn.collection("id_claims");
    // serves: the highest claim of a kind, at start and after a collision with another instance
    this.indexed ??= claims.createIndex({ kind: 1, n: -1 });
    await this.indexed;
    const top = await claims.find({ kind }).sort({ n: -1 }).limit(1).next();
    return (top?.n as number | undefined) ?? 0;
  }
}
