import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  DEFAULT_BOT_TYPE,
  EventCache,
  Role,
  identityEvents,
  isDuplicateKey,
  subscribeEvent,
  type EventPublisher,
  type EventSubscription,
  type SystemBot,
} from "@teamchat/shared";
import type { NewAvatar, NewUser, UserChanges, UserRepository } from "./user.repository";
import type { UserDoc } from "./user.schema";

/** Users kept over all organizations; the least recently used organizations are dropped beyond it. */
const MAX_CACHED_USERS = 100_000;

interface RealmUsers {
  /** in id order, as Zulip lists users; system bots are not the organization's users (Zulip keeps them in its internal realm) */
  all: UserDoc[];
  /** everyone, system bots included: they send messages and can be written to */
  byId: Map<number, UserDoc>;
  byEmail: Map<string, UserDoc>;
}

/**
 * The organization's users, read by nearly every request (the caller, the
 * user list of /register, look-ups by id and address): kept in memory per
 * organization, loaded whole on first use and forgotten by every instance on
 * `usersChanged`, which each write here publishes before its caller replies
 * (see EventCache). Writes are rare next to reads; a large organization
 * reloads all its users after each one (patching the copy from the event is
 * the next step if that shows).
 */
export class UserDirectory {
  private readonly cache: EventCache<RealmUsers>;
  private readonly sub: EventSubscription;

  constructor(
    private readonly users: UserRepository,
    private readonly events: EventPublisher<"identity">,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.cache = new EventCache(nc, { name: "users", maxWeight: MAX_CACHED_USERS, weigh: (r) => r.all.length + 1 });
    this.sub = subscribeEvent(nc, identityEvents.usersChanged, ({ realmId }) => this.cache.drop(`${realmId}`), { log });
  }

  stop(): void {
    this.sub.unsubscribe();
  }

  private realm(realmId: number): Promise<RealmUsers> {
    return this.cache.get(`${realmId}`, async () => {
      const everyone = await this.users.all(realmId);
      return {
        all: everyone.filter((u) => !u.isSystemBot),
        byId: new Map(everyone.map((u) => [u.userId, u])),
        byEmail: new Map(everyone.map((u) => [u.deliveryEmail, u])),
      };
    });
  }

  async byId(realmId: number, userId: number): Promise<UserDoc | null> {
    return (await this.realm(realmId)).byId.get(userId) ?? null;
  }

  async byEmail(realmId: number, email: string): Promise<UserDoc | null> {
    return (await this.realm(realmId)).byEmail.get(email.toLowerCase()) ?? null;
  }

  /** The users among `userIds`, in id order. */
  async byIds(realmId: number, userIds: number[]): Promise<UserDoc[]> {
    const { byId } = await this.realm(realmId);
    return [...new Set(userIds)]
      .flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []))
      .sort((a, b) => a.userId - b.userId);
  }

  /** The users with these addresses, in id order. */
  async byEmails(realmId: number, emails: string[]): Promise<UserDoc[]> {
    const { byEmail } = await this.realm(realmId);
    const found = new Set(emails.flatMap((e) => byEmail.get(e.toLowerCase()) ?? []));
    return [...found].sort((a, b) => a.userId - b.userId);
  }

  /** Every user of the organization, in id order, system bots left out. */
  async all(realmId: number): Promise<UserDoc[]> {
    return (await this.realm(realmId)).all;
  }

  /** Active human owners: the last one may not lose the role (Zulip's check_last_owner). */
  async activeOwnerCount(realmId: number): Promise<number> {
    return (await this.all(realmId)).filter((u) => u.role === Role.OWNER && u.isActive && !u.isBot).length;
  }

  /** Applies the changes and returns the user as it is after them, or null when there is no such user. */
  async change(realmId: number, userId: number, changes: UserChanges): Promise<UserDoc | null> {
    const changed = await this.users.change(realmId, userId, changes);
    this.changed(realmId);
    return changed;
  }

  /** A new avatar (UserRepository.changeAvatar): the user before and after it, or null when there is no such user. */
  async changeAvatar(
    realmId: number,
    userId: number,
    avatar: NewAvatar,
  ): Promise<{ before: UserDoc; after: UserDoc } | null> {
    const before = await this.users.changeAvatar(realmId, userId, avatar);
    this.changed(realmId);
    if (!before) return null;
    const { avatarPath: _, ...rest } = before;
    const after: UserDoc = {
      ...rest,
      avatarSource: avatar.source,
      ...(avatar.source === "U" && { avatarPath: avatar.path }),
      avatarVersion: before.avatarVersion + 1,
    };
    return { before, after };
  }

  /**
   * One of the organization's system bots (Notification Bot, Welcome Bot),
   * made on first use (organizations made before it existed) and with the
   * organization (create_owner). Concurrent first uses make one: the address
   * is unique, so the loser reads the winner's.
   */
  async systemBot(realmId: number, bot: SystemBot): Promise<UserDoc> {
    const existing = await this.byEmail(realmId, bot.email);
    if (existing?.isSystemBot) return existing;
    try {
      return await this.insert({
        realmId,
        deliveryEmail: bot.email,
        fullName: bot.fullName,
        role: Role.MEMBER,
        isBot: true,
        isSystemBot: true,
        botType: DEFAULT_BOT_TYPE,
        botOwnerId: null,
        dateJoined: new Date(),
        timezone: "",
        // no password and no API key: nobody logs in as it
        passwordHash: null,
        canCreateUsers: false,
        canChangeUserEmails: false,
      });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      this.cache.drop(`${realmId}`);
      return (await this.byEmail(realmId, bot.email))!;
    }
  }

  /** Inserts with a fresh id; a duplicate address fails with the unique index's error. */
  async insert(user: NewUser): Promise<UserDoc> {
    const created = await this.users.insert(user);
    this.changed(user.realmId);
    return created;
  }

  private changed(realmId: number): void {
    this.cache.drop(`${realmId}`);
    this.events.publish(identityEvents.usersChanged, { realmId });
  }
}
