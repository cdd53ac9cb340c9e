import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  identity,
  identityEvents,
  subscribeEvent,
  type BusClient,
  type CallContext,
  type EventSubscription,
  type SystemBot,
  mentionTargets,
  type MentionTargets,
} from "@teamchat/shared";

export type UserSummary = identity.UserSummary;

interface RealmEntry {
  expires: number;
  byId: Map<number, UserSummary>;
  /** whether byId holds every user of the organization */
  complete: boolean;
  /** the users as mention targets, made once per entry: every send renders with them */
  mentionTargets?: MentionTargets;
}

/**
 * Names and emails of senders and recipients, asked of identity and kept briefly
 * per organization. identity's realm_user and user_settings events drop an
 * organization's entry, so a renamed user shows the new name everywhere at once.
 */
export class UserDirectory {
  private readonly realms = new Map<number, RealmEntry>();
  /** each organization's system bots' ids (by organization and address), which never change */
  private readonly systemBots = new Map<string, Promise<number>>();
  private readonly subs: EventSubscription[];

  constructor(
    private readonly bus: BusClient,
    nc: NatsConnection,
    log: Logger,
    private readonly ttlMs = 30_000,
  ) {
    // Every instance keeps its own cache, so no queue group: each must hear every change
    // (user settings too: summaries carry send_read_receipts and receives_typing_notifications).
    const forget = ({ realmId }: { realmId: number }) => this.realms.delete(realmId);
    this.subs = [
      subscribeEvent(nc, identityEvents.realmUser, forget, { log }),
      subscribeEvent(nc, identityEvents.userSettings, forget, { log }),
    ];
  }

  stop(): void {
    for (const sub of this.subs) sub.unsubscribe();
  }

  private entry(realmId: number): RealmEntry {
    let e = this.realms.get(realmId);
    if (!e || e.expires < Date.now()) {
      e = { expires: Date.now() + this.ttlMs, byId: new Map(), complete: false };
      this.realms.set(realmId, e);
    }
    return e;
  }

  private remember(e: RealmEntry, users: UserSummary[]): void {
    for (const u of users) e.byId.set(u.user_id, u);
    if (users.length) e.mentionTargets = undefined;
  }

  /** The users among `ids` that exist (unknown ids are left out). */
  async byIds(ctx: CallContext, realmId: number, ids: number[]): Promise<Map<number, UserSummary>> {
    const e = this.entry(realmId);
    const missing = [...new Set(ids)].filter((id) => !e.byId.has(id));
    if (missing.length) {
      this.remember(e, (await this.bus.request(identity.getUserSummaries, { user_ids: missing }, ctx)).users);
    }
    return new Map(ids.flatMap((id) => (e.byId.has(id) ? [[id, e.byId.get(id)!] as const] : [])));
  }

  /** Users by API or real address (case-insensitive); unknown addresses are left out. */
  async byEmails(ctx: CallContext, realmId: number, emails: string[]): Promise<Map<string, UserSummary>> {
    const e = this.entry(realmId);
    const { users } = await this.bus.request(identity.getUserSummaries, { emails }, ctx);
    this.remember(e, users);
    const found = new Map<string, UserSummary>();
    for (const email of emails) {
      const key = email.toLowerCase();
      const u = users.find((x) => x.email.toLowerCase() === key || x.delivery_email.toLowerCase() === key);
      if (u) found.set(email, u);
    }
    return found;
  }

  /** One of the organization's system bots, which messaging posts notices as (identity makes it on first use). */
  async systemBot(ctx: CallContext, realmId: number, bot: SystemBot): Promise<UserSummary> {
    const key = `${realmId}:${bot.email}`;
    let id = this.systemBots.get(key);
    if (!id) {
      id = this.bus.request(identity.getSystemBot, { email: bot.email }, ctx).then((r) => r.user_id);
      id.catch(() => this.systemBots.delete(key));
      this.systemBots.set(key, id);
    }
    const botId = await id;
    return (await this.byIds(ctx, realmId, [botId])).get(botId)!;
  }

  /** Every user of the organization (system bots left out, as identity lists them). */
  async all(ctx: CallContext, realmId: number): Promise<UserSummary[]> {
    const e = this.entry(realmId);
    if (!e.complete) {
      this.remember(e, (await this.bus.request(identity.getUserSummaries, {}, ctx)).users);
      e.complete = true;
    }
    // byId may also hold system bots looked up by id (message senders)
    return [...e.byId.values()].filter((u) => !u.is_system_bot);
  }

  /** Who a message may mention: the organization's users by id and full name. */
  async mentionTargets(ctx: CallContext, realmId: number): Promise<MentionTargets> {
    const users = await this.all(ctx, realmId);
    const e = this.entry(realmId);
    e.mentionTargets ??= mentionTargets(users);
    return e.mentionTargets;
  }
}
