import { identity, requireUser, type Handler, type EventPublisher } from "@teamchat/shared";
import { deactivateUser } from "../accounts/activation";
import { accessBotById } from "../bots/bot-permissions";
import type { UserDirectory } from "../users/user-directory";
import type { InvitationRepository } from "../invitations/invitation.repository";

/** DELETE /bots/{bot_id} (Zulip's deactivate_bot_backend): the bot's owner or an administrator. */
export const deactivateBotHandler =
  (deps: {
    users: UserDirectory;
    events: EventPublisher<"identity">;
    invitations: InvitationRepository;
  }): Handler<typeof identity.deactivateBot> =>
  async ({ bot_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const bot = await accessBotById(deps.users, realm, actor, bot_id);
    await deactivateUser(deps, realm, bot, ctx.requestId);
    return {};
  };
