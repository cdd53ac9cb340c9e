import type { identity, RealmRef } from "@teamchat/shared";
import type { UnsubscribeKeyRepository } from "./unsubscribe-key.repository";

/** Zulip's one_click_unsubscribe_link: `<realm url>/accounts/unsubscribe/<email type>/<the user's key>`. */
export const unsubscribeLink = async (
  keys: UnsubscribeKeyRepository,
  realm: RealmRef,
  userId: number,
  emailType: identity.UnsubscribeEmailType,
): Promise<string> => `${realm.uri}/accounts/unsubscribe/${emailType}/${await keys.keyOf(realm.id, userId)}`;
