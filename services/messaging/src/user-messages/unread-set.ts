import { isMention } from "./flags";
import { conversationOf, type UnreadBucketDoc, type UnreadPlace } from "./unread-bucket.schema";

/** Zulip's MAX_UNREAD_MESSAGES: the newest this many are kept; older ones are old_unreads_missing. */
export const MAX_UNREAD_MESSAGES = 50000;

/** An unread message, as an event describes it. */
export interface UnreadMessage extends UnreadPlace {
  id: number;
  /** the user was mentioned (personally, by a group or by a wildcard) */
  mentioned: boolean;
  /** personally or by a group (Zulip's "mentioned" flag), which counts even in a muted topic */
  direct: boolean;
}

/** One conversation's unread messages: a channel's topic, or a direct conversation. */
export interface UnreadGroup {
  place: UnreadPlace & { topicKey: string };
  /** ascending */
  ids: number[];
}

/** Inserts an id into an ascending array (new ids come last: the search starts there). */
function insertSorted(ids: number[], id: number): void {
  let i = ids.length;
  while (i > 0 && ids[i - 1]! > id) i--;
  ids.splice(i, 0, id);
}

/**
 * One user's unread messages, grouped by conversation as register's
 * unread_msgs lists them. Kept as arrays of ids per conversation, not an
 * object per message: a user with 50,000 unread costs a few arrays, and
 * building the state or unread_msgs allocates little.
 */
export class UnreadSet {
  /** every unread id, ascending */
  readonly ids: number[] = [];
  private readonly groupOf = new Map<number, UnreadGroup>();
  private readonly groups = new Map<string, UnreadGroup>();
  private readonly mentioned = new Set<number>();
  private readonly direct = new Set<number>();

  constructor(
    /** there were more than MAX_UNREAD_MESSAGES: the oldest are not here */
    readonly olderMissing = false,
  ) {}

  /** The newest MAX_UNREAD_MESSAGES of a user's buckets (which may repeat an id) and newer unread messages. */
  static fromSummary(buckets: UnreadBucketDoc[], newer: UnreadMessage[] = []): UnreadSet {
    const set = new UnreadSet();
    for (const m of newer) {
      const group = set.groupFor(m);
      set.groupOf.set(m.id, group);
      group.ids.push(m.id);
      if (m.mentioned) set.mentioned.add(m.id);
      if (m.direct) set.direct.add(m.id);
    }
    for (const b of buckets) {
      const group = set.groupFor(b);
      for (const id of b.ids) {
        if (set.groupOf.has(id)) continue;
        set.groupOf.set(id, group);
        group.ids.push(id);
      }
      for (const id of b.mentions) set.mentioned.add(id);
      for (const id of b.direct) set.direct.add(id);
    }
    for (const group of set.groups.values()) {
      group.ids.sort((x, y) => x - y);
      for (const id of group.ids) set.ids.push(id);
    }
    set.ids.sort((x, y) => x - y);
    if (set.ids.length <= MAX_UNREAD_MESSAGES) return set;
    // Zulip's MAX_UNREAD_MESSAGES: only the newest are kept, and old_unreads_missing says so
    const kept = new UnreadSet(true);
    for (const id of set.ids.slice(-MAX_UNREAD_MESSAGES)) {
      const { place } = set.groupOf.get(id)!;
      kept.add({ id, ...place, mentioned: set.mentioned.has(id), direct: set.direct.has(id) });
    }
    return kept;
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: number): boolean {
    return this.groupOf.has(id);
  }

  isDirectlyMentioned(id: number): boolean {
    return this.direct.has(id);
  }

  /** The conversations with unread messages, in the order of their oldest unread message. */
  conversations(): UnreadGroup[] {
    return [...this.groups.values()].sort((a, b) => a.ids[0]! - b.ids[0]!);
  }

  /** The unread ids of a channel, or of one of its topics (lowercased), ascending. */
  idsIn(streamId: number, topicKey: string | null): number[] {
    return [...this.groups.values()]
      .filter((g) => g.place.streamId === streamId && (topicKey === null || g.place.topicKey === topicKey))
      .flatMap((g) => g.ids)
      .sort((a, b) => a - b);
  }

  /** Ids of the unread messages that mention the user, ascending. */
  mentions(): number[] {
    return [...this.mentioned].filter((id) => this.groupOf.has(id)).sort((a, b) => a - b);
  }

  add(m: UnreadMessage): void {
    if (this.groupOf.has(m.id)) return;
    const group = this.groupFor(m);
    this.groupOf.set(m.id, group);
    insertSorted(group.ids, m.id);
    insertSorted(this.ids, m.id);
    if (m.mentioned) this.mentioned.add(m.id);
    if (m.direct) this.direct.add(m.id);
  }

  /** Drops these messages (read now). */
  remove(ids: Iterable<number>): void {
    const gone = new Set<number>();
    for (const id of ids) {
      if (!this.groupOf.delete(id)) continue;
      gone.add(id);
      this.mentioned.delete(id);
      this.direct.delete(id);
    }
    if (!gone.size) return;
    const kept = (list: number[]) => {
      let n = 0;
      for (const id of list) if (!gone.has(id)) list[n++] = id;
      list.length = n;
    };
    kept(this.ids);
    for (const group of this.groups.values()) kept(group.ids);
    this.dropEmptyGroups();
  }

  clear(): void {
    this.remove([...this.ids]);
  }

  /** These messages moved to another channel or topic: each to its new conversation. */
  move(ids: number[], to: { streamId?: number; topic?: string }): void {
    const moved = ids.flatMap((id) => {
      const group = this.groupOf.get(id);
      if (!group) return [];
      const { place } = group;
      return [
        {
          id,
          streamId: to.streamId ?? place.streamId,
          topic: to.topic ?? place.topic,
          participants: place.participants,
          mentioned: this.mentioned.has(id),
          direct: this.direct.has(id),
        },
      ];
    });
    this.remove(moved.map((m) => m.id));
    for (const m of moved) this.add(m);
  }

  /** Whether the user is mentioned in this unread message, after an edit re-rendered it. */
  setMentioned(id: number, flags: readonly string[]): void {
    if (!this.groupOf.has(id)) return;
    if (isMention(flags)) this.mentioned.add(id);
    else this.mentioned.delete(id);
    if (flags.includes("mentioned")) this.direct.add(id);
    else this.direct.delete(id);
  }

  private groupFor(place: UnreadPlace): UnreadGroup {
    const key = conversationOf(place);
    let group = this.groups.get(key);
    if (!group) {
      const { streamId, topic, participants } = place;
      group = { place: { streamId, topic, topicKey: topic.toLowerCase(), participants }, ids: [] };
      this.groups.set(key, group);
    }
    return group;
  }

  private dropEmptyGroups(): void {
    for (const [key, group] of this.groups) if (!group.ids.length) this.groups.delete(key);
  }
}
