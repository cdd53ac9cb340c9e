import { ensureCallerWaiting, noteWrite } from "./deadline";
import type { ServiceMetrics } from "./metrics";
import mongoose, {
  type Connection,
  type Model,
  type QueryFilter,
  type UpdateQuery,
  type ProjectionType,
} from "mongoose";

export type { Connection };

/** Connects; with `metrics`, every command's round trip is measured (the driver's command monitoring). */
export async function connectDatabase(url: string, dbName: string, metrics?: ServiceMetrics): Promise<Connection> {
  const conn = mongoose.createConnection(url, {
    dbName,
    serverSelectionTimeoutMS: 10_000,
    // Indexes are created explicitly by each repository's init(), once, at start.
    autoIndex: false,
    autoCreate: true,
    monitorCommands: metrics !== undefined,
  });
  if (metrics) measureCommands(conn.getClient(), metrics);
  await conn.asPromise();
  return conn;
}

/**
 * One place for every database call, whichever repository, model or helper
 * made it: the driver reports each command's start and end. The collection is
 * the value of the command's own field (`{find: "users"}`), so it is known at
 * the start only; a `getMore` names it in `collection`.
 */
function measureCommands(client: ReturnType<Connection["getClient"]>, metrics: ServiceMetrics): void {
  const collections = new Map<number, string>();
  client.on("commandStarted", (e) => {
    const named = e.command[e.commandName] as unknown;
    const collection = typeof named === "string" ? named : e.command.collection;
    collections.set(e.requestId, typeof collection === "string" ? collection : "");
  });
  const labels = (e: { requestId: number; commandName: string }) => {
    const collection = collections.get(e.requestId) ?? "";
    collections.delete(e.requestId);
    return { command: e.commandName, collection };
  };
  client.on("commandSucceeded", (e) => metrics.dbCommandSeconds.observe(labels(e), e.duration / 1000));
  client.on("commandFailed", (e) => {
    const l = labels(e);
    metrics.dbCommandSeconds.observe(l, e.duration / 1000);
    metrics.dbCommandFailures.inc(l);
  });
}

/** A filter on a realm-owned collection, without the realm: TenantRepository adds it. */
export type TenantFilter<T> = Omit<QueryFilter<T>, "realmId">;

export interface ReadOptions<T> {
  sort?: Partial<Record<keyof T & string, 1 | -1>>;
  limit?: number;
  projection?: ProjectionType<T>;
}

/**
 * Base of the one repository per realm-owned collection (Novu's base
 * repository is the model). Every read, write and delete takes the realm id as
 * its first argument and adds it to the filter, so no query can cross
 * organizations. The mongoose model is private: subclasses expose
 * domain-named methods and build their filters with these helpers; handlers
 * never see a filter.
 */
export abstract class TenantRepository<T extends { realmId: number }> {
  readonly #model: Model<T>;

  protected constructor(model: Model<T>) {
    this.#model = model;
  }

  /** Builds the collection's indexes (each schema file says which query each one serves). */
  async init(): Promise<void> {
    await this.#model.createCollection().catch(() => undefined);
    await this.#model.syncIndexes();
  }

  /** The filter of a read: the realm added, once the caller is known to be still waiting. */
  private scoped(realmId: number, filter: TenantFilter<T>): QueryFilter<T> {
    ensureCallerWaiting();
    return this.tenant(realmId, filter);
  }

  /** The filter of a write: the realm added; the request is no longer abandoned halfway. */
  private scopedWrite(realmId: number, filter: TenantFilter<T>): QueryFilter<T> {
    noteWrite();
    return this.tenant(realmId, filter);
  }

  private tenant(realmId: number, filter: TenantFilter<T>): QueryFilter<T> {
    return { ...filter, realmId } as QueryFilter<T>;
  }

  protected findOne(realmId: number, filter: TenantFilter<T>, opts: ReadOptions<T> = {}): Promise<T | null> {
    let q = this.#model.findOne(this.scoped(realmId, filter), opts.projection);
    if (opts.sort) q = q.sort(opts.sort as Record<string, 1 | -1>);
    return q.lean<T>().exec();
  }

  protected find(realmId: number, filter: TenantFilter<T>, opts: ReadOptions<T> = {}): Promise<T[]> {
    let q = this.#model.find(this.scoped(realmId, filter), opts.projection);
    if (opts.sort) q = q.sort(opts.sort as Record<string, 1 | -1>);
    if (opts.limit !== undefined) q = q.limit(opts.limit);
    return q.lean<T[]>().exec();
  }

  /**
   * The one read without a realm, for maintenance that spans organizations (an
   * expiry sweep): each document carries its realmId, so what follows is
   * realm-scoped again.
   */
  protected findInEveryRealm(filter: TenantFilter<T>): Promise<T[]> {
    return this.#model
      .find(filter as QueryFilter<T>)
      .lean<T[]>()
      .exec();
  }

  /** The count across organizations, for figures of the whole system (metrics). */
  protected countInEveryRealm(filter: TenantFilter<T>): Promise<number> {
    return this.#model.countDocuments(filter as QueryFilter<T>).exec();
  }

  protected count(realmId: number, filter: TenantFilter<T>): Promise<number> {
    return this.#model.countDocuments(this.scoped(realmId, filter)).exec();
  }

  protected async insertOne(doc: T): Promise<T> {
    noteWrite();
    await this.#model.create(doc);
    return doc;
  }

  protected async insertMany(docs: T[]): Promise<void> {
    noteWrite();
    if (docs.length) await this.#model.insertMany(docs, { ordered: false });
  }

  /** Updates the first match; returns the document after the update (or as it was before), or null when none matched. */
  protected findOneAndUpdate(
    realmId: number,
    filter: TenantFilter<T>,
    update: UpdateQuery<T>,
    returnDocument: "before" | "after" = "after",
  ): Promise<T | null> {
    return this.#model.findOneAndUpdate(this.scopedWrite(realmId, filter), update, { returnDocument }).lean<T>().exec();
  }

  /** Returns how many documents matched. */
  protected async updateOne(realmId: number, filter: TenantFilter<T>, update: UpdateQuery<T>): Promise<number> {
    return (await this.#model.updateOne(this.scopedWrite(realmId, filter), update).exec()).matchedCount;
  }

  /** Updates the first match, or inserts the filter's fields with the update when none matched; true when it inserted. */
  protected async upsertOne(realmId: number, filter: TenantFilter<T>, update: UpdateQuery<T>): Promise<boolean> {
    return (
      (await this.#model.updateOne(this.scopedWrite(realmId, filter), update, { upsert: true }).exec()).upsertedCount >
      0
    );
  }

  protected async updateMany(realmId: number, filter: TenantFilter<T>, update: UpdateQuery<T>): Promise<number> {
    return (await this.#model.updateMany(this.scopedWrite(realmId, filter), update).exec()).modifiedCount;
  }

  protected async deleteMany(realmId: number, filter: TenantFilter<T>): Promise<number> {
    return (await this.#model.deleteMany(this.scopedWrite(realmId, filter)).exec()).deletedCount;
  }
}

/** MongoDB's duplicate-key error, raised by unique indexes. */
export const isDuplicateKey = (err: unknown): boolean => (err as { code?: number })?.code === 11000;

/** An insertMany whose every failed document already existed (unique index): the others were inserted. */
export const onlyDuplicateKeys = (err: unknown): boolean => {
  const writeErrors = (err as { writeErrors?: Array<{ code?: number }> } | undefined)?.writeErrors;
  return Array.isArray(writeErrors) ? writeErrors.every((e) => e.code === 11000) : isDuplicateKey(err);
};
