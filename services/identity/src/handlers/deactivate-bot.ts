import { identity, requireUser, type Handler } from "@teamchat/shared";
import { deactivateUser } from "../accounts/activation";
import { accessBotById } from "../bots/bot-permissions";
import type { Deps } from "../deps";

/** DELETE /bots/{bot_id} (Zulip's deactivate_bot_backend): the bot's owner or an administrator. */
export const deactivateBotHandler =
  (deps: Deps<"users" | "events" | "invitations">): Handler<typeof identity.deactivateBot> =>
  async ({ bot_id }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const bot = await accessBotById(deps.users, realm, actor, bot_id);
    await deactivateUser(deps, realm, bot, ctx.requestId);
    return {};
  };
