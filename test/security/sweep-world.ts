/**
 * The world the authorization sweep (authorization-sweep.test.ts) attacks: an
 * organization where a member, the victim, owns private things marked with
 * secret strings, one attacker per role, a second organization whose owner
 * aims at the first one's objects by id, and the checks the sweep makes on
 * every reply and event: no secret a role may not see, no real email address.
 */
import { identity, messaging, notifications, realmConfig, type Contract, type ParamsIn } from "@teamchat/shared";
import type { Body } from "@teamchat/shared/src/testing/api";
import { callContract, ZulipErrorReply } from "../support/call";
import { EventReader } from "../support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../support/organization";

/** Who attacks. `outsider` is the owner of another organization, calling there with this one's ids. */
export const ATTACKERS = ["owner", "administrator", "moderator", "member", "guest", "bot", "outsider"] as const;
export type Attacker = (typeof ATTACKERS)[number];

/**
 * The secrets. Content (messages, topics, drafts, scheduled messages, snippets,
 * alert words, navigation views, an invitation link, an uploaded file's name and bytes) only the victim and the
 * people they wrote to may see; a private channel's name and description, which
 * Zulip also shows to administrators (metadata access); a public channel's name
 * and messages, which no one outside the organization, nor a guest not
 * subscribed to it, may see.
 */
export const SECRET = "zqsecretcontent";
export const CHANNEL_SECRET = "zqprivatechannel";
export const ORGANIZATION_SECRET = "zqorganizationonly";

/** The victim's alert word and push token (per-user data another user's call must not reach). */
export const VICTIM_ALERT_WORD = `${SECRET}word`;
export const VICTIM_PUSH_TOKEN = "c0ffee".repeat(8);

/** the victim's custom emoji */
const VICTIM_EMOJI = "victim_emoji";

/** A 1×1 PNG's first bytes: enough for an emoji image (the image is not decoded). */
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex");
export const emojiImage = () => new File([PNG], "emoji.png", { type: "image/png" });

/** A whole 1×1 PNG, which decodes: an avatar image. */
const AVATAR_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);
export const avatarImage = () => new File([AVATAR_PNG], "avatar.png", { type: "image/png" });

/** An upload operation's params with its file part, as clients send it (the gateway makes it `files`). */
export const withFile = <P>(params: P, file: File): P => ({ ...params, file }) as P;

/** whom the victim invited */
const VICTIM_INVITEE = "invitee@example.com";

/** Zulip's email_address_visibility "nobody": no one else may see a user's real address (can_access_delivery_email). */
const EMAIL_VISIBLE_TO_NOBODY = 4;

export interface World {
  org: TestOrganization;
  other: TestOrganization;
  users: Record<Exclude<Attacker, "outsider" | "bot">, TestUser> & {
    victim: TestUser;
    /** the other end of the victim's direct messages */
    confidant: TestUser;
    deactivated: TestUser;
  };
  bot: TestUser;
  /** objects of the victim (or of the organization, for the outsider) that attackers aim at */
  ids: {
    privateChannel: number;
    privateChannelName: string;
    privateTopic: string;
    publicChannel: number;
    publicChannelName: string;
    privateMessage: number;
    directMessage: number;
    publicMessage: number;
    /** the attacking member's own message in the public channel */
    memberMessage: number;
    draft: number;
    scheduledMessage: number;
    /** the victim's reminder of the private channel's message (its text quotes the secret) */
    reminder: number;
    /** the victim's logged-in device (POST /register_client_device) */
    device: number;
    savedSnippet: number;
    navigationView: string;
    victimGroup: number;
    victimBot: number;
    invite: number;
    multiuseInvite: number;
    /** the administrator's reusable link: its key admits anyone, so only administrators may see it */
    inviteLink: string;
    channelFolder: number;
    profileField: number;
    /** the victim's upload (its name and content hold SECRET), linked from a direct and a private channel message */
    upload: { realmIdStr: string; filename: string; url: string; attachmentId: number };
    /** a custom emoji the victim added */
    victimEmoji: string;
    /** the organization's linkifier and code playground (the owner's) */
    linkifier: number;
    playground: number;
    /** an event queue of the victim's */
    victimQueue: string;
  };
  /** the real addresses of the first organization's people (bots' addresses are public in Zulip) */
  realEmails: Map<number, string>;
  /** secrets an attacker saw, with where: filled by `attempt` and `scanEvents` */
  leaks: string[];
}

/** What an attacker may see of the secrets, as Zulip decides it. */
function forbiddenSecrets(w: World, attacker: Attacker): string[] {
  const secrets = [SECRET];
  // administrators see every invitation (Zulip's GET /invites); others only their own
  if (attacker !== "owner" && attacker !== "administrator") {
    secrets.push(CHANNEL_SECRET, inviteKey(w.ids.inviteLink), VICTIM_INVITEE);
  }
  // guests see only the public channels they are subscribed to (Zulip's guest access)
  if (attacker === "outsider" || attacker === "guest") secrets.push(ORGANIZATION_SECRET);
  return secrets;
}

/** The confirmation key of an invitation link (`<url>/join/<key>/`). */
const inviteKey = (link: string): string => link.split("/join/")[1]!.replace(/\/$/, "");

/** The credentials an attacker calls with, and the organization they call. */
export function attackerOf(w: World, attacker: Attacker): { org: TestOrganization; user: TestUser } {
  if (attacker === "outsider") return { org: w.other, user: w.other.owner };
  if (attacker === "bot") return { org: w.org, user: w.bot };
  return { org: w.org, user: w.users[attacker] };
}

/** The strings of a request, longest first: what a reply may echo. */
const stringsOf = (value: unknown): string[] =>
  typeof value === "string"
    ? [value]
    : Array.isArray(value) || (value && typeof value === "object")
      ? Object.values(value).flatMap(stringsOf)
      : [];

/**
 * Records a leak for every secret or real email address of someone else in
 * `value` that `attacker` may not see. What the attacker sent in `sent` is cut
 * out first: an error naming the channel the caller asked for is no leak.
 */
export function scanForLeaks(w: World, attacker: Attacker, where: string, value: unknown, sent: unknown = {}): void {
  const echoed = stringsOf(sent)
    .map((s) => s.toLowerCase())
    .sort((a, b) => b.length - a.length);
  const text = echoed.reduce((t, s) => (s ? t.replaceAll(s, "") : t), JSON.stringify(value).toLowerCase());
  const own = attackerOf(w, attacker).user.userId;
  const forbidden = [
    ...forbiddenSecrets(w, attacker),
    ...[...w.realEmails].filter(([userId]) => userId !== own || attacker === "outsider").map(([, email]) => email),
  ];
  // The outsider's own address is the same text as this organization's owner's (both owner@example.com).
  const outsiderEmail = w.other.owner.email.toLowerCase();
  for (const secret of forbidden) {
    if (attacker === "outsider" && secret === outsiderEmail) continue;
    if (text.includes(secret.toLowerCase())) {
      w.leaks.push(`${attacker} saw "${secret}" in ${where}: ${JSON.stringify(value).slice(0, 400)}`);
    }
  }
}

/** The outcome of one attempt: the success body, or the error reply. */
export type Outcome = { ok: true; body: Body } | { ok: false; error: ZulipErrorReply };

/** `contract` as `attacker`; every reply, success or error, is scanned for leaks. */
export async function attempt<C extends Contract>(
  w: World,
  attacker: Attacker,
  contract: C,
  params: ParamsIn<C>,
): Promise<Outcome> {
  const { org, user } = attackerOf(w, attacker);
  const where = `${contract.http!.method} ${contract.http!.path}`;
  try {
    const body = await callContract(org.api(user), contract, params);
    scanForLeaks(w, attacker, where, body, params);
    return { ok: true, body };
  } catch (err) {
    if (!(err instanceof ZulipErrorReply)) throw err;
    scanForLeaks(w, attacker, where, err.body, params);
    return { ok: false, error: err };
  }
}

/** One event queue per attacker, registered after the world is built, for what they hear during the sweep. */
export async function registerAttackerQueues(w: World): Promise<Map<Attacker, EventReader>> {
  const readers = await Promise.all(
    ATTACKERS.map(async (attacker) => {
      const { org, user } = attackerOf(w, attacker);
      // (what register answers is scanned by the table's POST /register attempts)
      return [attacker, await EventReader.register(org.api(user), {})] as const;
    }),
  );
  return new Map(readers);
}

/** Reads what each attacker's queue holds now and scans it. */
export async function scanEvents(w: World, queues: Map<Attacker, EventReader>): Promise<void> {
  for (const [attacker, reader] of queues) {
    const events = await reader.drain();
    scanForLeaks(w, attacker, "GET /events", events);
  }
}

/** The organization's people: the owner makes each with its role; every address visible to nobody. */
async function makePeople(org: TestOrganization): Promise<World["users"]> {
  const [administrator, moderator, member, guest, victim, confidant, deactivated] = await Promise.all([
    org.makeUser("Administrator", 200),
    org.makeUser("Moderator", 300),
    org.makeUser("Member", 400),
    org.makeUser("Guest", 600),
    org.makeUser("Victim", 400),
    org.makeUser("Confidant", 400),
    org.makeUser("Deactivated", 400),
  ]);
  const users = { owner: org.owner, administrator, moderator, member, guest, victim, confidant, deactivated };
  await Promise.all(
    Object.values(users).map((user) =>
      org.call(identity.updateSettings, { email_address_visibility: EMAIL_VISIBLE_TO_NOBODY }, user),
    ),
  );
  return users;
}

/** Builds the world: two organizations, the people, the victim's private things. */
export async function buildWorld(): Promise<World> {
  const [org, other] = await Promise.all([testOrganization(), testOrganization()]);
  const users = await makePeople(org);
  const { victim, confidant, member, owner } = users;
  const call = <C extends Contract>(contract: C, params: ParamsIn<C>, as: TestUser) => org.call(contract, params, as);

  const bot = await call(identity.createBot, { full_name: "Member's bot", short_name: "memberbot" }, member);
  const botUser: TestUser = {
    email: (await call(identity.getBots, {}, member)).bots.find((b) => b.api_key === bot.api_key)!.username,
    apiKey: bot.api_key,
    userId: bot.user_id,
    password: "",
    fullName: "Member's bot",
  };
  const victimBot = await call(identity.createBot, { full_name: "Victim's bot", short_name: "victimbot" }, victim);

  const privateChannelName = `${CHANNEL_SECRET} room`;
  const privateChannel = (
    await call(
      messaging.createChannel,
      {
        name: privateChannelName,
        description: `about ${CHANNEL_SECRET}`,
        subscribers: [victim.userId, confidant.userId],
        invite_only: true,
        history_public_to_subscribers: false,
      },
      victim,
    )
  ).id;
  const publicChannelName = `${ORGANIZATION_SECRET} hall`;
  const publicChannel = (
    await call(
      messaging.createChannel,
      { name: publicChannelName, subscribers: [victim.userId, member.userId] },
      victim,
    )
  ).id;
  const privateTopic = `${SECRET} topic`;
  const privateMessage = (
    await call(
      messaging.sendMessage,
      { type: "stream", to: privateChannel, topic: privateTopic, content: `${SECRET} in a private channel` },
      victim,
    )
  ).id;
  const directMessage = (
    await call(messaging.sendMessage, { type: "private", to: [confidant.userId], content: `${SECRET} direct` }, victim)
  ).id;
  const publicMessage = (
    await call(
      messaging.sendMessage,
      { type: "stream", to: publicChannel, topic: "hello", content: `${ORGANIZATION_SECRET} public message` },
      victim,
    )
  ).id;

  const memberMessage = (
    await call(messaging.sendMessage, { type: "stream", to: publicChannel, topic: "mine", content: "mine" }, member)
  ).id;

  const [draft] = (
    await call(
      messaging.createDrafts,
      { drafts: [{ type: "stream", to: [privateChannel], topic: privateTopic, content: `${SECRET} draft` }] },
      victim,
    )
  ).ids;
  const scheduledMessage = (
    await call(
      messaging.createScheduledMessage,
      {
        type: "stream",
        to: privateChannel,
        topic: privateTopic,
        content: `${SECRET} scheduled`,
        scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 86_400,
      },
      victim,
    )
  ).scheduled_message_id;
  const reminder = (
    await call(
      messaging.createReminder,
      { message_id: privateMessage, scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 86_400 },
      victim,
    )
  ).reminder_id;
  const device = (await call(identity.registerClientDevice, {}, victim)).device_id;
  const savedSnippet = (
    await call(messaging.createSavedSnippet, { title: `${SECRET} title`, content: `${SECRET} snippet` }, victim)
  ).saved_snippet_id;
  await call(messaging.addAlertWords, { alert_words: [VICTIM_ALERT_WORD] }, victim);
  await call(messaging.muteUser, { muted_user_id: confidant.userId }, victim);
  const navigationView = `narrow/channel/${privateChannel}`;
  await call(identity.addNavigationView, { fragment: navigationView, is_pinned: true, name: `${SECRET} view` }, victim);

  const victimGroup = (
    await call(
      identity.createUserGroup,
      { name: "victim's group", description: "a group the victim manages", members: [victim.userId] },
      victim,
    )
  ).group_id;
  await call(identity.sendInvites, { invitee_emails: VICTIM_INVITEE, stream_ids: [privateChannel] }, victim);
  // Members may not make reusable links (Zulip's can_create_multiuse_invite_group: administrators).
  const { invite_link: inviteLink } = await call(identity.createInviteLink, { stream_ids: [] }, users.administrator);
  const invites = (await call(identity.getInvites, {}, owner)).invites;
  const invite = invites.find((i) => !i.is_multiuse)!.id;
  const multiuseInvite = invites.find((i) => i.is_multiuse)!.id;

  // message reports go to the owner's private channel (Zulip's moderation_request_channel)
  const moderationChannel = (
    await call(messaging.createChannel, { name: "moderation", subscribers: [owner.userId], invite_only: true }, owner)
  ).id;
  await call(realmConfig.updateRealm, { moderation_request_channel_id: moderationChannel }, owner);

  const channelFolder = (await call(realmConfig.createChannelFolder, { name: "folder", description: "" }, owner))
    .channel_folder_id;
  const profileField = (await call(realmConfig.createProfileField, { name: "Phone", field_type: 1, hint: "" }, owner))
    .id;

  const uploaded = await call(
    messaging.uploadFile,
    withFile({}, new File([`${SECRET} in an uploaded file`], `${SECRET} notes.txt`, { type: "text/plain" })),
    victim,
  );
  await call(
    messaging.sendMessage,
    { type: "private", to: [confidant.userId], content: `[notes](${uploaded.url})` },
    victim,
  );
  await call(
    messaging.sendMessage,
    { type: "stream", to: privateChannel, topic: privateTopic, content: `[notes](${uploaded.url})` },
    victim,
  );
  const [realmIdStr, ...filename] = uploaded.url.slice("/user_uploads/".length).split("/");
  const attachmentId = (await call(messaging.listAttachments, {}, victim)).attachments[0]!.id;
  await call(realmConfig.addRealmEmoji, withFile({ emoji_name: VICTIM_EMOJI }, emojiImage()), victim);
  const linkifier = (
    await call(
      realmConfig.createLinkifier,
      { pattern: "#(?P<id>[0-9]+)", url_template: "https://example.com/{id}" },
      owner,
    )
  ).id;
  const playground = (
    await call(
      realmConfig.createPlayground,
      { name: "Python", pygments_language: "Python", url_template: "https://example.com/?code={code}" },
      owner,
    )
  ).id;

  await call(identity.deactivateUser, { user_id: users.deactivated.userId }, owner);
  const victimQueue = (await call(notifications.registerQueue, { event_types: ["message"] }, victim)).queue_id;

  const realEmails = new Map(
    Object.values(users)
      .filter((u) => u !== users.deactivated)
      .map((u) => [u.userId, u.email.toLowerCase()] as const),
  );
  return {
    org,
    other,
    users,
    bot: botUser,
    ids: {
      privateChannel,
      privateChannelName,
      privateTopic,
      publicChannel,
      publicChannelName,
      privateMessage,
      directMessage,
      publicMessage,
      memberMessage,
      draft: draft!,
      scheduledMessage,
      reminder,
      device,
      savedSnippet,
      navigationView,
      victimGroup,
      victimBot: victimBot.user_id,
      invite,
      multiuseInvite,
      inviteLink,
      channelFolder,
      profileField,
      upload: { realmIdStr: realmIdStr!, filename: filename.join("/"), url: uploaded.url, attachmentId },
      victimEmoji: VICTIM_EMOJI,
      linkifier,
      playground,
      victimQueue,
    },
    realEmails,
    leaks: [],
  };
}
