import mongoose, { type Connection, type Model, type QueryFilter, type mongo } from "mongoose";

export type { Connection };

export async function connectDatabase(url: string, dbName: string): Promise<Connection> {
  const conn = mongoose.createConnection(url, {
    dbName,
    serverSelectionTimeoutMS: 10_000,
    // Indexes are created explicitly by each repository's init(), once, at start.
    autoIndex: false,
    autoCreate: true,
  });
  await conn.asPromise();
  return conn;
}

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

/** A filter that cannot forget the tenant: every query on a realm-owned collection names realmId. */
export type RealmFilter<T> = QueryFilter<T> & { realmId: number };

/**
 * Base for the one repository per collection. Reads are lean (plain objects) and
 * every filter carries realmId by type.
 */
export abstract class RealmRepository<T extends { realmId: number }> {
  constructor(protected readonly model: Model<T>) {}

  /** Builds the collection's indexes (each schema file says which query each one serves). */
  async init(): Promise<void> {
    await this.model.createCollection().catch(() => undefined);
    await this.model.syncIndexes();
  }

  findOne(filter: RealmFilter<T>): Promise<T | null> {
    return this.model.findOne(filter).lean<T>().exec();
  }

  find(filter: RealmFilter<T>): Promise<T[]> {
    return this.model.find(filter).lean<T[]>().exec();
  }

  count(filter: RealmFilter<T>): Promise<number> {
    return this.model.countDocuments(filter).exec();
  }
}

/** MongoDB's duplicate-key error, raised by unique indexes. */
export const isDuplicateKey = (err: unknown): boolean => (err as { code?: number })?.code === 11000;
