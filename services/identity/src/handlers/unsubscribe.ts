import { badRequest, identity, requireRealm, type EventPublisher, type Handler } from "@teamchat/shared";
import type { Presences } from "../presence/presences";
import type { UnsubscribeKeyRepository } from "../unsubscribe/unsubscribe-key.repository";
import { unsubscribeLink } from "../unsubscribe/unsubscribe-link";
import { settingsOf, type SettingName } from "../users/settings";
import type { UserDirectory } from "../users/user-directory";
import { saveOwnChanges } from "./update-settings";

/**
 * The setting each kind of mail's link turns off (Zulip's email_unsubscribers).
 * Zulip's welcome link clears the scheduled welcome mails, which this server
 * never sends: it changes nothing.
 */
const SETTING_OF: Record<identity.UnsubscribeEmailType, SettingName | null> = {
  missed_messages: "enable_offline_email_notifications",
  welcome: null,
  digest: "enable_digest_emails",
  login: "enable_login_emails",
  marketing: "enable_marketing_emails",
};

const isEmailType = (type: string): type is identity.UnsubscribeEmailType =>
  Object.hasOwn(identity.UNSUBSCRIBE_EMAIL_TYPES, type);

/** Zulip's one_click_unsubscribe_link, for mail written by other services. */
export const getUnsubscribeLinkHandler =
  ({ keys }: { keys: UnsubscribeKeyRepository }): Handler<typeof identity.getUnsubscribeLink> =>
  async ({ user_id, email_type }, ctx) => ({
    url: await unsubscribeLink(keys, requireRealm(ctx), user_id, email_type),
  });

/**
 * Zulip's email_unsubscribe, which needs no login: the key's user no longer
 * gets that kind of mail, as if they had turned the setting off themselves
 * (their clients hear of it).
 */
export const unsubscribeByLinkHandler =
  (deps: {
    keys: UnsubscribeKeyRepository;
    users: UserDirectory;
    events: EventPublisher<"identity">;
    presence: Presences;
  }): Handler<typeof identity.unsubscribeByLink> =>
  async ({ email_type, confirmation_key }, ctx) => {
    const realm = requireRealm(ctx);
    const unknown = () => badRequest("Unknown email unsubscribe request");
    if (!isEmailType(email_type)) throw unknown();
    const userId = await deps.keys.userOf(realm.id, confirmation_key);
    const user = userId === null ? null : await deps.users.byId(realm.id, userId);
    if (!user) throw unknown();
    const setting = SETTING_OF[email_type];
    if (setting && settingsOf(user)[setting] !== false) {
      await saveOwnChanges(deps, realm, user, { settings: { [setting]: false } }, [[setting, false]], ctx);
    }
    return { subscription_type: identity.UNSUBSCRIBE_EMAIL_TYPES[email_type], realm_uri: realm.uri };
  };
