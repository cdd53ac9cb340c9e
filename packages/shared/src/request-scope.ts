import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The database commands a bus request awaited, for its slow-request log line: as Zulip's request
 * log gives each request's "db: 812ms/14q", a slow request tells whether it waited on the database,
 * and on which command. Commands run side by side add up, as Zulip's do.
 */
export interface DbTime {
  ms: number;
  commands: number;
  /** the longest command, where to look first */
  slowest?: { command: string; collection: string; ms: number };
}

/**
 * What a bus request's handler leaves to its server, from however deep it is called: one store for
 * both, as each AsyncLocalStorage adds to the cost of every promise.
 */
interface RequestScope {
  /** the stream acknowledgements of the events it published */
  acks: Array<Promise<void>>;
  /** the database commands it awaited */
  db: DbTime;
}

const current = new AsyncLocalStorage<RequestScope>();

/**
 * Runs a request's handler, its database commands counted into `db`, and waits
 * until every event it published is stored in the domain event stream
 * (BusServer replies only then): a success reply means its events will reach
 * every consumer, whatever dies next. A failed store fails the request.
 */
export async function withRequestScope<T>(db: DbTime, work: () => Promise<T>): Promise<T> {
  const scope: RequestScope = { acks: [], db };
  const result = await current.run(scope, work);
  while (scope.acks.length) await Promise.all(scope.acks.splice(0));
  return result;
}

/** Hands a publish's acknowledgement to the request being served; false outside one. */
export function awaitWithRequest(ack: Promise<void>): boolean {
  const scope = current.getStore();
  scope?.acks.push(ack);
  return scope !== undefined;
}

/** A command's answer (db.ts sees every one): counted to the request that awaited it, if any. */
export function addDbTime(command: string, collection: string, ms: number): void {
  const db = current.getStore()?.db;
  if (!db) return;
  db.ms += ms;
  db.commands++;
  if (!db.slowest || ms > db.slowest.ms) db.slowest = { command, collection, ms };
}
