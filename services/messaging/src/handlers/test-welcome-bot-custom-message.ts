import { badRequest, isAdmin, mustBeAdmin, requireUser, type Handler, type messaging } from "@teamchat/shared";
import type { InternalSendDeps } from "../messages/internal-send";
import { sendWelcomeBotCustomMessage } from "../onboarding/welcome-bot-custom-message";

/**
 * POST /realm/test_welcome_bot_custom_message (Zulip's
 * send_test_welcome_bot_custom_message): administrators only; Welcome Bot
 * sends the acting administrator the custom message a new user would get for
 * this text, and the reply names it.
 */
export const testWelcomeBotCustomMessageHandler =
  (deps: InternalSendDeps): Handler<typeof messaging.testWelcomeBotCustomMessage> =>
  async ({ welcome_message_custom_text }, ctx) => {
    const { actor } = requireUser(ctx);
    if (!isAdmin(actor)) throw mustBeAdmin();
    if (welcome_message_custom_text.length === 0) throw badRequest("Message must not be empty");
    const sent = await sendWelcomeBotCustomMessage(deps, ctx, actor.userId, welcome_message_custom_text);
    // Zulip asserts it was sent: a system bot's direct message to a user has nothing to refuse it
    if (!sent) throw new Error("Welcome Bot's custom message was not sent");
    return { message_id: sent.messageId };
  };
