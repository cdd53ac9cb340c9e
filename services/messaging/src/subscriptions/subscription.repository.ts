import type { Connection } from "mongoose";
import { TenantRepository, isDuplicateKey } from "@teamchat/shared";
import { subscriptionSchema, type SubscriptionDoc, type SubscriptionSettings } from "./subscription.schema";

/** Zulip's stream color palette (web/src/stream_color.ts); new subscriptions take the next unused one. */
export const STREAM_COLORS = [
  "#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55", "#b0a5fd", "#addfe5", "#f5ce6e",
  "#c2726a", "#94c849", "#bd86e5", "#ee7e4a", "#a6dcbf", "#95a5fd", "#53a063", "#9987e1", "#e4523d",
  "#c2c2c2", "#4f8de4", "#c6a8ad", "#e7cc4d", "#c8bebf", "#a47462",
]; // prettier-ignore

export class SubscriptionRepository extends TenantRepository<SubscriptionDoc> {
  constructor(conn: Connection) {
    super(conn.model<SubscriptionDoc>("Subscription", subscriptionSchema));
  }

  /** The user's subscription rows, former ones (inactive) included. */
  ofUser(realmId: number, userId: number): Promise<SubscriptionDoc[]> {
    return this.findOfUser(realmId, "userId", userId);
  }

  /** Every active subscription of every organization: the one-time backfill of other services' copies. */
  activeInEveryRealm(): Promise<SubscriptionDoc[]> {
    return this.findInEveryRealm({ active: true });
  }

  async subscriberIds(realmId: number, streamId: number): Promise<number[]> {
    return (await this.find(realmId, { streamId, active: true })).map((s) => s.userId).sort((a, b) => a - b);
  }

  /**
   * The channel's subscribers whose subscription turns its email or push
   * notifications on, whatever their own defaults: one read per setting, as
   * SecantusDB serves no index under `$or` (docs/adr/0010-query-shapes.md);
   * each returns the few rows it matches.
   */
  async notifiedOfEveryMessage(realmId: number, streamId: number): Promise<number[]> {
    const [email, push] = await Promise.all([
      this.find(realmId, { streamId, active: true, emailNotifications: true }, { projection: { userId: 1 } }),
      this.find(realmId, { streamId, active: true, pushNotifications: true }, { projection: { userId: 1 } }),
    ]);
    return [...new Set([...email, ...push].map((s) => s.userId))];
  }

  /** Active subscriber ids per channel, for several channels at once. */
  async subscribersByChannel(realmId: number, streamIds: number[]): Promise<Map<number, number[]>> {
    const rows = await this.find(realmId, { streamId: { $in: streamIds }, active: true });
    const map = new Map<number, number[]>(streamIds.map((id) => [id, []]));
    for (const r of rows) map.get(r.streamId)!.push(r.userId);
    for (const ids of map.values()) ids.sort((a, b) => a - b);
    return map;
  }

  /**
   * Subscribes each user to each channel; returns the pairs that were new. A
   * new row takes the pair's color, else the next palette color the user does
   * not use; a former subscription comes back with its settings (as Zulip's).
   * Retries are safe: the unique index turns a repeated insert into "already
   * subscribed", and a row is reactivated only while inactive.
   */
  async add(realmId: number, pairs: SubscriptionPair[]): Promise<SubscriptionDoc[]> {
    const added: SubscriptionDoc[] = [];
    const userIds = [...new Set(pairs.map((p) => p.userId))];
    const existing = await this.find(realmId, { userId: { $in: userIds } });
    for (const { userId, streamId, color } of pairs) {
      const mine = existing.filter((s) => s.userId === userId);
      const row = mine.find((s) => s.streamId === streamId);
      if (row?.active) continue;
      if (row) {
        const reactivated = await this.findOneAndUpdate(
          realmId,
          { userId, streamId, active: false },
          { $set: { active: true } },
        );
        if (reactivated) added.push(reactivated);
        continue;
      }
      const used = new Set(mine.map((s) => s.color));
      const doc: SubscriptionDoc = {
        realmId,
        userId,
        streamId,
        active: true,
        color: color ?? STREAM_COLORS.find((c) => !used.has(c)) ?? STREAM_COLORS[mine.length % STREAM_COLORS.length]!,
        isMuted: false,
        pinToTop: false,
        desktopNotifications: null,
        audibleNotifications: null,
        pushNotifications: null,
        emailNotifications: null,
        wildcardMentionsNotify: null,
      };
      try {
        await this.insertOne(doc);
      } catch (err) {
        if (isDuplicateKey(err)) continue;
        throw err;
      }
      added.push(doc);
      existing.push(doc);
    }
    return added;
  }

  /**
   * Unsubscribes each user from each channel (the row stays, inactive: Zulip's
   * "unsubscribed"); returns the rows that were active, each deactivated by one
   * conditional update, so concurrent requests cannot both remove one.
   */
  async remove(realmId: number, pairs: Array<{ userId: number; streamId: number }>): Promise<SubscriptionDoc[]> {
    const removed = await Promise.all(
      pairs.map(({ userId, streamId }) =>
        this.findOneAndUpdate(realmId, { userId, streamId, active: true }, { $set: { active: false } }),
      ),
    );
    return removed.filter((row) => row !== null);
  }

  /** Changes personal settings of the user's subscription. */
  async setSettings(
    realmId: number,
    userId: number,
    streamId: number,
    settings: Partial<SubscriptionSettings>,
  ): Promise<void> {
    await this.updateOne(realmId, { userId, streamId }, { $set: settings });
  }
}

/** A user to subscribe to a channel, with the color asked for it. */
export interface SubscriptionPair {
  userId: number;
  streamId: number;
  color?: string;
}
