import type { Logger } from "pino";
import type { z } from "zod";
import {
  identityEvents,
  type EventPublisher,
  ZULIP_FEATURE_LEVEL,
  ZULIP_VERSION,
  type RealmRef,
  type identity,
  notifications,
  type realmConfig,
  type ReplyOf,
} from "@teamchat/shared";
import type { PushDeviceRepository } from "../push-devices/push-device.repository";
import type { PushDeviceDoc } from "../push-devices/push-device.schema";
import type { PushDeviceTokenRepository } from "../push-devices/push-device-token.repository";
import type { PushDeviceTokenDoc } from "../push-devices/push-device-token.schema";
import type { UserDirectory } from "../users/user-directory";
import { avatarUrl } from "../users/user-view";
import { BouncerClientError, type PushBouncer } from "./bouncer";
import { e2eePushRequests, type ActivePushDevice, type E2eeKind } from "./e2ee";
import {
  apnsMessagePayload,
  apnsRemovePayload,
  basePayload,
  e2eeMessagePayload,
  e2eeRemovePayload,
  e2eeTestPayload,
  gcmMessagePayload,
  gcmRemovePayload,
  removedMessageIds,
  type NotifiedMessage,
  type Payload,
  type Recipient,
} from "./payloads";
import type { SentPushRepository } from "./sent-push.repository";
import type { PushChannel, SentPushDoc } from "./sent-push.schema";

type TokenKind = (typeof identity.PUSH_TOKEN_KINDS)[number];
type PushDeviceEvent = z.input<typeof identityEvents.pushDevice.payload>["event"];

/** Zulip's PushDeviceToken.APNS and FCM: the token kinds as the bouncer's legacy endpoints number them. */
const BOUNCER_TOKEN_KIND: Record<TokenKind, number> = { apns: 1, fcm: 2 };

export interface PushNotifierDeps {
  bouncer: PushBouncer;
  pushDevices: PushDeviceRepository;
  pushTokens: PushDeviceTokenRepository;
  sent: SentPushRepository;
  users: UserDirectory;
  events: EventPublisher<"identity">;
  /** how long a try holds the sending of a notification: its work item's ack wait, after which another try may take it */
  claimLeaseMs: number;
  /** the organization of a realm id (realm-config's) */
  realmOf: (realmId: number) => Promise<RealmRef>;
  /** every organization (realm-config's) */
  listRealms: () => Promise<ReplyOf<typeof realmConfig.listRealms>>;
  log: Logger;
}

/**
 * Sends what Zulip's server sends its push notification service
 * (zerver/lib/push_notifications.py, zerver/lib/push_registration.py): each
 * notification both ways, as Zulip does not know which app a device runs — the
 * legacy payloads for the user's APNs / FCM tokens (POST remotes/push/notify)
 * and the data sealed for each E2EE device (POST remotes/push/e2ee/notify);
 * removals; test notifications; and the registrations the bouncer has to know.
 * Bouncer failures are thrown for the caller to retry (BouncerRetryLaterError).
 */
export class PushNotifier {
  constructor(private readonly deps: PushNotifierDeps) {}

  /** The realm's and user's uuids at the bouncer (Zulip's realm.uuid, user_profile.uuid) and the user's id. */
  private identities(realmId: number, userId: number) {
    const { bouncer } = this.deps;
    return { realm_uuid: bouncer.realmUuid(realmId), user_uuid: bouncer.userUuid(realmId, userId), user_id: userId };
  }

  /**
   * Zulip's send_server_data_to_push_bouncer without usage statistics: the
   * organizations the bouncer has to know before it takes E2EE registrations
   * and notifications for them (POST remotes/server/analytics).
   */
  async uploadRealms(): Promise<void> {
    const { bouncer } = this.deps;
    const { realms } = await this.deps.listRealms();
    await bouncer.postForm("server/analytics", {
      realm_counts: "[]",
      installation_counts: "[]",
      realmauditlog_rows: "[]",
      realms: JSON.stringify(
        realms.map(({ realm, date_created, org_type }) => ({
          id: realm.id,
          host: realm.host,
          url: realm.uri,
          name: realm.name,
          org_type,
          date_created,
          deactivated: false,
          is_system_bot_realm: false,
          authentication_methods: { Email: true },
          uuid: bouncer.realmUuid(realm.id),
          uuid_owner_secret: bouncer.realmOwnerSecret(realm.id),
        })),
      ),
      version: JSON.stringify(ZULIP_VERSION),
      merge_base: JSON.stringify(""),
      api_feature_level: JSON.stringify(ZULIP_FEATURE_LEVEL),
    });
  }

  /**
   * A message's notices, each user's independently of the others'; the item
   * fails (to be tried again, skipping what went) when any of them did.
   */
  async notifyAll(item: notifications.MissedMessageNotices): Promise<void> {
    const failed = (await Promise.allSettled(notifications.noticesOf(item).map((n) => this.notify(n)))).find(
      (r) => r.status === "rejected",
    );
    if (failed) throw failed.reason;
  }

  /**
   * Zulip's handle_push_notification, once per way: each way is claimed
   * first, so a redelivered notice (or a copy handled at the same time) sends
   * only what has not gone.
   */
  async notify(notice: notifications.MissedMessageNotice): Promise<void> {
    const { realmId, userId } = notice;
    const to: Recipient = { realm: await this.deps.realmOf(realmId), userId };
    const notified = await this.describe(realmId, notice);
    await this.once(notice, "legacy", () =>
      this.sendLegacy(to, (apple, android) => ({
        apns: apple ? apnsMessagePayload(to, notified) : {},
        gcm: android ? gcmMessagePayload(to, notified) : { data: {}, options: {} },
      })),
    );
    await this.once(
      notice,
      "e2ee",
      async () =>
        (await this.sendE2ee(
          to,
          await this.deps.pushDevices.active(realmId, userId),
          e2eeMessagePayload(to, notified),
          "message",
        )) > 0,
    );
  }

  /** Sends one way unless it went; recorded as sent when `send` reached a device. */
  private async once(
    notice: notifications.MissedMessageNotice,
    channel: PushChannel,
    send: () => Promise<boolean>,
  ): Promise<void> {
    const { realmId, userId, message } = notice;
    const claim = await this.deps.sent.claim(realmId, userId, message.id, channel, this.deps.claimLeaseMs);
    if (claim === "sent") return;
    // a try still under way (or one that died, until its lease ends) may yet fail: this item waits for it
    if (claim === "held")
      throw new Error(`the ${channel} notification of message ${message.id} is being sent by another try`);
    let sent: boolean;
    try {
      sent = await send();
    } catch (err) {
      await this.deps.sent.release(realmId, userId, message.id, channel);
      throw err;
    }
    if (sent) await this.deps.sent.markSent(realmId, userId, message.id, channel);
    else await this.deps.sent.release(realmId, userId, message.id, channel);
  }

  /**
   * Zulip's handle_remove_push_notification: withdraws the notifications of
   * these messages that were sent (the newest 200), each way it went or is
   * going: Zulip sets active_mobile_push_notification before it sends, so a
   * removal that comes meanwhile withdraws the notification on its way.
   */
  async remove(notice: notifications.PushRemovalNotice): Promise<void> {
    const { realmId, userId } = notice;
    const shown = await this.deps.sent.shown(realmId, userId, notice.messageIds);
    if (shown.length === 0) return;
    const to: Recipient = { realm: await this.deps.realmOf(realmId), userId };
    const now = Date.now();
    const went = (s: SentPushDoc, channel: PushChannel) =>
      s.sent.includes(channel) || (s.claims[channel]?.getTime() ?? 0) > now;
    const pending = (channel: PushChannel) =>
      removedMessageIds(shown.filter((s) => went(s, channel) && !s.removed.includes(channel)).map((s) => s.messageId));
    const legacy = pending("legacy");
    if (legacy.length > 0) {
      await this.sendLegacy(to, (apple, android) => ({
        apns: apple ? apnsRemovePayload(to, legacy) : {},
        gcm: android ? gcmRemovePayload(to, legacy) : { data: {}, options: {} },
      }));
      await this.deps.sent.markRemoved(realmId, userId, legacy, "legacy");
    }
    const e2ee = pending("e2ee");
    if (e2ee.length > 0) {
      await this.sendE2ee(
        to,
        await this.deps.pushDevices.active(realmId, userId),
        e2eeRemovePayload(to, e2ee),
        "remove",
      );
      await this.deps.sent.markRemoved(realmId, userId, e2ee, "e2ee");
    }
    // the older ones beyond the 200 too: Zulip assumes the user cleared those on the device
    await this.deps.sent.forget(realmId, userId, notice.messageIds);
  }

  /** What the payloads say beyond the snapshot: the sender's avatar, the group mentioned, the participants' names. */
  private async describe(realmId: number, notice: notifications.MissedMessageNotice): Promise<NotifiedMessage> {
    const { message } = notice;
    const [sender, participants] = await Promise.all([
      this.deps.users.byId(realmId, message.senderId),
      message.directRecipientIds ? this.deps.users.byIds(realmId, message.directRecipientIds) : [],
    ]);
    const group = notice.mentionedUserGroup;
    return {
      message,
      trigger: notice.trigger,
      senderAvatarUrl: sender ? avatarUrl(sender) : "",
      mentionedUserGroup: group && { id: group.id, name: group.name },
      participantNames: participants.map((p) => p.fullName),
    };
  }

  /**
   * Zulip's send_notifications_to_bouncer, to the user's legacy tokens (none:
   * nothing sent, false); tokens the bouncer reports deleted are dropped here too.
   */
  private async sendLegacy(
    to: Recipient,
    payloads: (apple: boolean, android: boolean) => { apns: Payload; gcm: { data: Payload; options: Payload } },
  ): Promise<boolean> {
    const tokens = await this.deps.pushTokens.ofUser(to.realm.id, to.userId);
    if (tokens.length === 0) return false;
    const of = (kind: TokenKind) => tokens.filter((t) => t.kind === kind).map((t) => t.token);
    const apple = of("apns");
    const android = of("fcm");
    const { apns, gcm } = payloads(apple.length > 0, android.length > 0);
    const reply = await this.deps.bouncer.postJson("push/notify", {
      ...this.identities(to.realm.id, to.userId),
      apns_payload: apns,
      gcm_payload: gcm.data,
      gcm_options: gcm.options,
      android_devices: android,
      apple_devices: apple,
    });
    const deleted = reply.deleted_devices as { android_devices?: string[]; apple_devices?: string[] } | undefined;
    await Promise.all([
      this.deps.pushTokens.forget(to.realm.id, to.userId, "fcm", deleted?.android_devices ?? []),
      this.deps.pushTokens.forget(to.realm.id, to.userId, "apns", deleted?.apple_devices ?? []),
    ]);
    return true;
  }

  /**
   * Zulip's send_push_notifications: the data sealed for each device the
   * bouncer knows (none: nothing sent, false); devices the bouncer no longer
   * has are dropped. Returns how many it did not report gone.
   */
  private async sendE2ee(to: Recipient, devices: PushDeviceDoc[], data: Payload, kind: E2eeKind): Promise<number> {
    const active = devices.filter((d): d is ActivePushDevice => d.bouncerDeviceId !== null);
    if (active.length === 0) return 0;
    const reply = await this.deps.bouncer.postJson("push/e2ee/notify", {
      realm_uuid: this.identities(to.realm.id, to.userId).realm_uuid,
      push_requests: await e2eePushRequests(active, data, kind),
    });
    const gone = Array.isArray(reply.delete_device_ids) ? (reply.delete_device_ids as number[]) : [];
    await this.deps.pushDevices.forget(to.realm.id, to.userId, gone);
    // Zulip deletes them with no event; every instance's copy for register must still go
    if (gone.length > 0) {
      this.deps.events.publish(identityEvents.pushDevicesChanged, { realmId: to.realm.id, userIds: [to.userId] });
    }
    return active.length - gone.length;
  }

  /** Zulip's send_test_push_notification through the bouncer: one request per legacy token. */
  async testLegacy(realm: RealmRef, userId: number, tokens: PushDeviceTokenDoc[]): Promise<void> {
    const to = { realm, userId };
    for (const device of tokens) {
      await this.deps.bouncer.postJson("push/test_notification", {
        ...this.identities(realm.id, userId),
        token: device.token,
        token_kind: BOUNCER_TOKEN_KIND[device.kind],
        base_payload: basePayload(to, true),
      });
    }
  }

  /** Zulip's send_e2ee_test_push_notification: false when the bouncer had none of the devices any more. */
  async testE2ee(realm: RealmRef, userId: number, devices: PushDeviceDoc[]): Promise<boolean> {
    const to = { realm, userId };
    return (await this.sendE2ee(to, devices, e2eeTestPayload(to, new Date()), "test")) > 0;
  }

  /** Zulip's add_push_device_token with a bouncer: the token registered there (POST remotes/push/register). */
  async registerToken(
    realmId: number,
    userId: number,
    kind: TokenKind,
    token: string,
    iosAppId: string | null,
  ): Promise<void> {
    await this.deps.bouncer.postForm("push/register", {
      server_uuid: this.deps.bouncer.serverUuid,
      ...this.identities(realmId, userId),
      token,
      token_kind: BOUNCER_TOKEN_KIND[kind],
      ...(kind === "apns" && iosAppId !== null ? { ios_app_id: iosAppId } : {}),
    });
  }

  /** Zulip's remove_push_device_token with a bouncer (POST remotes/push/unregister). */
  async unregisterToken(realmId: number, userId: number, kind: TokenKind, token: string): Promise<void> {
    await this.deps.bouncer.postForm("push/unregister", {
      server_uuid: this.deps.bouncer.serverUuid,
      ...this.identities(realmId, userId),
      token,
      token_kind: BOUNCER_TOKEN_KIND[kind],
    });
  }

  /**
   * Zulip's handle_register_push_device_to_bouncer: the E2EE registration
   * forwarded (POST remotes/push/e2ee/register); accepted, the device is
   * active; refused for good (a bad key, an expired request), it is failed
   * with the bouncer's error code. Network and server failures are thrown, to
   * be retried.
   */
  async register(notice: notifications.PushRegistrationNotice): Promise<void> {
    const { realmId, userId, pushAccountId, encryptedPushRegistration } = notice;
    const forwarded = { pushAccountId, encryptedPushRegistration };
    try {
      const reply = await this.deps.bouncer.postForm("push/e2ee/register", {
        realm_uuid: this.identities(realmId, userId).realm_uuid,
        push_account_id: pushAccountId,
        encrypted_push_registration: encryptedPushRegistration,
        bouncer_public_key: notice.bouncerPublicKey,
      });
      if (typeof reply.device_id !== "number") throw new Error("the bouncer answered no device_id");
      if (await this.deps.pushDevices.activate(realmId, userId, forwarded, reply.device_id)) {
        this.announce(realmId, userId, { type: "push_device", push_account_id: `${pushAccountId}`, status: "active" });
      }
    } catch (err) {
      if (!(err instanceof BouncerClientError)) throw err;
      this.deps.log.warn(
        { userId, pushAccountId, code: err.bouncerCode },
        "push device registration refused by the bouncer",
      );
      const errorCode = err.bouncerCode ?? "BAD_REQUEST";
      if (await this.deps.pushDevices.fail(realmId, userId, forwarded, errorCode)) {
        this.announce(realmId, userId, {
          type: "push_device",
          push_account_id: `${pushAccountId}`,
          status: "failed",
          error_code: errorCode,
        });
      }
    }
  }

  /** Zulip's push_device event, to the registration's user: their clients learn at once, not at their next register. */
  private announce(realmId: number, userId: number, event: PushDeviceEvent): void {
    this.deps.events.publish(identityEvents.pushDevice, { realmId, userIds: [userId], event });
  }
}
