import {
  isGuest,
  messaging,
  provideState,
  requireUser,
  type StateProvider,
  type UserGroupMemberships,
} from "@teamchat/shared";
import type { RealmSettingsSource } from "../realm-settings/realm-settings-source";
import { canCreateChannels } from "./create-channels";

/**
 * register's can_create_*_streams, can_subscribe_other_users and
 * can_invite_others_to_realm (Zulip's fetch_initial_state_data): the caller's
 * membership of the organization's group settings, as the operations check it.
 */
export const channelPermissionsState = (deps: {
  settings: RealmSettingsSource;
  userGroups: UserGroupMemberships;
}): StateProvider[] => [
  provideState(messaging.channelPermissionsState, async (_p, ctx) => {
    const { actor } = requireUser(ctx);
    const [settings, groups] = await Promise.all([deps.settings.get(ctx), deps.userGroups.get(ctx)]);
    const canCreate = {
      public: canCreateChannels(actor, "public", settings, groups),
      private: canCreateChannels(actor, "private", settings, groups),
      web_public: canCreateChannels(actor, "web_public", settings, groups),
    };
    const memberOf = (setting: "can_add_subscribers_group" | "can_invite_users_group") =>
      !isGuest(actor) && groups.includes(settings[setting], actor);
    return {
      // Zulip's deprecated can_create_streams: any kind
      can_create_streams: canCreate.public || canCreate.private || canCreate.web_public,
      can_create_public_streams: canCreate.public,
      can_create_private_streams: canCreate.private,
      can_create_web_public_streams: canCreate.web_public,
      can_subscribe_other_users: memberOf("can_add_subscribers_group"),
      can_invite_others_to_realm: memberOf("can_invite_users_group"),
    };
  }),
];
