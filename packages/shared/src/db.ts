import mongoose, { type Connection, type Model, type QueryFilter } from "mongoose";

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
