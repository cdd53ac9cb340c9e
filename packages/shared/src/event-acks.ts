import { AsyncLocalStorage } from "node:async_hooks";

/** The stream acknowledgements of the events a bus request's handler published. */
const requestAcks = new AsyncLocalStorage<Array<Promise<void>>>();

/**
 * Runs a request's handler and waits until every event it published is stored
 * in the domain event stream (BusServer replies only then): a success reply
 * means its events will reach every consumer, whatever dies next. A failed
 * store fails the request.
 */
export async function withEventAcks<T>(work: () => Promise<T>): Promise<T> {
  const acks: Array<Promise<void>> = [];
  const result = await requestAcks.run(acks, work);
  while (acks.length) await Promise.all(acks.splice(0));
  return result;
}

/** Hands a publish's acknowledgement to the request being served; false outside one. */
export function awaitWithRequest(ack: Promise<void>): boolean {
  const acks = requestAcks.getStore();
  acks?.push(ack);
  return acks !== undefined;
}
