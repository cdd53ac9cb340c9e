import {
  identityEvents,
  type EventPublisher,
  type HandlerContext,
  type RealmRef,
  type identity,
} from "@teamchat/shared";
import { settingsOf } from "../users/settings";
import type { UserDirectory } from "../users/user-directory";
import type { UserDoc } from "../users/user.schema";
import { apiEmail } from "../users/user-view";
import {
  USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS,
  legacyClientPresence,
  legacyPresence,
  modernPresence,
  presenceForSetting,
  reportPresence,
  selectPresences,
  type PresenceQuery,
  type PresenceRecord,
} from "./presence";
import type { PresenceStore } from "./presence-store";

export interface PresencesReply {
  presences: Record<string, identity.ModernPresence | identity.LegacyPresence>;
  lastUpdateId: number;
}

/** Zulip's presence actions over the shared store: reports, the presence_enabled switch, the organization's view. */
export class Presences {
  constructor(
    private readonly store: PresenceStore,
    private readonly users: UserDirectory,
    private readonly events: EventPublisher<"identity">,
  ) {}

  /**
   * Zulip's update_user_presence: a user who turned presence_enabled off
   * reports nothing; others are announced when they come (back) online.
   */
  async report(realm: RealmRef, user: UserDoc, active: boolean, ctx: HandlerContext): Promise<void> {
    if (!settingsOf(user).presence_enabled) return;
    let announce = false;
    const now = Date.now();
    const written = await this.store.update(realm.id, user.userId, (current) => {
      const report = reportPresence(current, now, active);
      announce = report.announce;
      return report.next;
    });
    if (written && announce) await this.announce(realm, user, written, false, ctx);
  }

  /** presence_enabled changed: everyone sees the user online, or from now on offline, at once. */
  async settingChanged(realm: RealmRef, user: UserDoc, enabled: boolean, ctx: HandlerContext): Promise<void> {
    const written = await this.store.replace(realm.id, user.userId, presenceForSetting(enabled, Date.now()));
    await this.announce(realm, user, written, true, ctx);
  }

  /** Zulip's send_presence_changed: to every active user, unless there are too many of them and nothing forces it. */
  private async announce(
    realm: RealmRef,
    user: UserDoc,
    record: PresenceRecord,
    force: boolean,
    ctx: HandlerContext,
  ): Promise<void> {
    const active = (await this.users.all(realm.id)).filter((u) => u.isActive).length;
    if (active > USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS && !force) return;
    const event = {
      type: "presence",
      user_id: user.userId,
      email: apiEmail(user, realm),
      server_timestamp: Date.now() / 1000,
      presence: { website: legacyClientPresence(record, user.dateJoined) },
    } as const;
    this.events.publish(identityEvents.presence, { realmId: realm.id, userIds: "all", event }, ctx.requestId);
  }

  /**
   * Zulip's get_presence_dict_by_realm: the active human users' presences,
   * keyed by user id in the modern format, else by API email in the legacy one.
   */
  async ofRealm(realm: RealmRef, query: PresenceQuery & { slim: boolean }): Promise<PresencesReply> {
    const users = (await this.users.all(realm.id)).filter((u) => u.isActive && !u.isBot);
    const reports = this.store.realm(realm.id);
    const rows = users.flatMap((user) => {
      const record = reports.get(user.userId);
      return record ? [{ ...record, user }] : [];
    });
    const { selected, lastUpdateId } = selectPresences(rows, query, Date.now());
    const presences = Object.fromEntries(
      selected.map(({ user, ...record }) =>
        query.slim
          ? [String(user.userId), modernPresence(record, user.dateJoined)]
          : [apiEmail(user, realm), legacyPresence(record, user.dateJoined)],
      ),
    );
    return { presences, lastUpdateId };
  }

  /** One user's stored presence, whatever their state (Zulip's get_presence_for_user). */
  of(realm: RealmRef, user: UserDoc): PresenceRecord | undefined {
    return this.store.get(realm.id, user.userId);
  }
}
