import type { ReadStateRepository } from "../user-messages/read-state.repository";
import type { ChannelMessageCache } from "../messages/channel-message-cache";
import {
  badRequest,
  isDuplicateKey,
  requireUser,
  type Handler,
  type messaging,
  type EventPublisher,
} from "@teamchat/shared";
import type { MutedUserIndex } from "../muted-users/muted-user-index";
import type { UserDirectory } from "../users/user-directory";
import type { PersonalIndex } from "../user-messages/personal-index";
import type { MessageRepository } from "../messages/message.repository";
import type { UserMessageRepository } from "../user-messages/user-message.repository";
import { accessUserToMute, publishMutedUsers } from "../muted-users/muting";
import { markReadFor } from "../user-messages/flag-changes";

/**
 * POST /users/me/muted_users/{muted_user_id} (Zulip's mute_user and
 * do_mute_user): any other user of the organization, bots and deactivated
 * users included. The muted user's messages the caller has unread are marked
 * read (do_mark_muted_user_messages_as_read), then the muted_users event.
 */
export const muteUserHandler =
  (deps: {
    mutedUsers: MutedUserIndex;
    users: UserDirectory;
    personal: PersonalIndex;
    messages: MessageRepository;
    userMessages: UserMessageRepository;
    readStates: ReadStateRepository;
    channelMessages: ChannelMessageCache;
    events: EventPublisher<"messaging">;
  }): Handler<typeof messaging.muteUser> =>
  async ({ muted_user_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (muted_user_id === actor.userId) throw badRequest("Cannot mute self");
    await accessUserToMute(deps, ctx, realm.id, muted_user_id);
    try {
      await deps.mutedUsers.stored.insert(realm.id, actor.userId, muted_user_id, Math.floor(Date.now() / 1000));
    } catch (err) {
      if (isDuplicateKey(err)) throw badRequest("User already muted");
      throw err;
    }
    const { unread } = await deps.personal.of(realm.id, actor.userId);
    const fromMuted = await deps.messages.walk(
      realm.id,
      [
        { kind: "ids", in: unread.ids },
        { kind: "sender", userId: muted_user_id },
      ],
      0,
      1,
      Infinity,
    );
    if (fromMuted.length) {
      await markReadFor(
        deps,
        ctx,
        realm.id,
        actor.userId,
        fromMuted.map((m) => m.messageId),
      );
    }
    await publishMutedUsers(deps, ctx, realm.id, actor.userId);
    return {};
  };
