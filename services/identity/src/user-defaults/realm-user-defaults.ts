import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  EventCache,
  identityEvents,
  subscribeEvent,
  type EventPublisher,
  type EventSubscription,
} from "@teamchat/shared";
import { SETTING_DEFAULTS, type SettingName, type Settings, type SettingValue } from "../users/settings";
import type { RealmUserDefaultRepository } from "./realm-user-default.repository";

/** Organizations whose defaults an instance keeps. */
const MAX_CACHED_REALMS = 10_000;

/**
 * Each organization's defaults for new users' settings, read by every
 * POST /register (realm_user_settings_defaults) and every account creation:
 * kept in memory per organization and dropped by every instance on the
 * realm_user_settings_defaults event, which change() publishes before its
 * caller replies (see EventCache).
 */
export class RealmUserDefaults {
  private readonly cache: EventCache<Settings>;
  private readonly sub: EventSubscription;

  constructor(
    private readonly repo: RealmUserDefaultRepository,
    private readonly events: EventPublisher<"identity">,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.cache = new EventCache(nc, { name: "realm-user-defaults", maxWeight: MAX_CACHED_REALMS, weigh: () => 1 });
    this.sub = subscribeEvent(
      nc,
      identityEvents.realmUserSettingsDefaults,
      ({ realmId }) => this.cache.drop(`${realmId}`),
      { log },
    );
  }

  stop(): void {
    this.sub.unsubscribe();
  }

  /** Every setting as new users of the organization get it. */
  get(realmId: number): Promise<Settings> {
    return this.cache.get(`${realmId}`, async () => ({ ...SETTING_DEFAULTS, ...(await this.repo.byRealm(realmId)) }));
  }

  /**
   * What a new user stores: the defaults that differ from Zulip's (users store
   * only those; reads merge Zulip's), so later changes of the defaults leave
   * existing users as they are, as in Zulip.
   */
  async forNewUser(realmId: number): Promise<Partial<Settings>> {
    const defaults = await this.get(realmId);
    return Object.fromEntries(
      (Object.keys(defaults) as SettingName[])
        .filter((k) => defaults[k] !== SETTING_DEFAULTS[k])
        .map((k) => [k, defaults[k]]),
    );
  }

  /** Sets the changed defaults and announces each to the organization (Zulip's do_set_realm_user_default_setting). */
  async change(realmId: number, changed: Array<[SettingName, SettingValue]>, requestId?: string): Promise<void> {
    await this.repo.change(realmId, Object.fromEntries(changed));
    this.cache.drop(`${realmId}`);
    for (const [property, value] of changed) {
      this.events.publish(
        identityEvents.realmUserSettingsDefaults,
        { realmId, userIds: "all", event: { type: "realm_user_settings_defaults", op: "update", property, value } },
        requestId,
      );
    }
  }
}
