import type { Connection } from "mongoose";
import { isDuplicateKey } from "./db";

/**
 * Integer IDs as in Zulip, increasing from 1, unique across instances: one
 * counter document per kind, taken with `$inc` in findOneAndUpdate. The counter
 * is created by a plain insert before the first `$inc` (once per kind and
 * process; a duplicate key means it exists) rather than by an upserting `$inc`:
 * on SecantusDB 0.7, concurrent upserting `$inc`s of a missing document all
 * apply, but some of them return no document.
 */
export class IdAllocator {
  private readonly created = new Map<string, Promise<void>>();

  constructor(private readonly conn: Connection) {}

  async next(kind: string): Promise<number> {
    const counters = this.conn.collection<{ _id: string; seq: number }>("counters");
    let created = this.created.get(kind);
    if (!created) {
      created = counters.insertOne({ _id: kind, seq: 0 }).then(
        () => undefined,
        (err: unknown) => {
          if (!isDuplicateKey(err)) throw err;
        },
      );
      // A failed creation is tried again by the next call.
      created.catch(() => this.created.delete(kind));
      this.created.set(kind, created);
    }
    await created;
    const doc = await counters.findOneAndUpdate({ _id: kind }, { $inc: { seq: 1 } }, { returnDocument: "after" });
    return doc!.seq;
  }

  /** The last id given of a kind, 0 before the first: every id of that kind is at most this. */
  async current(kind: string): Promise<number> {
    const doc = await this.conn.collection<{ _id: string; seq: number }>("counters").findOne({ _id: kind });
    return doc?.seq ?? 0;
  }
}
