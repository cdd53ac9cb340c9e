import type { Connection } from "mongoose";
import { isDuplicateKey } from "./db";
import { Coalescer } from "./coalescer";

/**
 * Integer IDs as in Zulip, increasing from 1, unique across instances: one
 * counter document per kind, taken with `$inc` in findOneAndUpdate. The counter
 * is created by a plain insert before the first `$inc` (once per kind and
 * process; a duplicate key means it exists) rather than by an upserting `$inc`:
 * on SecantusDB 0.7, concurrent upserting `$inc`s of a missing document all
 * apply, but some of them return no document. Calls made while a kind's `$inc`
 * runs are served together by the next one (`$inc` by their number), in the
 * order they came: ids still increase in the order they were asked for.
 */
export class IdAllocator {
  private readonly created = new Map<string, Promise<void>>();
  private readonly taken: Coalescer<void, number>;

  constructor(private readonly conn: Connection) {
    this.taken = new Coalescer(async (kind, calls) => {
      const doc = await this.counters().findOneAndUpdate(
        { _id: kind },
        { $inc: { seq: calls.length } },
        { returnDocument: "after" },
      );
      const first = doc!.seq - calls.length + 1;
      return calls.map((_, i) => first + i);
    });
  }

  private counters() {
    return this.conn.collection<{ _id: string; seq: number }>("counters");
  }

  async next(kind: string): Promise<number> {
    const counters = this.counters();
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
    return this.taken.run(kind, undefined);
  }

  /** The last id given of a kind, 0 before the first: every id of that kind is at most this. */
  async current(kind: string): Promise<number> {
    const doc = await this.counters().findOne({ _id: kind });
    return doc?.seq ?? 0;
  }
}
