import {
  badRequest,
  type Actor,
  type HandlerContext,
  type ParamsOf,
  type RealmRef,
  type messaging,
  type realmConfig,
  type UserGroupMemberships,
} from "@teamchat/shared";
import { accessChannelForSend } from "../channels/channel-access";
import type { UserSummary, UserDirectory } from "../users/user-directory";
import { normalizeContent, normalizeTopic } from "./message-content";
import type { ChannelDirectory } from "../channels/channel-directory";
import type { ConversationRepository } from "../conversations/conversation.repository";
import type { SubscriptionDirectory } from "../subscriptions/subscription-directory";
import { channelDestination, directDestination, type Destination } from "./post-message";
import type { ReceiverCache } from "../user-messages/receiver-cache";

type SendParams = ParamsOf<typeof messaging.sendMessage>;

/** A channel's `to`: its id, its name, or a one-element list of either. */
function channelTarget(to: SendParams["to"]): string | number {
  const target = Array.isArray(to) && to.length === 1 ? to[0]! : to;
  if (Array.isArray(target)) throw badRequest("Invalid channel name");
  return target;
}

/** Direct-message recipients: user ids or emails, as a list, one value, or comma-separated addresses; the sender included, ascending. */
export async function directRecipients(
  deps: { users: UserDirectory },
  ctx: HandlerContext,
  realmId: number,
  actor: Actor,
  to: SendParams["to"],
): Promise<number[]> {
  const list = Array.isArray(to) ? to : typeof to === "number" ? [to] : to.split(",").map((s) => s.trim());
  const wanted = list.filter((v) => v !== "");
  if (!wanted.length) throw badRequest("Message must have recipients");
  const ids = wanted.filter((v): v is number => typeof v === "number");
  const emails = wanted.filter((v): v is string => typeof v === "string");
  const [byId, byEmail] = await Promise.all([
    deps.users.byIds(ctx, realmId, ids),
    emails.length ? deps.users.byEmails(ctx, realmId, emails) : new Map<string, UserSummary>(),
  ]);
  const missingId = ids.find((id) => !byId.has(id));
  if (missingId !== undefined) throw badRequest(`Invalid user ID ${missingId}`);
  const missingEmail = emails.find((e) => !byEmail.has(e));
  if (missingEmail !== undefined) throw badRequest(`Invalid email '${missingEmail}'`);
  const users = [...byId.values(), ...byEmail.values()];
  const inactive = users.find((u) => !u.is_active);
  if (inactive) throw badRequest(`'${inactive.email}' is no longer using Zulip.`);
  return [...new Set([actor.userId, ...users.map((u) => u.user_id)])].sort((a, b) => a - b);
}

/** What a message is: its addressing as POST /messages takes it, and its Markdown. */
export type Addressee = Pick<SendParams, "type" | "to" | "topic" | "content">;

/** What checking a message's destination uses: the channel and its access, the direct recipients. */
export interface CheckMessageDeps {
  channels: ChannelDirectory;
  subscriptions: SubscriptionDirectory;
  userGroups: UserGroupMemberships;
  receivers: ReceiverCache;
  conversations: ConversationRepository;
  users: UserDirectory;
}

/**
 * Zulip's check_message: the destination `actor` may send `message` to (channel
 * access, topic rules, recipients) and its content as stored. POST /messages,
 * scheduling a message and delivering it all check through here.
 */
export async function checkMessage(
  deps: CheckMessageDeps,
  ctx: HandlerContext,
  realm: RealmRef,
  actor: Actor,
  settings: realmConfig.RealmSettings,
  message: Addressee,
): Promise<{ to: Destination; content: string }> {
  const content = normalizeContent(message.content, settings);
  if (message.type === "stream" || message.type === "channel") {
    const channel = await accessChannelForSend(deps, realm.id, actor, channelTarget(message.to), ctx);
    if (message.topic === undefined) throw badRequest("Missing topic");
    const to = await channelDestination(deps, realm.id, channel, normalizeTopic(message.topic, settings, channel));
    return { to, content };
  }
  const to = await directDestination(deps, realm.id, await directRecipients(deps, ctx, realm.id, actor, message.to));
  return { to, content };
}
