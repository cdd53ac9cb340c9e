/**
 * One user's read state in one channel, as `.newsrc` keeps a newsgroup's:
 * a watermark and the exceptions to it, not a row per message. A channel
 * message counts as unread by default when the user received it (their
 * subscription covered it), did not send it, and it is above the watermark;
 * an exception flips that default. Zulip's exact per-message read flag is
 * kept (any message can be marked read or unread), and reading everything
 * collapses the record back to a bare watermark (canonical()).
 */
export interface ChannelReadState {
  /** received messages up to it are read, but for exceptions */
  watermark: number;
  /** ascending ids whose state is the opposite of the default */
  exceptions: number[];
  /**
   * The user's subscriptions to the channel as flat pairs `[after, until, ...]`:
   * a message with `after < id <= until` was received; an open subscription's
   * `until` is OPEN.
   */
  intervals: number[];
}

/** The `until` of a subscription still open. */
export const OPEN = Number.MAX_SAFE_INTEGER;

/** A channel message as read state needs it. */
export interface ChannelMessageRef {
  id: number;
  senderId: number;
}

export const emptyReadState = (): ChannelReadState => ({ watermark: 0, exceptions: [], intervals: [] });

/** A stored state as the rules want it: exceptions a send added ($addToSet) come last, and are put in order. */
export const storedState = (doc: ChannelReadState): ChannelReadState => ({
  watermark: doc.watermark,
  exceptions: [...doc.exceptions].sort((a, b) => a - b),
  intervals: doc.intervals,
});

/** Index of `id` in an ascending list, or -1. */
export function indexOf(sorted: readonly number[], id: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return sorted[lo] === id ? lo : -1;
}

/** Whether `id` falls in one of these subscription intervals (ChannelReadState.intervals). */
export function inIntervals(intervals: readonly number[] | undefined, id: number): boolean {
  if (!intervals) return false;
  for (let i = 0; i < intervals.length; i += 2) if (intervals[i]! < id && id <= intervals[i + 1]!) return true;
  return false;
}

/** Whether the user's subscriptions covered message `id` when it was sent. */
export const received = (state: ChannelReadState, id: number): boolean => inIntervals(state.intervals, id);

export const subscribedNow = (state: ChannelReadState): boolean => state.intervals[state.intervals.length - 1] === OPEN;

/** What the message counts as without an exception: unread when received, not the user's own, above the watermark. */
const unreadByDefault = (state: ChannelReadState, m: ChannelMessageRef, userId: number): boolean =>
  m.id > state.watermark && m.senderId !== userId && received(state, m.id);

export const isUnread = (state: ChannelReadState, m: ChannelMessageRef, userId: number): boolean =>
  unreadByDefault(state, m, userId) !== indexOf(state.exceptions, m.id) >= 0;

/**
 * The state with these messages read or unread, in canonical form. `above`
 * is the channel's messages above the watermark, ascending (ChannelMessageCache):
 * the watermark moves up over every message that is read, so that reading
 * what arrived leaves no exception behind.
 */
export function withStates(
  state: ChannelReadState,
  userId: number,
  changes: ReadonlyArray<{ message: ChannelMessageRef; unread: boolean }>,
  above: readonly ChannelMessageRef[],
): ChannelReadState {
  const exceptions = new Set(state.exceptions);
  for (const { message, unread } of changes) {
    const flip = unreadByDefault(state, message, userId) !== unread;
    if (flip) exceptions.add(message.id);
    else exceptions.delete(message.id);
  }
  return canonical({ ...state, exceptions: [...exceptions].sort((a, b) => a - b) }, userId, above);
}

/**
 * Moves the watermark up to where the state needs the fewest exceptions
 * (`above`: the channel's messages above the watermark, ascending). Above the
 * watermark a read message is an exception, below it an unread one, so it
 * goes as far as the messages it passes are more read than unread: reading
 * everything collapses the state to a bare watermark, and one message left
 * unread in a busy channel stays one exception below it, not every message
 * read since (which made each later change cost more, without bound). A
 * message that is read by default on both sides (the user's own, or sent
 * outside their subscriptions) counts for neither.
 */
export function canonical(
  state: ChannelReadState,
  userId: number,
  above: readonly ChannelMessageRef[],
): ChannelReadState {
  const exceptions = new Set(state.exceptions);
  // the watermark's gain in exceptions saved at each message, and where it is highest (the first such)
  let gain = 0;
  let best = 0;
  let bestAt = -1;
  for (let i = 0; i < above.length; i++) {
    const m = above[i]!;
    if (!unreadByDefault(state, m, userId)) continue;
    gain += exceptions.has(m.id) ? 1 : -1;
    if (gain > best) [best, bestAt] = [gain, i];
  }
  if (bestAt < 0) return { ...state, exceptions: [...exceptions].sort((a, b) => a - b) };
  for (let i = 0; i <= bestAt; i++) {
    const m = above[i]!;
    if (!unreadByDefault(state, m, userId)) continue;
    // read above the old watermark was an exception and is now the default; unread becomes one
    if (exceptions.has(m.id)) exceptions.delete(m.id);
    else exceptions.add(m.id);
  }
  return { ...state, watermark: above[bestAt]!.id, exceptions: [...exceptions].sort((a, b) => a - b) };
}

/**
 * Calls `unread(i)` for each unread message among a channel's messages
 * (`ids` ascending, `senders` beside them) above the watermark: the rule of
 * isUnread in one pass, as register works it out for every channel.
 */
export function forEachUnreadAbove(
  state: ChannelReadState,
  userId: number,
  ids: readonly number[],
  senders: readonly number[],
  unread: (i: number) => void,
): void {
  const { watermark, exceptions, intervals } = state;
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! <= watermark) lo = mid + 1;
    else hi = mid;
  }
  const single = intervals.length === 2;
  for (let i = lo; i < ids.length; i++) {
    const id = ids[i]!;
    const inSubscription = single ? intervals[0]! < id && id <= intervals[1]! : received(state, id);
    const byDefault = inSubscription && senders[i] !== userId;
    if (byDefault !== (exceptions.length > 0 && indexOf(exceptions, id) >= 0)) unread(i);
  }
}

/**
 * The state with a subscription opened after message `after` (a no-op while
 * one is open); a first subscription starts its watermark there, as nothing
 * before it was received.
 */
export function opened(state: ChannelReadState, after: number): ChannelReadState {
  if (subscribedNow(state)) return state;
  const first = state.intervals.length === 0 && state.exceptions.length === 0;
  return {
    ...state,
    watermark: first ? Math.max(state.watermark, after) : state.watermark,
    intervals: [...state.intervals, after, OPEN],
  };
}

/** The state with its open subscription closed at message `until`. */
export function closed(state: ChannelReadState, until: number): ChannelReadState {
  if (!subscribedNow(state)) return state;
  return { ...state, intervals: [...state.intervals.slice(0, -1), until] };
}

/**
 * The state with every message up to `newest` read: a bare watermark
 * (exceptions above it stay). Those below the watermark already go too,
 * whatever `newest`: each marks an unread message (one moved in from another
 * channel, older than the channel's messages above the watermark).
 */
export function allRead(state: ChannelReadState, newest: number): ChannelReadState {
  const watermark = Math.max(state.watermark, newest);
  return { ...state, watermark, exceptions: state.exceptions.filter((id) => id > watermark) };
}
