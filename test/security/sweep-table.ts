/**
 * The authorization sweep's table: for every HTTP operation, what each
 * attacker tries on objects they may not see or change, and Zulip's answer.
 * authorization-sweep.test.ts fails when an operation with an HTTP binding
 * has no entry here.
 */
import { identity, messaging, notifications, realmConfig, type Contract, type ParamsIn } from "@teamchat/shared";
import { badRequestError, type ExpectedZulipError } from "../support/call";
import {
  attackerOf,
  avatarImage,
  emojiImage,
  withFile,
  SECRET,
  VICTIM_ALERT_WORD,
  VICTIM_PUSH_TOKEN,
  type Attacker,
  type World,
} from "./sweep-world";

/**
 * What an attacker gets: Zulip's refusal; "allowed" (the call is made and its
 * reply scanned for leaks: a read, or a write to the caller's own data); or
 * "skip" (a write the role may make on that object, e.g. an administrator
 * archiving a channel: its permission matrix is in the owning service's tests).
 */
export type Expected = ExpectedZulipError | "allowed" | "skip";

export interface Attempt<C extends Contract = Contract> {
  /** what the attempt aims at, for failure messages */
  aim: string;
  params: (w: World, attacker: Attacker) => ParamsIn<C>;
  expect: (attacker: Attacker, w: World) => Expected;
}

export type Family =
  | "channels"
  | "subscriptions"
  | "messages"
  | "flags and topics"
  | "personal data"
  | "users and bots"
  | "groups"
  | "invitations"
  | "uploads and emoji"
  | "organization"
  | "events and typing";

export interface SweepEntry {
  family: Family;
  contract: Contract;
  attempts: Attempt[];
  /** why no attempt aims at someone else's object (the caller's own data only, or no object) */
  ownDataOnly?: string;
}

const ADMINS: readonly Attacker[] = ["owner", "administrator"];

type Expectation = (attacker: Attacker, w: World) => Expected;

/** The same answer for every attacker. */
const every =
  (expected: Expected): Expectation =>
  () =>
    expected;

/** `expected` for everyone but the attackers named in `others`. */
const exceptFor =
  (expected: Expected, others: Partial<Record<Attacker, Expected>>): Expectation =>
  (attacker) =>
    others[attacker] ?? expected;

/** Administrators may do it (skipped, or read and scanned); everyone else gets `refusal`, the outsider `outsider`. */
const adminsOnly =
  (refusal: ExpectedZulipError, outsider: Expected, admins: Expected = "skip"): Expectation =>
  (attacker) =>
    ADMINS.includes(attacker) ? admins : attacker === "outsider" ? outsider : refusal;

/** Only the owner may (Zulip's can_manage_all_groups defaults to owners). */
const ownerOnly =
  (refusal: ExpectedZulipError, outsider: Expected): Expectation =>
  (attacker) =>
    attacker === "owner" ? "skip" : attacker === "outsider" ? outsider : refusal;

/** Zulip's require_member_or_admin and human_users_only: guests and bots are refused before anything else. */
const humansOnly =
  (others: Expectation): Expectation =>
  (attacker, w) =>
    attacker === "guest" ? NOT_FOR_GUESTS : attacker === "bot" ? NOT_FOR_BOTS : others(attacker, w);

const attempt = <C extends Contract>(
  aim: string,
  params: (w: World, attacker: Attacker) => ParamsIn<C>,
  expect: Expectation,
): Attempt<C> => ({ aim, params, expect });

const entry = <C extends Contract>(family: Family, contract: C, ...attempts: Attempt<C>[]): SweepEntry => ({
  family,
  contract,
  attempts: attempts as unknown as Attempt[],
});

const ownData = <C extends Contract>(
  family: Family,
  contract: C,
  reason: string,
  ...attempts: Attempt<C>[]
): SweepEntry => ({ ...entry(family, contract, ...attempts), ownDataOnly: reason });

const INVALID_CHANNEL = badRequestError("Invalid channel ID");
const INVALID_MESSAGE = badRequestError("Invalid message(s)");
const REPORTING_DISABLED = badRequestError("Message reporting is not enabled in this organization.");
const INSUFFICIENT = badRequestError("Insufficient permission");
const NO_SUCH_USER = badRequestError("No such user");
const NO_SUCH_GROUP = badRequestError("Invalid user group");
const NO_SUCH_INVITATION = badRequestError("No such invitation");
/** Zulip's invite views refuse others' invitations with a plain JsonableError */
const INVITES_ADMIN_ONLY = badRequestError("Must be an organization administrator");
/** Zulip's OrganizationAdministratorRequiredError (require_realm_admin) */
const MUST_BE_ADMIN = badRequestError("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
/** Zulip's CannotManageDefaultChannelError (check_if_user_can_manage_default_streams) */
const CANNOT_MANAGE_DEFAULTS = badRequestError("You do not have permission to change default channels.");
const NOT_FOR_GUESTS = badRequestError("Not allowed for guest users");
const NOT_FOR_BOTS = badRequestError("This endpoint does not accept bot requests.");
const NOT_FOUND = (msg: string): ExpectedZulipError => ({ status: 404, code: "BAD_REQUEST", msg });
const LINKIFIER_NOT_FOUND = badRequestError("Linkifier not found.");
/** Zulip's serve_file: a file the caller may not see is 403, one that does not exist 404 */
const NOT_AUTHORIZED_TO_VIEW_FILE: ExpectedZulipError = {
  status: 403,
  code: "BAD_REQUEST",
  msg: "You are not authorized to view this file.",
};
const FILE_NOT_FOUND = NOT_FOUND("File not found.");
/** Zulip's refusal of a direct message (or typing) to a user id of no one in the organization */
const unknownRecipient = (w: World) => badRequestError(`Invalid user ID ${w.users.victim.userId}`);
const invalidUserId = (w: World) => badRequestError(`Invalid user ID: ${w.users.victim.userId}`);
const notAuthorizedToSend = (w: World) =>
  badRequestError(`Not authorized to send to channel '${w.ids.privateChannelName}'`);
const unableToAccess = (w: World) => badRequestError(`Unable to access channel (${w.ids.privateChannelName}).`);
const channelNameUnknown = (name: string): ExpectedZulipError => ({
  status: 400,
  code: "STREAM_DOES_NOT_EXIST",
  msg: `Channel '${name}' does not exist`,
  stream: name,
});
const channelIdUnknown = (id: number): ExpectedZulipError => ({
  status: 400,
  code: "STREAM_DOES_NOT_EXIST",
  msg: `Channel with ID '${id}' does not exist`,
  stream_id: id,
});
/** A narrow on a channel the caller may not read: as if the channel did not exist. */
const unknownChannelNarrow = (w: World): ExpectedZulipError => ({
  status: 400,
  code: "BAD_NARROW",
  msg: `Invalid narrow operator: unknown channel ${w.ids.privateChannel}`,
  desc: `unknown channel ${w.ids.privateChannel}`,
});
const badQueue = (w: World): ExpectedZulipError => ({
  status: 400,
  code: "BAD_EVENT_QUEUE_ID",
  msg: `Bad event queue ID: ${w.ids.victimQueue}`,
  queue_id: w.ids.victimQueue,
});

/**
 * A channel given by id that the sender may not see is answered as a missing one (Zulip would
 * name it: see access_stream_for_send_message in channel-access.ts); administrators see its name.
 */
const sendingByIdToPrivateChannel: Expectation = (a, w) =>
  ADMINS.includes(a) ? notAuthorizedToSend(w) : channelIdUnknown(w.ids.privateChannel);

/** Reads everyone may make; their replies are scanned. */
const readable = every("allowed");

/** Joining the private channel: administrators may; the outsider's name makes a channel of their own organization. */
const joiningPrivateChannel: Expectation = (a, w) =>
  ADMINS.includes(a) || a === "outsider" ? "skip" : a === "guest" ? NOT_FOR_GUESTS : unableToAccess(w);

const inviteIntoPrivateChannel: Expectation = humansOnly((a, w) =>
  ADMINS.includes(a) ? "skip" : badRequestError(`Invalid channel ID ${w.ids.privateChannel}. No invites were sent.`),
);

export const SWEEP: SweepEntry[] = [
  // Channels: a private channel the attackers are not subscribed to, by id and by name.
  entry(
    "channels",
    messaging.getStreamById,
    attempt(
      "the private channel",
      (w) => ({ stream_id: w.ids.privateChannel }),
      adminsOnly(INVALID_CHANNEL, INVALID_CHANNEL, "allowed"),
    ),
    attempt(
      "the organization's public channel",
      (w) => ({ stream_id: w.ids.publicChannel }),
      exceptFor("allowed", { guest: INVALID_CHANNEL, outsider: INVALID_CHANNEL }),
    ),
  ),
  // access_stream_by_name requires content access, which administrators lack
  entry(
    "channels",
    messaging.getStreamId,
    attempt(
      "the private channel's name",
      (w) => ({ stream: w.ids.privateChannelName }),
      (_a, w) => badRequestError(`Invalid channel name '${w.ids.privateChannelName}'`),
    ),
  ),
  entry(
    "channels",
    messaging.getStreams,
    attempt("every channel", () => ({}), readable),
    attempt(
      "every channel, with every option",
      () => ({
        include_web_public: true,
        exclude_archived: false,
        include_all_active: true,
        include_all: true,
        include_default: true,
        include_owner_subscribed: true,
        include_can_access_content: true,
      }),
      readable,
    ),
  ),
  entry(
    "channels",
    messaging.getSubscribers,
    attempt(
      "the private channel's subscribers",
      (w) => ({ stream_id: w.ids.privateChannel }),
      adminsOnly(INVALID_CHANNEL, INVALID_CHANNEL, "allowed"),
    ),
  ),
  entry(
    "channels",
    messaging.getStreamEmailAddress,
    attempt("the private channel's address", (w) => ({ stream_id: w.ids.privateChannel }), every(INVALID_CHANNEL)),
  ),
  entry(
    "channels",
    messaging.updateStream,
    attempt(
      "the private channel's description",
      (w) => ({ stream_id: w.ids.privateChannel, description: "defaced" }),
      adminsOnly(INVALID_CHANNEL, INVALID_CHANNEL),
    ),
  ),
  entry(
    "channels",
    messaging.archiveStream,
    attempt(
      "the private channel",
      (w) => ({ stream_id: w.ids.privateChannel }),
      adminsOnly(INVALID_CHANNEL, INVALID_CHANNEL),
    ),
  ),
  entry(
    "channels",
    messaging.addDefaultStream,
    attempt(
      "the private channel",
      (w) => ({ stream_id: w.ids.privateChannel }),
      adminsOnly(CANNOT_MANAGE_DEFAULTS, INVALID_CHANNEL, INVALID_CHANNEL),
    ),
  ),
  entry(
    "channels",
    messaging.removeDefaultStream,
    attempt(
      "the public channel",
      (w) => ({ stream_id: w.ids.publicChannel }),
      adminsOnly(CANNOT_MANAGE_DEFAULTS, INVALID_CHANNEL),
    ),
  ),
  ownData(
    "channels",
    messaging.createChannel,
    "creates the caller's own channel; subscribing others is the subscriptions family's",
    attempt(
      "a channel with another organization's user",
      (w) => ({ name: "outsider's", subscribers: [w.users.victim.userId] }),
      (a, w) => (a === "outsider" ? invalidUserId(w) : "skip"),
    ),
  ),

  // Subscriptions of the private channel.
  entry(
    "subscriptions",
    messaging.subscribe,
    attempt(
      "joining the private channel",
      (w) => ({ subscriptions: [{ name: w.ids.privateChannelName }] }),
      joiningPrivateChannel,
    ),
  ),
  entry(
    "subscriptions",
    messaging.updateSubscriptions,
    attempt(
      "joining the private channel (legacy)",
      (w) => ({ add: [{ name: w.ids.privateChannelName }] }),
      joiningPrivateChannel,
    ),
  ),
  entry(
    "subscriptions",
    messaging.unsubscribe,
    attempt(
      "removing the victim from the private channel",
      (w) => ({ subscriptions: [w.ids.privateChannelName], principals: [w.users.victim.userId] }),
      (a, w) => (ADMINS.includes(a) ? "skip" : a === "outsider" ? invalidUserId(w) : INSUFFICIENT),
    ),
  ),
  entry(
    "subscriptions",
    messaging.updateSubscriptionProperties,
    attempt(
      "muting the private channel",
      (w) => ({ subscription_data: [{ stream_id: w.ids.privateChannel, property: "is_muted", value: true }] }),
      every(INVALID_CHANNEL),
    ),
  ),
  entry(
    "subscriptions",
    messaging.getSubscriptionStatus,
    attempt(
      "whether the victim is subscribed",
      (w) => ({ user_id: w.users.victim.userId, stream_id: w.ids.privateChannel }),
      exceptFor(INVALID_CHANNEL, { owner: "allowed", administrator: "allowed", outsider: NO_SUCH_USER }),
    ),
  ),
  entry(
    "subscriptions",
    messaging.getUserChannels,
    attempt(
      "the victim's channels (the private one only for administrators)",
      (w) => ({ user_id: w.users.victim.userId }),
      exceptFor("allowed", { outsider: NO_SUCH_USER }),
    ),
  ),
  entry(
    "subscriptions",
    messaging.getSubscriptions,
    attempt("the caller's subscriptions", () => ({ include_subscribers: true }), readable),
  ),

  // Messages in the private channel and the victim's direct messages: as if they did not exist.
  ...(["privateMessage", "directMessage"] as const).flatMap((which) => [
    entry(
      "messages",
      messaging.getMessage,
      attempt(which, (w) => ({ message_id: w.ids[which] }), every(INVALID_MESSAGE)),
    ),
    entry(
      "messages",
      messaging.getMessageHistory,
      attempt(which, (w) => ({ message_id: w.ids[which] }), every(INVALID_MESSAGE)),
    ),
    entry(
      "messages",
      messaging.updateMessage,
      attempt(which, (w) => ({ message_id: w.ids[which], content: "defaced" }), every(INVALID_MESSAGE)),
    ),
    entry(
      "messages",
      messaging.deleteMessage,
      attempt(which, (w) => ({ message_id: w.ids[which] }), every(INVALID_MESSAGE)),
    ),
    entry(
      "messages",
      messaging.addReaction,
      attempt(which, (w) => ({ message_id: w.ids[which], emoji_name: "smile" }), every(INVALID_MESSAGE)),
    ),
    entry(
      "messages",
      messaging.removeReaction,
      attempt(which, (w) => ({ message_id: w.ids[which], emoji_name: "smile" }), every(INVALID_MESSAGE)),
    ),
    entry(
      "messages",
      messaging.getReadReceipts,
      attempt(which, (w) => ({ message_id: w.ids[which] }), every(INVALID_MESSAGE)),
    ),
    entry(
      "messages",
      messaging.sendSubmessage,
      attempt(which, (w) => ({ message_id: w.ids[which], msg_type: "widget", content: "{}" }), every(INVALID_MESSAGE)),
    ),
    entry(
      "events and typing",
      notifications.setMessageEditTypingStatus,
      attempt(which, (w) => ({ message_id: w.ids[which], op: "start" }), every(INVALID_MESSAGE)),
    ),
    entry(
      "flags and topics",
      messaging.updateMessageFlags,
      attempt(which, (w) => ({ messages: [w.ids[which]], op: "add", flag: "starred" }), every(INVALID_MESSAGE)),
    ),
  ]),
  entry(
    "messages",
    messaging.getMessage,
    attempt(
      "the victim's public message",
      (w) => ({ message_id: w.ids.publicMessage }),
      exceptFor("allowed", { guest: INVALID_MESSAGE, outsider: INVALID_MESSAGE }),
    ),
  ),
  // verify_submessage_sender: the victim's message has no submessage of theirs for others to follow
  entry(
    "messages",
    messaging.sendSubmessage,
    attempt(
      "the victim's public message",
      (w) => ({ message_id: w.ids.publicMessage, msg_type: "widget", content: '{"type": "vote"}' }),
      exceptFor(badRequestError("You cannot attach a submessage to this message."), {
        guest: INVALID_MESSAGE,
        outsider: INVALID_MESSAGE,
      }),
    ),
  ),
  entry(
    "messages",
    messaging.reportMessage,
    ...(["privateMessage", "directMessage"] as const).map((which) =>
      attempt(
        which,
        (w) => ({ message_id: w.ids[which], report_type: "spam" }),
        // the other organization has no moderation request channel, which Zulip checks first
        exceptFor(INVALID_MESSAGE, { outsider: REPORTING_DISABLED }),
      ),
    ),
    attempt(
      "the victim's public message",
      (w) => ({ message_id: w.ids.publicMessage, report_type: "spam" }),
      exceptFor("allowed", { guest: INVALID_MESSAGE, outsider: REPORTING_DISABLED }),
    ),
  ),
  entry(
    "messages",
    messaging.updateMessage,
    attempt(
      "the victim's public message",
      (w) => ({ message_id: w.ids.publicMessage, content: "defaced" }),
      exceptFor(badRequestError("You don't have permission to edit this message"), {
        outsider: INVALID_MESSAGE,
        guest: INVALID_MESSAGE,
      }),
    ),
  ),
  entry(
    "messages",
    messaging.deleteMessage,
    attempt(
      "the victim's public message",
      (w) => ({ message_id: w.ids.publicMessage }),
      exceptFor(badRequestError("You don't have permission to delete this message"), {
        owner: "skip",
        administrator: "skip",
        outsider: INVALID_MESSAGE,
        guest: INVALID_MESSAGE,
      }),
    ),
  ),
  entry(
    "messages",
    messaging.getMessages,
    attempt(
      "the private channel's messages",
      (w) => ({
        anchor: "newest",
        num_before: 100,
        num_after: 0,
        narrow: [{ operator: "channel", operand: w.ids.privateChannel }],
      }),
      (_a, w) => unknownChannelNarrow(w),
    ),
    attempt("everything", () => ({ anchor: "newest", num_before: 100, num_after: 0 }), readable),
    attempt(
      "the victim's conversation with the confidant",
      (w) => ({
        anchor: "newest",
        num_before: 100,
        num_after: 0,
        narrow: [{ operator: "dm", operand: [w.users.victim.userId, w.users.confidant.userId] }],
      }),
      // Zulip's BadNarrowOperatorError for users of another organization
      (a, w) =>
        a === "outsider"
          ? {
              status: 400,
              code: "BAD_NARROW",
              msg: `Invalid narrow operator: unknown user in [${w.users.victim.userId}, ${w.users.confidant.userId}]`,
              desc: `unknown user in [${w.users.victim.userId}, ${w.users.confidant.userId}]`,
            }
          : "allowed",
    ),
    // words of the secret messages, not the marker itself (a reply may echo what was asked)
    ...["private channel", "direct", "scheduled"].map((words) =>
      attempt(
        `a search for "${words}"`,
        () => ({ anchor: "newest", num_before: 100, num_after: 0, narrow: [{ operator: "search", operand: words }] }),
        readable,
      ),
    ),
    attempt(
      "every public channel",
      () => ({
        anchor: "newest",
        num_before: 100,
        num_after: 0,
        narrow: [{ operator: "channels", operand: "public" }],
      }),
      readable,
    ),
  ),
  entry(
    "messages",
    messaging.matchesNarrow,
    attempt(
      "the victim's messages",
      (w) => ({ msg_ids: [w.ids.privateMessage, w.ids.directMessage], narrow: [] }),
      readable,
    ),
  ),
  entry(
    "messages",
    messaging.sendMessage,
    attempt(
      "posting in the private channel",
      (w) => ({ type: "stream", to: w.ids.privateChannelName, topic: "t", content: "intrusion" }),
      (a, w) => (a === "outsider" ? channelNameUnknown(w.ids.privateChannelName) : notAuthorizedToSend(w)),
    ),
    attempt(
      "posting in the private channel by id",
      (w) => ({ type: "stream", to: w.ids.privateChannel, topic: "t", content: "intrusion" }),
      sendingByIdToPrivateChannel,
    ),
    attempt(
      "a direct message to another organization's user",
      (w) => ({ type: "direct", to: [w.users.victim.userId], content: "hello" }),
      (a, w) => (a === "outsider" ? unknownRecipient(w) : "skip"),
    ),
    // Zulip's do_claim_attachments claims only files the sender may see: linking the victim's file
    // gives no access (the download test after the families checks). The link spells the secret with
    // a percent-escape, which the path id is decoded from, so the attacker's own message event holds no secret.
    attempt(
      "a direct message to oneself linking the victim's upload",
      (w, a) => ({
        type: "direct",
        to: [attackerOf(w, a).user.userId],
        content: `[notes](${w.ids.upload.url.replace(SECRET, SECRET.replace("s", "%73"))})`,
      }),
      readable,
    ),
  ),
  entry(
    "messages",
    messaging.updateMessage,
    attempt(
      "moving the member's own message into the private channel",
      (w) => ({ message_id: w.ids.memberMessage, stream_id: w.ids.privateChannel }),
      exceptFor("skip", { member: INVALID_CHANNEL, outsider: INVALID_MESSAGE }),
    ),
  ),
  ownData(
    "messages",
    messaging.renderMessage,
    "renders the caller's text",
    attempt("the caller's text", () => ({ content: "**hi**" }), readable),
  ),
  // require_realm_admin, then access_stream_by_id with content access
  entry(
    "messages",
    messaging.deleteTopic,
    attempt(
      "the private channel's topic",
      (w) => ({ stream_id: w.ids.privateChannel, topic_name: w.ids.privateTopic }),
      adminsOnly(MUST_BE_ADMIN, INVALID_CHANNEL, INVALID_CHANNEL),
    ),
  ),

  // Flags and topics of the private channel.
  entry(
    "flags and topics",
    messaging.markStreamAsRead,
    attempt("the private channel", (w) => ({ stream_id: w.ids.privateChannel }), every(INVALID_CHANNEL)),
  ),
  entry(
    "flags and topics",
    messaging.markTopicAsRead,
    attempt(
      "the private topic",
      (w) => ({ stream_id: w.ids.privateChannel, topic_name: w.ids.privateTopic }),
      every(INVALID_CHANNEL),
    ),
  ),
  ownData(
    "flags and topics",
    messaging.markAllAsRead,
    "the caller's own flags",
    attempt("the caller's flags", () => ({}), readable),
  ),
  entry(
    "flags and topics",
    messaging.updateMessageFlagsForNarrow,
    attempt(
      "starring the private channel",
      (w) => ({
        anchor: "oldest",
        num_before: 0,
        num_after: 100,
        narrow: [{ operator: "channel", operand: w.ids.privateChannel }],
        op: "add",
        flag: "starred",
      }),
      (_a, w) => unknownChannelNarrow(w),
    ),
  ),
  entry(
    "flags and topics",
    messaging.getStreamTopics,
    attempt("the private channel's topics", (w) => ({ stream_id: w.ids.privateChannel }), every(INVALID_CHANNEL)),
  ),
  entry(
    "flags and topics",
    messaging.updateUserTopic,
    attempt(
      "following the private topic",
      (w) => ({ stream_id: w.ids.privateChannel, topic: w.ids.privateTopic, visibility_policy: 3 }),
      every(INVALID_CHANNEL),
    ),
  ),
  entry(
    "flags and topics",
    messaging.updateMutedTopic,
    attempt(
      "muting the private topic",
      (w) => ({ stream_id: w.ids.privateChannel, topic: w.ids.privateTopic, op: "add" }),
      every(INVALID_CHANNEL),
    ),
  ),

  // The victim's personal data: per user, so another user's id is unknown to the caller.
  ownData(
    "personal data",
    messaging.getDrafts,
    "the caller's drafts",
    attempt("the caller's drafts", () => ({}), readable),
  ),
  ownData(
    "personal data",
    messaging.createDrafts,
    "creates the caller's drafts",
    attempt(
      "a draft to the private channel",
      (w) => ({ drafts: [{ type: "stream", to: [w.ids.privateChannel], topic: "t", content: "c" }] }),
      every(INVALID_CHANNEL),
    ),
  ),
  entry(
    "personal data",
    messaging.editDraft,
    attempt(
      "the victim's draft",
      (w) => ({ draft_id: w.ids.draft, draft: { type: "", to: [], topic: "", content: "defaced" } }),
      every(NOT_FOUND("Draft does not exist")),
    ),
  ),
  entry(
    "personal data",
    messaging.deleteDraft,
    attempt("the victim's draft", (w) => ({ draft_id: w.ids.draft }), every(NOT_FOUND("Draft does not exist"))),
  ),
  ownData(
    "personal data",
    messaging.getScheduledMessages,
    "the caller's scheduled messages",
    attempt("the caller's", () => ({}), readable),
  ),
  ownData(
    "personal data",
    messaging.createScheduledMessage,
    "schedules the caller's message",
    attempt(
      "a message to the private channel",
      (w) => ({
        type: "stream",
        to: w.ids.privateChannel,
        topic: "t",
        content: "intrusion",
        scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 3600,
      }),
      sendingByIdToPrivateChannel,
    ),
  ),
  entry(
    "personal data",
    messaging.updateScheduledMessage,
    attempt(
      "the victim's scheduled message",
      (w) => ({ scheduled_message_id: w.ids.scheduledMessage, content: "defaced" }),
      every(NOT_FOUND("Scheduled message does not exist")),
    ),
  ),
  entry(
    "personal data",
    messaging.deleteScheduledMessage,
    attempt(
      "the victim's scheduled message",
      (w) => ({ scheduled_message_id: w.ids.scheduledMessage }),
      every(NOT_FOUND("Scheduled message does not exist")),
    ),
    attempt(
      "the victim's reminder, by the scheduled messages' route",
      (w) => ({ scheduled_message_id: w.ids.reminder }),
      every(NOT_FOUND("Scheduled message does not exist")),
    ),
  ),
  entry(
    "personal data",
    messaging.createReminder,
    ...(["privateMessage", "directMessage"] as const).map((which) =>
      attempt(
        which,
        (w) => ({ message_id: w.ids[which], scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 3600 }),
        every(INVALID_MESSAGE),
      ),
    ),
  ),
  ownData(
    "personal data",
    messaging.getReminders,
    "the caller's reminders",
    attempt("the caller's", () => ({}), readable),
  ),
  entry(
    "personal data",
    messaging.deleteReminder,
    attempt(
      "the victim's reminder",
      (w) => ({ reminder_id: w.ids.reminder }),
      every(NOT_FOUND("Reminder does not exist")),
    ),
    attempt(
      "the victim's scheduled message, by the reminders' route",
      (w) => ({ reminder_id: w.ids.scheduledMessage }),
      every(NOT_FOUND("Reminder does not exist")),
    ),
  ),
  ownData(
    "personal data",
    messaging.getSavedSnippets,
    "the caller's snippets",
    attempt("the caller's", () => ({}), readable),
  ),
  ownData("personal data", messaging.createSavedSnippet, "creates the caller's snippet"),
  entry(
    "personal data",
    messaging.editSavedSnippet,
    attempt(
      "the victim's snippet",
      (w) => ({ saved_snippet_id: w.ids.savedSnippet, content: "defaced" }),
      every(NOT_FOUND("Saved snippet does not exist.")),
    ),
  ),
  entry(
    "personal data",
    messaging.deleteSavedSnippet,
    attempt(
      "the victim's snippet",
      (w) => ({ saved_snippet_id: w.ids.savedSnippet }),
      every(NOT_FOUND("Saved snippet does not exist.")),
    ),
  ),
  ownData(
    "personal data",
    messaging.getAlertWords,
    "the caller's alert words",
    attempt("the caller's", () => ({}), readable),
  ),
  ownData("personal data", messaging.addAlertWords, "adds to the caller's alert words"),
  ownData(
    "personal data",
    messaging.removeAlertWords,
    "removes from the caller's alert words",
    attempt("the victim's word", () => ({ alert_words: [VICTIM_ALERT_WORD] }), readable),
  ),
  entry(
    "personal data",
    messaging.muteUser,
    attempt(
      "another organization's user",
      (w) => ({ muted_user_id: w.users.confidant.userId }),
      exceptFor("skip", { outsider: NO_SUCH_USER }),
    ),
  ),
  entry(
    "personal data",
    messaging.unmuteUser,
    attempt(
      "the user the victim muted",
      (w) => ({ muted_user_id: w.users.confidant.userId }),
      exceptFor(badRequestError("User is not muted"), { outsider: NO_SUCH_USER }),
    ),
  ),
  ownData(
    "personal data",
    identity.listNavigationViews,
    "the caller's views",
    attempt("the caller's", () => ({}), readable),
  ),
  ownData("personal data", identity.addNavigationView, "adds the caller's view"),
  entry(
    "personal data",
    identity.updateNavigationView,
    attempt(
      "the victim's view",
      (w) => ({ fragment: w.ids.navigationView, name: "defaced" }),
      every(NOT_FOUND("Navigation view does not exist.")),
    ),
  ),
  entry(
    "personal data",
    identity.removeNavigationView,
    attempt(
      "the victim's view",
      (w) => ({ fragment: w.ids.navigationView }),
      every(NOT_FOUND("Navigation view does not exist.")),
    ),
  ),
  ownData("personal data", identity.updateSettings, "the caller's settings"),
  ownData("personal data", identity.updateDisplaySettings, "the caller's settings"),
  ownData("personal data", identity.updateNotificationSettings, "the caller's settings"),
  ownData("personal data", identity.markOnboardingStepAsRead, "the caller's onboarding"),
  ownData("personal data", identity.updateStatus, "the caller's status"),
  ownData(
    "personal data",
    identity.updatePresence,
    "the caller's presence; the reply holds everyone's",
    attempt("everyone's presence", () => ({ status: "active" }), exceptFor("allowed", { bot: NOT_FOR_BOTS })),
  ),
  ownData("personal data", identity.registerPushDevice, "the caller's devices"),
  ownData("personal data", identity.addApnsDeviceToken, "the caller's devices"),
  ownData("personal data", identity.addAndroidRegId, "the caller's devices"),
  entry(
    "personal data",
    identity.removeApnsDeviceToken,
    attempt(
      "the victim's token",
      () => ({ token: VICTIM_PUSH_TOKEN }),
      exceptFor(badRequestError("Token does not exist"), { bot: NOT_FOR_BOTS }),
    ),
  ),
  entry(
    "personal data",
    identity.removeAndroidRegId,
    attempt(
      "the victim's token",
      () => ({ token: VICTIM_PUSH_TOKEN }),
      exceptFor(badRequestError("Token does not exist"), { bot: NOT_FOR_BOTS }),
    ),
  ),
  ownData("personal data", identity.sendTestPushNotification, "the caller's devices"),
  ownData("personal data", identity.sendE2eeTestPushNotification, "the caller's devices"),
  ownData("personal data", identity.regenerateApiKey, "the caller's key"),
  ownData("personal data", identity.deactivateOwnUser, "the caller's account"),
  ownData(
    "personal data",
    identity.fetchApiKey,
    "anonymous: the victim's address with a wrong password",
    attempt(
      "the victim's account",
      (w) => ({ username: w.users.victim.email, password: "guess" }),
      // anonymous, so the same request whoever sends it: five of the seven, as Zulip answers a sixth
      // failed login to one account within 30 minutes with 429 (RATE_LIMIT_HIT)
      exceptFor(
        { status: 401, code: "AUTHENTICATION_FAILED", msg: "Your username or password is incorrect" },
        { bot: "skip", outsider: "skip" },
      ),
    ),
  ),

  // Users and bots.
  entry(
    "users and bots",
    identity.getUsers,
    attempt("everyone", () => ({}), readable),
    attempt(
      "everyone, with avatars and profile fields",
      () => ({ client_gravatar: false, include_custom_profile_fields: true }),
      readable,
    ),
  ),
  entry(
    "users and bots",
    identity.getOwnUser,
    attempt("the caller", () => ({}), readable),
  ),
  entry(
    "users and bots",
    identity.getUser,
    attempt(
      "the victim",
      (w) => ({ user_id: w.users.victim.userId }),
      exceptFor("allowed", { outsider: NO_SUCH_USER }),
    ),
  ),
  // Addresses no one may see do not find anyone.
  entry(
    "users and bots",
    identity.getUserByEmail,
    attempt("the victim by real address", (w) => ({ email: w.users.victim.email }), every(NO_SUCH_USER)),
  ),
  entry(
    "users and bots",
    identity.updateUser,
    attempt(
      "the victim's name",
      (w) => ({ user_id: w.users.victim.userId, full_name: "Defaced" }),
      adminsOnly(INSUFFICIENT, NO_SUCH_USER),
    ),
  ),
  entry(
    "users and bots",
    identity.updateUserByEmail,
    attempt(
      "the victim by real address",
      (w) => ({ email: w.users.victim.email, full_name: "Defaced" }),
      every(NO_SUCH_USER),
    ),
  ),
  entry(
    "users and bots",
    identity.deactivateUser,
    attempt("the victim", (w) => ({ user_id: w.users.victim.userId }), adminsOnly(INSUFFICIENT, NO_SUCH_USER)),
  ),
  entry(
    "users and bots",
    identity.reactivateUser,
    attempt(
      "the deactivated user",
      (w) => ({ user_id: w.users.deactivated.userId }),
      adminsOnly(INSUFFICIENT, NO_SUCH_USER),
    ),
  ),
  // require_realm_admin, then the can_create_users flag (given to this organization's owner)
  entry(
    "users and bots",
    identity.createUser,
    attempt(
      "a new account",
      () => ({ email: "new@example.com", password: "new-password-1", full_name: "New" }),
      exceptFor(MUST_BE_ADMIN, {
        owner: "skip",
        outsider: "skip",
        administrator: badRequestError("User not authorized to create users"),
      }),
    ),
  ),
  entry(
    "users and bots",
    identity.getUserStatus,
    attempt(
      "the victim's status",
      (w) => ({ user_id: w.users.victim.userId }),
      exceptFor("allowed", { outsider: NO_SUCH_USER }),
    ),
  ),
  entry(
    "users and bots",
    identity.getUserPresence,
    attempt("the victim by real address", (w) => ({ user_id_or_email: w.users.victim.email }), every(NO_SUCH_USER)),
    attempt(
      "the victim by id",
      (w) => ({ user_id_or_email: String(w.users.victim.userId) }),
      // the victim has never reported presence
      (a, w) => (a === "outsider" ? NO_SUCH_USER : badRequestError(`No presence data for ${w.users.victim.userId}`)),
    ),
  ),
  entry(
    "users and bots",
    identity.getRealmPresence,
    attempt("everyone's presence", () => ({}), readable),
  ),
  entry(
    "users and bots",
    identity.getBots,
    attempt("the caller's bots", () => ({}), humansOnly(readable)),
  ),
  ownData(
    "users and bots",
    identity.createBot,
    "creates the caller's bot",
    attempt("a bot", () => ({ full_name: "Sneaky", short_name: "sneaky" }), humansOnly(every("skip"))),
  ),
  entry(
    "users and bots",
    identity.updateBot,
    attempt(
      "the victim's bot",
      (w) => ({ bot_id: w.ids.victimBot, full_name: "Defaced" }),
      humansOnly(adminsOnly(INSUFFICIENT, badRequestError("No such bot"))),
    ),
  ),
  entry(
    "users and bots",
    identity.deactivateBot,
    attempt(
      "the victim's bot",
      (w) => ({ bot_id: w.ids.victimBot }),
      // access_bot_by_id alone: not the bot's owner
      adminsOnly(INSUFFICIENT, badRequestError("No such bot")),
    ),
  ),
  ownData("personal data", identity.registerClientDevice, "a device of the caller's own"),
  entry(
    "personal data",
    identity.removeClientDevice,
    attempt("the victim's device", (w) => ({ device_id: w.ids.device }), every(badRequestError("Invalid `device_id`"))),
  ),
  ownData(
    "users and bots",
    identity.createBigBlueButtonCall,
    "a link to a new meeting the caller moderates",
    attempt("a meeting", () => ({ meeting_name: "call" }), readable),
  ),
  ownData(
    "users and bots",
    identity.createZoomCall,
    "a call of the caller's own, refused while Zoom has no credentials",
    attempt("a call", () => ({}), every(badRequestError("Zoom credentials have not been configured"))),
  ),
  ownData(
    "users and bots",
    identity.createWebexCall,
    "a call of the caller's own, refused while Webex has no credentials",
    attempt("a call", () => ({}), every(badRequestError("Webex credentials have not been configured"))),
  ),
  entry(
    "users and bots",
    identity.getBotApiKey,
    attempt(
      "the victim's bot",
      (w) => ({ bot_id: w.ids.victimBot }),
      humansOnly(adminsOnly(INSUFFICIENT, badRequestError("No such bot"), "allowed")),
    ),
  ),
  entry(
    "users and bots",
    identity.regenerateBotApiKey,
    attempt(
      "the victim's bot",
      (w) => ({ bot_id: w.ids.victimBot }),
      humansOnly(adminsOnly(INSUFFICIENT, badRequestError("No such bot"))),
    ),
  ),

  // A group the victim manages.
  entry(
    "groups",
    identity.getUserGroups,
    attempt("every group", () => ({}), humansOnly(readable)),
  ),
  entry(
    "groups",
    identity.updateUserGroup,
    attempt(
      "the victim's group",
      (w) => ({ user_group_id: w.ids.victimGroup, name: "defaced" }),
      humansOnly(ownerOnly(INSUFFICIENT, NO_SUCH_GROUP)),
    ),
  ),
  entry(
    "groups",
    identity.deactivateUserGroup,
    attempt(
      "the victim's group",
      (w) => ({ user_group_id: w.ids.victimGroup }),
      ownerOnly(INSUFFICIENT, NO_SUCH_GROUP),
    ),
  ),
  entry(
    "groups",
    identity.updateUserGroupMembers,
    attempt(
      "joining the victim's group",
      (w, a) => ({ user_group_id: w.ids.victimGroup, add: [attackerOf(w, a).user.userId] }),
      humansOnly(ownerOnly(INSUFFICIENT, NO_SUCH_GROUP)),
    ),
  ),
  entry(
    "groups",
    identity.updateUserGroupSubgroups,
    attempt(
      "the victim's group",
      (w) => ({ user_group_id: w.ids.victimGroup, add: [w.ids.victimGroup] }),
      humansOnly(ownerOnly(INSUFFICIENT, NO_SUCH_GROUP)),
    ),
  ),
  entry(
    "groups",
    identity.getUserGroupMembers,
    attempt(
      "the victim's group",
      (w) => ({ user_group_id: w.ids.victimGroup }),
      humansOnly(exceptFor("allowed", { outsider: NO_SUCH_GROUP })),
    ),
  ),
  entry(
    "groups",
    identity.getIsUserGroupMember,
    attempt(
      "the victim's group",
      (w) => ({ user_group_id: w.ids.victimGroup, user_id: w.users.victim.userId }),
      humansOnly(exceptFor("allowed", { outsider: NO_SUCH_GROUP })),
    ),
  ),
  entry(
    "groups",
    identity.getUserGroupSubgroups,
    attempt(
      "the victim's group",
      (w) => ({ user_group_id: w.ids.victimGroup }),
      humansOnly(exceptFor("allowed", { outsider: NO_SUCH_GROUP })),
    ),
  ),
  ownData(
    "groups",
    identity.createUserGroup,
    "creates the caller's group",
    attempt("a group", () => ({ name: "sneaky", description: "", members: [] }), humansOnly(every("skip"))),
  ),

  // Invitations of the victim and of an administrator.
  entry(
    "invitations",
    identity.getInvites,
    attempt("the caller's invitations", () => ({}), humansOnly(readable)),
  ),
  entry(
    "invitations",
    identity.revokeInvite,
    attempt(
      "the victim's invitation",
      (w) => ({ invite_id: w.ids.invite }),
      humansOnly(adminsOnly(INVITES_ADMIN_ONLY, NO_SUCH_INVITATION)),
    ),
  ),
  entry(
    "invitations",
    identity.resendInvite,
    attempt(
      "the victim's invitation",
      (w) => ({ invite_id: w.ids.invite }),
      humansOnly(adminsOnly(INVITES_ADMIN_ONLY, NO_SUCH_INVITATION)),
    ),
  ),
  entry(
    "invitations",
    identity.revokeInviteLink,
    attempt(
      "the administrator's link",
      (w) => ({ invite_id: w.ids.multiuseInvite }),
      humansOnly(adminsOnly(INVITES_ADMIN_ONLY, NO_SUCH_INVITATION)),
    ),
  ),
  entry(
    "invitations",
    identity.sendInvites,
    attempt(
      "an invitation into the private channel",
      (w) => ({ invitee_emails: "x@example.com", stream_ids: [w.ids.privateChannel] }),
      inviteIntoPrivateChannel,
    ),
  ),
  entry(
    "invitations",
    identity.createInviteLink,
    attempt(
      "a link into the private channel",
      (w) => ({ stream_ids: [w.ids.privateChannel] }),
      humansOnly((a, w) =>
        a === "outsider" ? inviteIntoPrivateChannel(a, w) : ADMINS.includes(a) ? "skip" : INSUFFICIENT,
      ),
    ),
  ),
  entry(
    "invitations",
    identity.acceptInvitation,
    attempt(
      "the administrator's link, in another organization",
      (w) => ({ key: w.ids.inviteLink, full_name: "Intruder", password: "intruder-1", email: "intruder@example.com" }),
      exceptFor("skip", { outsider: badRequestError("We couldn't find your confirmation link in the system.") }),
    ),
  ),

  // The organization's settings.
  entry(
    "organization",
    realmConfig.updateRealm,
    attempt("renaming the organization", () => ({ name: "Defaced" }), adminsOnly(MUST_BE_ADMIN, "skip")),
  ),
  entry(
    "organization",
    messaging.testWelcomeBotCustomMessage,
    attempt(
      "Welcome Bot's custom message, to the caller",
      () => ({ welcome_message_custom_text: "Welcome!" }),
      adminsOnly(MUST_BE_ADMIN, "skip", "allowed"),
    ),
  ),
  entry(
    "organization",
    identity.updateRealmUserSettingsDefaults,
    attempt("the defaults", () => ({ enter_sends: true }), adminsOnly(MUST_BE_ADMIN, "skip")),
  ),
  // Zulip's realm export views are require_realm_admin; an export of the organization is its administrators' alone
  entry(
    "organization",
    messaging.exportRealm,
    attempt("an export of the organization", () => ({ export_type: 2 }), adminsOnly(MUST_BE_ADMIN, "skip")),
  ),
  entry(
    "organization",
    messaging.getRealmExports,
    attempt("the organization's exports", () => ({}), adminsOnly(MUST_BE_ADMIN, "allowed", "allowed")),
  ),
  entry(
    "organization",
    messaging.deleteRealmExport,
    attempt(
      "an export of no organization",
      () => ({ export_id: 999_999 }),
      adminsOnly(MUST_BE_ADMIN, badRequestError("Invalid data export ID"), badRequestError("Invalid data export ID")),
    ),
  ),
  entry(
    "organization",
    identity.getExportConsents,
    attempt("the members' consents", () => ({}), adminsOnly(MUST_BE_ADMIN, "allowed", "allowed")),
  ),
  entry(
    "organization",
    realmConfig.listChannelFolders,
    attempt("the folders", () => ({}), readable),
  ),
  entry(
    "organization",
    realmConfig.createChannelFolder,
    attempt("a folder", () => ({ name: "sneaky", description: "" }), adminsOnly(MUST_BE_ADMIN, "skip")),
  ),
  entry(
    "organization",
    realmConfig.updateChannelFolder,
    attempt(
      "the organization's folder",
      (w) => ({ channel_folder_id: w.ids.channelFolder, name: "defaced" }),
      adminsOnly(MUST_BE_ADMIN, badRequestError("Invalid channel folder ID")),
    ),
  ),
  // Zulip ignores ids of no folder of the caller's organization
  entry(
    "organization",
    realmConfig.reorderChannelFolders,
    attempt(
      "the organization's folders",
      (w) => ({ order: [w.ids.channelFolder] }),
      adminsOnly(MUST_BE_ADMIN, "allowed"),
    ),
  ),
  entry(
    "organization",
    realmConfig.listProfileFields,
    attempt("the fields", () => ({}), readable),
  ),
  entry(
    "organization",
    realmConfig.createProfileField,
    attempt("a field", () => ({ name: "Sneaky", field_type: 1 }), adminsOnly(MUST_BE_ADMIN, "skip")),
  ),
  entry(
    "organization",
    realmConfig.reorderProfileFields,
    attempt(
      "the organization's fields",
      (w) => ({ order: [w.ids.profileField] }),
      // Zulip ignores ids of no field of the caller's organization (the outsider's has none)
      adminsOnly(MUST_BE_ADMIN, "allowed"),
    ),
  ),
  entry(
    "organization",
    realmConfig.updateProfileField,
    attempt(
      "the organization's field",
      (w) => ({ field_id: w.ids.profileField, name: "Defaced" }),
      (a, w) => adminsOnly(MUST_BE_ADMIN, badRequestError(`Field id ${w.ids.profileField} not found.`))(a, w),
    ),
  ),
  entry(
    "organization",
    realmConfig.deleteProfileField,
    attempt(
      "the organization's field",
      (w) => ({ field_id: w.ids.profileField }),
      (a, w) => adminsOnly(MUST_BE_ADMIN, badRequestError(`Field id ${w.ids.profileField} not found.`))(a, w),
    ),
  ),
  // Linkifiers and code playgrounds: Zulip's require_realm_admin on every change.
  entry(
    "organization",
    realmConfig.listLinkifiers,
    attempt("the linkifiers", () => ({}), readable),
  ),
  entry(
    "organization",
    realmConfig.listLegacyFilters,
    attempt("the linkifiers", () => ({}), readable),
  ),
  entry(
    "organization",
    realmConfig.createLinkifier,
    attempt(
      "a linkifier",
      () => ({ pattern: "sneaky(?P<id>[0-9]+)", url_template: "https://evil.example/{id}" }),
      adminsOnly(MUST_BE_ADMIN, "skip"),
    ),
  ),
  entry(
    "organization",
    realmConfig.updateLinkifier,
    attempt(
      "the organization's linkifier",
      (w) => ({ filter_id: w.ids.linkifier, pattern: "#(?P<id>[0-9]+)", url_template: "https://evil.example/{id}" }),
      adminsOnly(MUST_BE_ADMIN, LINKIFIER_NOT_FOUND),
    ),
  ),
  entry(
    "organization",
    realmConfig.deleteLinkifier,
    attempt(
      "the organization's linkifier",
      (w) => ({ filter_id: w.ids.linkifier }),
      adminsOnly(MUST_BE_ADMIN, LINKIFIER_NOT_FOUND),
    ),
  ),
  entry(
    "organization",
    realmConfig.reorderLinkifiers,
    attempt(
      "the organization's linkifiers",
      (w) => ({ ordered_linkifier_ids: [w.ids.linkifier] }),
      adminsOnly(
        MUST_BE_ADMIN,
        badRequestError("The ordered list must enumerate all existing linkifiers exactly once"),
      ),
    ),
  ),
  entry(
    "organization",
    realmConfig.createPlayground,
    attempt(
      "a playground",
      () => ({ name: "Sneaky", pygments_language: "Rust", url_template: "https://evil.example/?c={code}" }),
      adminsOnly(MUST_BE_ADMIN, "skip"),
    ),
  ),
  entry(
    "organization",
    realmConfig.deletePlayground,
    attempt(
      "the organization's playground",
      (w) => ({ playground_id: w.ids.playground }),
      adminsOnly(MUST_BE_ADMIN, badRequestError("Invalid playground")),
    ),
  ),

  // Avatars: only one's own can be changed (Zulip's set_avatar_backend and delete_avatar_backend)
  ownData(
    "uploads and emoji",
    identity.setAvatar,
    "the caller's own avatar",
    attempt("an avatar of one's own", () => withFile({}, avatarImage()), readable),
  ),
  ownData(
    "uploads and emoji",
    identity.deleteAvatar,
    "the caller's own avatar",
    attempt("one's own avatar", () => ({}), readable),
  ),

  // Uploads: the victim's file, linked only from messages no attacker received or may read.
  ownData(
    "uploads and emoji",
    messaging.uploadFile,
    "stores the caller's own file",
    attempt(
      "a file of one's own",
      () => withFile({}, new File(["mine"], "mine.txt", { type: "text/plain" })),
      readable,
    ),
  ),
  entry(
    "uploads and emoji",
    messaging.temporaryUploadUrl,
    attempt(
      "the victim's file",
      (w) => ({ realm_id_str: w.ids.upload.realmIdStr, filename: w.ids.upload.filename }),
      // Path ids are looked up in the caller's organization, so the outsider's has no such file
      // (Zulip, whose path ids are server-wide, answers 403: 404 tells the outsider less).
      exceptFor(NOT_AUTHORIZED_TO_VIEW_FILE, { outsider: FILE_NOT_FOUND }),
    ),
  ),
  ownData(
    "uploads and emoji",
    messaging.listAttachments,
    "the caller's own uploads",
    attempt("the caller's uploads", () => ({}), readable),
  ),
  // Zulip's access_attachment_by_id(needs_owner=True): anyone else's is "Invalid attachment"
  entry(
    "uploads and emoji",
    messaging.removeAttachment,
    attempt(
      "the victim's upload",
      (w) => ({ attachment_id: w.ids.upload.attachmentId }),
      every(badRequestError("Invalid attachment")),
    ),
  ),
  entry(
    "uploads and emoji",
    realmConfig.listRealmEmoji,
    attempt("the custom emoji", () => ({}), readable),
  ),
  // check_add_realm_emoji: guests are not in can_add_custom_emoji_group; the name is taken for everyone else
  entry(
    "uploads and emoji",
    realmConfig.addRealmEmoji,
    attempt(
      "the victim's emoji name",
      (w) => withFile({ emoji_name: w.ids.victimEmoji }, emojiImage()),
      exceptFor(badRequestError("A custom emoji with this name already exists."), {
        guest: INSUFFICIENT,
        outsider: "skip",
      }),
    ),
  ),
  // check_remove_custom_emoji: administrators and the emoji's author
  entry(
    "uploads and emoji",
    realmConfig.removeRealmEmoji,
    attempt(
      "the victim's emoji",
      (w) => ({ emoji_name: w.ids.victimEmoji }),
      (a, w) =>
        adminsOnly(badRequestError("Must be an organization administrator or emoji author"), {
          status: 404,
          code: "BAD_REQUEST",
          msg: `Emoji '${w.ids.victimEmoji}' does not exist`,
        })(a, w),
    ),
  ),

  ownData(
    "organization",
    realmConfig.getServerSettings,
    "anonymous",
    attempt("the server's settings", () => ({}), readable),
  ),

  // Event queues and typing.
  ownData(
    "events and typing",
    notifications.registerQueue,
    "registers the caller's queue",
    attempt("everything", () => ({}), readable),
    attempt(
      "every public channel's events, with avatars",
      () => ({ all_public_streams: true, include_subscribers: true, client_gravatar: false }),
      readable,
    ),
  ),
  entry(
    "events and typing",
    notifications.getEvents,
    attempt(
      "the victim's queue",
      (w) => ({ queue_id: w.ids.victimQueue, last_event_id: -1, dont_block: true }),
      (a, w) =>
        a === "outsider" ? badQueue(w) : badRequestError("You are not authorized to get events from this queue"),
    ),
  ),
  entry(
    "events and typing",
    notifications.deleteQueue,
    attempt(
      "the victim's queue",
      (w) => ({ queue_id: w.ids.victimQueue }),
      (a, w) => (a === "outsider" ? badQueue(w) : badRequestError("You are not authorized to access this queue")),
    ),
  ),
  entry(
    "events and typing",
    notifications.setTypingStatus,
    attempt(
      "typing in the private channel",
      (w) => ({ type: "stream", op: "start", stream_id: w.ids.privateChannel, topic: "t" }),
      every(INVALID_CHANNEL),
    ),
    attempt(
      "typing to another organization's user",
      (w) => ({ type: "direct", op: "start", to: [w.users.victim.userId] }),
      (a, w) => (a === "outsider" ? unknownRecipient(w) : "allowed"),
    ),
  ),
];
