import { AsyncLocalStorage } from "node:async_hooks";
import { ensureCallerWaiting, noteWrite } from "./deadline";
import { addDbTime } from "./request-scope";
import type { Logger } from "./logger";
import type { ServiceMetrics } from "./metrics";
import { Coalescer } from "./coalescer";
import mongoose, {
  type ClientSession,
  type Connection,
  type Model,
  type QueryFilter,
  type UpdateQuery,
  type ProjectionType,
} from "mongoose";

export type { Connection };

/**
 * How writes are made safe on the server connected to, chosen from its
 * `hello` reply. A replica set (`setName`) or a sharded cluster (mongos, `msg:
 * "isdbgrid"`) acknowledges a write once a majority of its members hold it, so a
 * failover cannot roll back what a client was told is done, reads see only
 * what a majority holds, and multi-document changes run in transactions. A
 * single server (standalone mongod, SecantusDB started `--standalone`) keeps
 * the driver's defaults: no transactions (standalone mongod refuses them), and
 * each multi-document change relies on its steps being idempotent and resumable.
 */
export interface WriteSafety {
  /** the replica set's name; undefined for a single server or mongos */
  replicaSet?: string;
  /** whether multi-document changes run in transactions (withTransaction) */
  transactions: boolean;
  /** the connection's default write and read concerns (none: the driver's defaults) */
  writeConcern?: { w: "majority" };
  readConcern?: { level: "majority" };
}

export function writeSafetyOf(hello: { setName?: string; msg?: string }): WriteSafety {
  const replicated = hello.setName !== undefined || hello.msg === "isdbgrid";
  if (!replicated) return { transactions: false };
  return {
    ...(hello.setName !== undefined && { replicaSet: hello.setName }),
    transactions: true,
    writeConcern: { w: "majority" },
    readConcern: { level: "majority" },
  };
}

const writeSafetyOfConnection = new WeakMap<Connection, WriteSafety>();

/** The write safety a connection was opened with (connectDatabase); a connection opened otherwise has none. */
export const writeSafety = (conn: Connection): WriteSafety =>
  writeSafetyOfConnection.get(conn) ?? { transactions: false };

/**
 * Connects with the write safety the server allows; with `metrics`, every
 * command's round trip is measured (the driver's command monitoring).
 */
export async function connectDatabase(
  url: string,
  dbName: string,
  metrics?: ServiceMetrics,
  log?: Logger,
): Promise<Connection> {
  const options = {
    dbName,
    serverSelectionTimeoutMS: 10_000,
    // Indexes are created explicitly by each repository's init(), once, at start.
    autoIndex: false,
    autoCreate: true,
    monitorCommands: metrics !== undefined,
  };
  let conn = await mongoose.createConnection(url, options).asPromise();
  const safety = writeSafetyOf(await conn.getClient().db("admin").command({ hello: 1 }));
  if (safety.writeConcern) {
    // The concerns are options of the client: a replicated server's connection is opened again with them.
    await conn.close();
    conn = await mongoose
      .createConnection(url, { ...options, writeConcern: safety.writeConcern, readConcern: safety.readConcern })
      .asPromise();
  }
  writeSafetyOfConnection.set(conn, safety);
  if (metrics) measureCommands(conn.getClient(), metrics, log?.isLevelEnabled("trace") ? log : undefined);
  return conn;
}

/**
 * One place for every database call, whichever repository, model or helper
 * made it: the driver reports each command's start and end. The collection is
 * the value of the command's own field (`{find: "users"}`), so it is known at
 * the start only; a `getMore` names it in `collection`. So are the statements
 * a write sends; the documents it wrote, and those a read returned, are in the
 * reply. With `trace` (LOG_LEVEL=trace), each command is also logged with its
 * duration and its shape: which query a slow minute's time went to. Each is
 * also counted to the bus request that awaited it (request-scope.ts).
 */
function measureCommands(
  client: ReturnType<Connection["getClient"]>,
  metrics: ServiceMetrics,
  trace: Logger | undefined,
): void {
  const started = new Map<number, { collection: string; statements: number; shape?: unknown }>();
  client.on("commandStarted", (e) => {
    const named = e.command[e.commandName] as unknown;
    const collection = typeof named === "string" ? named : e.command.collection;
    started.set(e.requestId, {
      collection: typeof collection === "string" ? collection : "",
      statements: statementsOf(e.commandName, e.command),
      ...(trace && { shape: shapeOf(e.command) }),
    });
  });
  const startOf = (e: { requestId: number; commandName: string; duration: number }) => {
    const start = started.get(e.requestId);
    started.delete(e.requestId);
    const labels = { command: e.commandName, collection: start?.collection ?? "" };
    trace?.trace({ db: { ...labels, ms: e.duration, shape: start?.shape } }, "database command");
    addDbTime(labels.command, labels.collection, e.duration);
    return { labels, statements: start?.statements };
  };
  client.on("commandSucceeded", (e) => {
    const { labels, statements } = startOf(e);
    metrics.dbCommandSeconds.observe(labels, e.duration / 1000);
    if (statements !== undefined) metrics.dbStatements.inc(labels, statements);
    const reply = (e.reply ?? {}) as CommandReply;
    const written = documentsWritten(e.commandName, reply);
    if (written) metrics.dbDocumentsWritten.inc(labels, written);
    const returned = documentsReturned(e.commandName, reply);
    if (returned) metrics.dbDocumentsReturned.inc(labels, returned);
  });
  client.on("commandFailed", (e) => {
    const { labels, statements } = startOf(e);
    metrics.dbCommandSeconds.observe(labels, e.duration / 1000);
    metrics.dbCommandFailures.inc(labels);
    if (statements !== undefined) metrics.dbStatements.inc(labels, statements);
  });
}

/**
 * A command without its values (they may be anyone's messages or keys): its fields and operators,
 * each value as its type, each list as its length and its first item's shape.
 */
function shapeOf(value: unknown, depth = 0): unknown {
  if (Array.isArray(value)) return value.length ? [value.length, shapeOf(value[0], depth + 1)] : [0];
  if (value === null || typeof value !== "object" || depth > 4) return value === null ? null : typeof value;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return (value as object).constructor.name;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !SESSION_FIELDS.has(k))
      .map(([k, v]) => [k, shapeOf(v, depth + 1)]),
  );
}

/** What the driver adds to every command: not the query's shape. */
const SESSION_FIELDS = new Set(["$db", "$clusterTime", "lsid", "$readPreference"]);

/** The field of a write command that lists its statements. */
const STATEMENT_LISTS: Record<string, string> = { insert: "documents", update: "updates", delete: "deletes" };

/** The statements a command sends: an insert's documents, an update's or delete's statements; 1 for any other. */
function statementsOf(commandName: string, command: Record<string, unknown>): number {
  const field = STATEMENT_LISTS[commandName];
  const list = field === undefined ? undefined : command[field];
  return Array.isArray(list) ? list.length : 1;
}

/** The parts of a command's reply that say how many documents it wrote or returned. */
interface CommandReply {
  n?: number;
  nModified?: number;
  upserted?: unknown[];
  lastErrorObject?: { n?: number };
  value?: unknown;
  cursor?: { firstBatch?: unknown[]; nextBatch?: unknown[] };
}

/**
 * The documents a command wrote, from its reply: an update's `n` counts the
 * documents it matched, changed or not, so what it modified and upserted is
 * counted instead (findAndModify tells only what it matched or upserted).
 */
function documentsWritten(commandName: string, reply: CommandReply): number {
  switch (commandName) {
    case "insert":
    case "delete":
      return reply.n ?? 0;
    case "update":
      return reply.nModified === undefined ? (reply.n ?? 0) : reply.nModified + (reply.upserted?.length ?? 0);
    case "findAndModify":
      return reply.lastErrorObject?.n ?? 0;
    default:
      return 0;
  }
}

/** The documents a command returned: a cursor's batch, or findAndModify's document. */
function documentsReturned(commandName: string, reply: CommandReply): number {
  if (commandName === "findAndModify") return reply.value ? 1 : 0;
  const batch = reply.cursor?.firstBatch ?? reply.cursor?.nextBatch;
  return Array.isArray(batch) ? batch.length : 0;
}

/** The transaction the current async call chain runs in, with the connection it belongs to. */
const currentTransaction = new AsyncLocalStorage<{ conn: Connection; session: ClientSession }>();

/**
 * Runs `work` as one transaction on `conn` when its server supports them
 * (writeSafety): every TenantRepository call on that connection made inside
 * `work` joins it, none of its writes is visible to others before the commit,
 * and all are undone when `work` throws. The driver re-runs `work` on a
 * transient error (a write conflict with a concurrent transaction, a
 * failover), so `work` only reads and writes the database, one operation at
 * a time (a transaction's operations cannot run in parallel): events are
 * published and replies built after this resolves. Id allocation (IdAllocator)
 * stays outside: an aborted attempt leaves a gap in the ids, as Zulip's
 * PostgreSQL sequences do. Where transactions are not supported, `work` runs
 * as it is: a failure halfway leaves the steps done so far, which the callers
 * make idempotent and resumable. Nested calls join the outer transaction.
 */
export async function withTransaction<T>(conn: Connection, work: () => Promise<T>): Promise<T> {
  if (!writeSafety(conn).transactions || currentTransaction.getStore()?.conn === conn) return work();
  const session = await conn.getClient().startSession();
  try {
    return await session.withTransaction(() => currentTransaction.run({ conn, session }, work));
  } finally {
    await session.endSession();
  }
}

/** A filter on a realm-owned collection, without the realm: TenantRepository adds it. */
export type TenantFilter<T> = Omit<QueryFilter<T>, "realmId">;

export interface ReadOptions<T> {
  sort?: Partial<Record<keyof T & string, 1 | -1>>;
  limit?: number;
  projection?: ProjectionType<T>;
}

/** One caller of TenantRepository.findOfUser. */
interface UserRead<T> {
  realmId: number;
  field: keyof T & string;
  filter: TenantFilter<T>;
  sort: ReadOptions<T>["sort"];
  userId: number;
}

/**
 * Creates the model's collection if missing and makes its indexes those its
 * schema declares: an index the schema no longer declares is dropped, not left
 * to slow every insert. Concurrent calls from several instances are harmless.
 */
export async function syncCollection(model: Pick<Model<never>, "createCollection" | "syncIndexes">): Promise<void> {
  await model.createCollection().catch(() => undefined);
  await model.syncIndexes();
}

/**
 * Base of the one repository per realm-owned collection (Novu's base
 * repository is the model). Every read, write and delete takes the realm id as
 * its first argument and adds it to the filter, so no query can cross
 * organizations. The mongoose model is private: subclasses expose
 * domain-named methods and build their filters with these helpers; handlers
 * never see a filter.
 */
/** Keys per command of TenantRepository's by-key reads and writes (see #slices). */
const KEYS_PER_COMMAND = 50;

export abstract class TenantRepository<T extends { realmId: number }> {
  readonly #model: Model<T>;

  protected constructor(model: Model<T>) {
    this.#model = model;
  }

  /** Builds the collection's indexes (each schema file says which query each one serves). */
  init(): Promise<void> {
    return syncCollection(this.#model);
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

  /** The session of the transaction on this repository's connection that the caller runs in (withTransaction), if any. */
  private get session(): ClientSession | undefined {
    const transaction = currentTransaction.getStore();
    return transaction?.conn === this.#model.db ? transaction.session : undefined;
  }

  protected findOne(realmId: number, filter: TenantFilter<T>, opts: ReadOptions<T> = {}): Promise<T | null> {
    let q = this.#model.findOne(this.scoped(realmId, filter), opts.projection).session(this.session ?? null);
    if (opts.sort) q = q.sort(opts.sort as Record<string, 1 | -1>);
    return q.lean<T>().exec();
  }

  protected find(realmId: number, filter: TenantFilter<T>, opts: ReadOptions<T> = {}): Promise<T[]> {
    let q = this.#model.find(this.scoped(realmId, filter), opts.projection).session(this.session ?? null);
    if (opts.sort) q = q.sort(opts.sort as Record<string, 1 | -1>);
    if (opts.limit !== undefined) q = q.limit(opts.limit);
    return q.lean<T[]>().exec();
  }

  /**
   * One user's documents: those whose `field` is the user (or an array holding
   * them) and that match `filter`, in `sort`'s order. Concurrent calls for
   * users of one realm with the same filter share one `$in` query: after a
   * restart, clients of many users open at once, and on SecantusDB each
   * command has a fixed cost (docs/adr/0055-per-user-reads-coalesced.md).
   * Documents may be shared with another caller's result: read them only.
   */
  protected findOfUser(
    realmId: number,
    field: keyof T & string,
    userId: number,
    filter: TenantFilter<T> = {} as TenantFilter<T>,
    sort?: ReadOptions<T>["sort"],
  ): Promise<T[]> {
    if (this.session) return this.find(realmId, { ...filter, [field]: userId }, { sort });
    ensureCallerWaiting();
    const key = JSON.stringify([realmId, field, filter, sort ?? null]);
    return this.#userReads.run(key, { realmId, field, filter, sort, userId });
  }

  readonly #userReads = new Coalescer<UserRead<T>, T[]>(async (_key, reads) => {
    // one key, one query: every read of the round shares its realm, field, filter and sort
    const { realmId, field, filter, sort } = reads[0]!;
    const users = [...new Set(reads.map((r) => r.userId))];
    const rows = await this.find(
      realmId,
      { ...filter, [field]: users.length > 1 ? { $in: users } : users[0] },
      { sort },
    );
    const byUser = new Map(users.map((u) => [u, [] as T[]]));
    for (const row of rows) {
      const value = row[field] as unknown;
      for (const u of Array.isArray(value) ? (value as unknown[]) : [value]) byUser.get(u as number)?.push(row);
    }
    return reads.map((r) => byUser.get(r.userId)!);
  });

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
    return this.#model
      .countDocuments(this.scoped(realmId, filter))
      .session(this.session ?? null)
      .exec();
  }

  /**
   * Inserts a document, with the schema's defaults, casting and validation.
   * Outside a transaction, concurrent calls share one unordered insert (one
   * command per round instead of one each, as SecantusDB's CPU bounds a send);
   * each caller gets its own document's failure (a duplicate key) or none.
   */
  protected async insertOne(doc: T): Promise<T> {
    noteWrite();
    const stored = new this.#model(doc);
    const session = this.session;
    if (session) {
      await stored.save({ session });
      return doc;
    }
    await stored.validate();
    const failure = await this.#insertsOne.run("", stored.toObject());
    if (failure) throw failure;
    return doc;
  }

  readonly #insertsOne = new Coalescer<object, Error | undefined>(async (_, docs) => {
    try {
      await this.#model.insertMany(docs, { ordered: false, lean: true });
      return docs.map(() => undefined);
    } catch (err) {
      const failures = documentFailures(err);
      if (!failures) throw err;
      const failed = new Map(failures.map((e) => [e.index, e]));
      return docs.map((_doc, i) => {
        const e = failed.get(i);
        return e && Object.assign(new Error(e.errmsg ?? "write failed"), { code: e.code });
      });
    }
  });

  protected async insertMany(docs: T[]): Promise<void> {
    noteWrite();
    if (docs.length) await this.#model.insertMany(docs, { ordered: false, session: this.session });
  }

  /**
   * Inserts the documents that do not exist yet (by `_id`), keeping those that
   * do. Outside a transaction an unordered insert whose duplicates fail; inside
   * one, upserts that insert only when missing, as a duplicate-key error aborts
   * a MongoDB transaction. `docs` must be complete as stored: the insert skips
   * mongoose's casting, defaults and validation (`lean`), which were most of
   * messaging's CPU in a send to a hundred receivers, one row each.
   */
  protected async insertKeepingExisting(docs: Array<T & { _id: unknown }>): Promise<void> {
    noteWrite();
    if (!docs.length) return;
    const session = this.session;
    if (session) {
      const upserts = docs.map(({ _id, ...doc }) => ({
        updateOne: { filter: { _id }, update: { $setOnInsert: doc }, upsert: true },
      }));
      await this.#model.bulkWrite(upserts as Parameters<Model<T>["bulkWrite"]>[0], { ordered: false, session });
      return;
    }
    await this.#insertsKeepingExisting.run("", docs);
  }

  /** Concurrent callers' documents, inserted together (one command per round instead of one each). */
  readonly #insertsKeepingExisting = new Coalescer<Array<T & { _id: unknown }>, void>(async (_, rounds) => {
    await insertKeepingExisting(this.#model, rounds.flat());
    return rounds.map(() => undefined);
  });

  /**
   * The filter of reads and writes by primary key, for a collection whose keys
   * the repository makes from the realm id (`<realmId>:...`): the keys alone.
   * SecantusDB serves a filter from the primary key only while `_id` is its
   * first field; realmId first makes it scan the collection
   * (docs/adr/0010-query-shapes.md). So the realm
   * is checked here, on the keys, and conditions on other fields go in the
   * update (see updateByKeys).
   */
  #keysFilter(realmId: number, keys: string[]): QueryFilter<T> {
    const prefix = `${realmId}:`;
    const stranger = keys.find((k) => !k.startsWith(prefix));
    if (stranger !== undefined) throw new Error(`key ${stranger} is not of organization ${realmId}`);
    return { _id: { $in: keys } } as QueryFilter<T>;
  }

  /**
   * The filters of a by-key call, KEYS_PER_COMMAND keys each, run one after
   * another (a transaction's operations cannot run in parallel): SecantusDB's
   * cost of an `$in` of keys grows with its square (500 keys: 2 s to delete,
   * against 0.13 s as ten commands of 50). None for no keys.
   */
  #slices(realmId: number, keys: string[]): Array<QueryFilter<T>> {
    const slices: Array<QueryFilter<T>> = [];
    for (let i = 0; i < keys.length; i += KEYS_PER_COMMAND) {
      slices.push(this.#keysFilter(realmId, keys.slice(i, i + KEYS_PER_COMMAND)));
    }
    return slices;
  }

  /** The documents with these keys (see #keysFilter). */
  protected async findByKeys(realmId: number, keys: string[], projection?: ProjectionType<T>): Promise<T[]> {
    ensureCallerWaiting();
    const found: T[] = [];
    for (const slice of this.#slices(realmId, keys)) {
      found.push(
        ...(await this.#model
          .find(slice, projection)
          .session(this.session ?? null)
          .lean<T[]>()
          .exec()),
      );
    }
    return found;
  }

  /**
   * Updates the documents with these keys (see #keysFilter); returns how many
   * changed. Conditions on a document's fields go in the update, as an update
   * pipeline ($cond), since the filter holds the keys alone.
   */
  protected async updateByKeys(
    realmId: number,
    keys: string[],
    update: UpdateQuery<T> | Array<Record<string, unknown>>,
  ): Promise<number> {
    noteWrite();
    let modified = 0;
    for (const slice of this.#slices(realmId, keys)) {
      const filter = slice as Parameters<Model<T>["collection"]["updateMany"]>[0];
      modified += (await this.#model.collection.updateMany(filter, update as never, { session: this.session }))
        .modifiedCount;
    }
    return modified;
  }

  /** Deletes the documents with these keys (see #keysFilter); returns how many there were. */
  protected async deleteByKeys(realmId: number, keys: string[]): Promise<number> {
    noteWrite();
    let deleted = 0;
    for (const slice of this.#slices(realmId, keys)) {
      const filter = slice as Parameters<Model<T>["collection"]["deleteMany"]>[0];
      deleted += (await this.#model.collection.deleteMany(filter, { session: this.session })).deletedCount;
    }
    return deleted;
  }

  /** Updates the first match; returns the document after the update (or as it was before), or null when none matched. */
  protected findOneAndUpdate(
    realmId: number,
    filter: TenantFilter<T>,
    update: UpdateQuery<T>,
    returnDocument: "before" | "after" = "after",
  ): Promise<T | null> {
    return this.#model
      .findOneAndUpdate(this.scopedWrite(realmId, filter), update, { returnDocument, session: this.session })
      .lean<T>()
      .exec();
  }

  /** Returns how many documents matched. */
  protected async updateOne(realmId: number, filter: TenantFilter<T>, update: UpdateQuery<T>): Promise<number> {
    return (await this.#model.updateOne(this.scopedWrite(realmId, filter), update, { session: this.session }).exec())
      .matchedCount;
  }

  /** Updates the first match, or inserts the filter's fields with the update when none matched; true when it inserted. */
  protected async upsertOne(realmId: number, filter: TenantFilter<T>, update: UpdateQuery<T>): Promise<boolean> {
    return (
      (
        await this.#model
          .updateOne(this.scopedWrite(realmId, filter), update, { upsert: true, session: this.session })
          .exec()
      ).upsertedCount > 0
    );
  }

  protected async updateMany(realmId: number, filter: TenantFilter<T>, update: UpdateQuery<T>): Promise<number> {
    return (await this.#model.updateMany(this.scopedWrite(realmId, filter), update, { session: this.session }).exec())
      .modifiedCount;
  }

  protected async deleteMany(realmId: number, filter: TenantFilter<T>): Promise<number> {
    return (await this.#model.deleteMany(this.scopedWrite(realmId, filter), { session: this.session }).exec())
      .deletedCount;
  }
}

/** MongoDB's duplicate-key error, raised by unique indexes. */
export const isDuplicateKey = (err: unknown): boolean => (err as { code?: number })?.code === 11000;

/** One document's failure in an unordered insert or bulk write: its place in the batch and why. */
interface DocumentFailure {
  index: number;
  code?: number;
  errmsg?: string;
}

/**
 * The documents an unordered insert or bulk write failed, the others being
 * written; undefined when it failed as a whole. The driver reports a network
 * error, a server shutting down or a write concern error as a bulk write
 * error with no document failures at all, which must not read as "every
 * document written": that lost acknowledged writes across a database restart.
 */
export function documentFailures(err: unknown): DocumentFailure[] | undefined {
  const bulk = err as
    { writeErrors?: DocumentFailure[]; result?: { getWriteConcernError?: () => unknown } } | undefined;
  if (!Array.isArray(bulk?.writeErrors) || bulk.writeErrors.length === 0) return undefined;
  return bulk.result?.getWriteConcernError?.() ? undefined : bulk.writeErrors;
}

/** An insertMany whose every failed document already existed (unique index): the others were inserted. */
export const onlyDuplicateKeys = (err: unknown): boolean => {
  const failures = documentFailures(err);
  return failures ? failures.every((e) => e.code === 11000) : isDuplicateKey(err);
};

/**
 * Inserts the documents whose keys are not taken yet, keeping those that are:
 * an unordered insert whose duplicates fail. `docs` must be complete as
 * stored (`lean`: no casting, defaults or validation). Not for a transaction,
 * which a duplicate-key error aborts.
 */
export async function insertKeepingExisting<T>(model: Model<T>, docs: T[]): Promise<void> {
  try {
    await model.insertMany(docs, { ordered: false, lean: true });
  } catch (err) {
    if (!onlyDuplicateKeys(err)) throw err;
  }
}
