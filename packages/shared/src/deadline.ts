import { AsyncLocalStorage } from "node:async_hooks";
import { ZulipError } from "./errors";

interface RequestBudget {
  /** epoch ms when the caller stops waiting */
  deadline: number;
  /** once a request has written, it finishes: stopping it halfway would leave its writes incomplete */
  wrote: boolean;
}

/** The budget of the bus request being served, for every async step of its handler. */
const current = new AsyncLocalStorage<RequestBudget>();

/** Runs a request's handler under its caller's deadline (none: no limit). */
export const withDeadline = <T>(deadline: number | undefined, work: () => Promise<T>): Promise<T> =>
  deadline ? current.run({ deadline, wrote: false }, work) : work();

/**
 * Before a read: throws when the caller of the request being served has
 * already given up (its bus timeout passed) and the request has written
 * nothing, so an abandoned read costs the database at most the query it was
 * running and an overload's backlog ends with the load.
 */
export function ensureCallerWaiting(): void {
  const budget = current.getStore();
  if (budget && !budget.wrote && Date.now() >= budget.deadline) {
    throw new ZulipError("GATEWAY_TIMEOUT", "The request was abandoned by its caller", 504);
  }
}

/** How long the caller of the request being served still waits, in ms (Infinity outside a request with a deadline). */
export function remainingMs(): number {
  const budget = current.getStore();
  return budget ? budget.deadline - Date.now() : Infinity;
}

/** Before a write: from here on the request runs to its end, whatever its caller does. */
export function noteWrite(): void {
  const budget = current.getStore();
  if (budget) budget.wrote = true;
}
