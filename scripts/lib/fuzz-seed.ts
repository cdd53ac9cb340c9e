/**
 * The data `npm run fuzz` runs against: people of every role, public and
 * private channels with messages (channel and direct, a poll and a todo list), reactions, a user group,
 * drafts, a scheduled message, a reminder, a moderation request channel, a saved snippet, a channel folder, a custom
 * profile field, invitations, a navigation view, alert words, a realm export, a logged-in device and event queues. Most of it
 * belongs to or is visible to the fuzzing administrator, so that requests
 * naming these ids reach the handlers' real work, not only their "not found".
 */
import { identity, messaging, notifications, realmConfig } from "@teamchat/shared";
import type { TestOrganization, TestUser } from "../../test/support/organization";

/** The ids generated requests are steered to (see fuzz_hooks.py), by path parameter name. */
export type SeededIds = Record<string, Array<number | string>>;

export interface Seeded {
  fuzzer: TestUser;
  ids: SeededIds;
}

export async function seedOrganization(org: TestOrganization): Promise<Seeded> {
  const fuzzer = await org.makeUser("fuzzer", 200, "Fuzzing Administrator");
  const member = await org.makeUser("member", 400, "Mary Member");
  const moderator = await org.makeUser("moderator", 300, "Mo Moderator");
  const guest = await org.makeUser("guest", 600, "Gus Guest");
  const everyone = [fuzzer, member, moderator, guest].map((u) => u.userId);

  const folder = await org.call(realmConfig.createChannelFolder, { name: "Projects", description: "work" }, fuzzer);
  const general = await org.call(
    messaging.createChannel,
    { name: "general", subscribers: everyone, folder_id: folder.channel_folder_id },
    fuzzer,
  );
  const design = await org.call(messaging.createChannel, { name: "design", subscribers: [fuzzer.userId] }, fuzzer);
  // the channel zulip.yaml's examples name, so that example requests reach a real one
  await org.call(messaging.createChannel, { name: "Denmark", subscribers: everyone }, fuzzer);
  await org.call(
    messaging.subscribe,
    { subscriptions: [{ name: "secret" }], invite_only: true, principals: [fuzzer.userId, member.userId] },
    fuzzer,
  );
  await org.call(messaging.subscribe, { subscriptions: [{ name: "vault" }], invite_only: true }, member);
  const { streams } = await org.call(messaging.getStreams, { include_all: true }, org.owner);

  const messageIds: number[] = [];
  for (const [i, to] of ["general", "design", "secret", "Denmark"].entries()) {
    const sender = i % 2 ? member : fuzzer;
    const content = `message ${i} with **markdown**, a [link](https://example.com) and @**Mary Member**`;
    messageIds.push(
      (await org.call(messaging.sendMessage, { type: "stream", to, topic: `topic ${i}`, content }, sender)).id,
    );
  }
  messageIds.push(
    (await org.call(messaging.sendMessage, { type: "private", to: [member.userId], content: "dm" }, fuzzer)).id,
  );
  messageIds.push(
    (await org.call(messaging.sendMessage, { type: "stream", to: "vault", topic: "hidden", content: "secret" }, member))
      .id,
  );
  // widgets: POST /submessage's votes and tasks are checked by their rules
  for (const content of ["/poll Lunch?\nPizza\nTacos", "/todo Chores\nDishes: today"]) {
    messageIds.push(
      (await org.call(messaging.sendMessage, { type: "stream", to: "general", topic: "widgets", content }, fuzzer)).id,
    );
  }
  await org.call(messaging.addReaction, { message_id: messageIds[0]!, emoji_name: "smile" }, member);
  await org.call(messaging.addReaction, { message_id: messageIds[0]!, emoji_name: "heart" }, fuzzer);

  const group = await org.call(
    identity.createUserGroup,
    { name: "team", description: "the team", members: [fuzzer.userId, member.userId] },
    fuzzer,
  );
  const bot = await org.call(identity.createBot, { full_name: "Fuzz Bot", short_name: "fuzzbot" }, fuzzer);
  const drafts = await org.call(
    messaging.createDrafts,
    { drafts: [{ type: "stream", to: [general.id], topic: "draft", content: "draft text", timestamp: 1_700_000_000 }] },
    fuzzer,
  );
  const scheduled = await org.call(
    messaging.createScheduledMessage,
    {
      type: "stream",
      to: general.id,
      topic: "later",
      content: "scheduled",
      scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 86_400 * 30,
    },
    fuzzer,
  );
  const reminder = await org.call(
    messaging.createReminder,
    { message_id: messageIds[0]!, scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 86_400 * 30 },
    fuzzer,
  );
  // message reports go to a private channel (Zulip's moderation_request_channel)
  const moderation = await org.call(
    messaging.createChannel,
    { name: "moderation", subscribers: [fuzzer.userId], invite_only: true },
    fuzzer,
  );
  await org.call(realmConfig.updateRealm, { moderation_request_channel_id: moderation.id }, fuzzer);
  const snippet = await org.call(messaging.createSavedSnippet, { title: "Hello", content: "Welcome!" }, fuzzer);
  const field = await org.call(realmConfig.createProfileField, { name: "Team", field_type: 1 }, fuzzer);
  await org.call(identity.sendInvites, { invitee_emails: "invited@example.org", stream_ids: [general.id] }, fuzzer);
  await org.call(identity.createInviteLink, { stream_ids: [general.id] }, fuzzer);
  const { invites } = await org.call(identity.getInvites, {}, fuzzer);
  await org.call(identity.addNavigationView, { fragment: "narrow/is/starred", is_pinned: true }, fuzzer);
  await org.call(messaging.addAlertWords, { alert_words: ["fuzz", "urgent"] }, fuzzer);
  const realmExport = await org.call(messaging.exportRealm, {}, fuzzer);
  const device = await org.call(identity.registerClientDevice, {}, fuzzer);

  // queues that GET /events reads (and DELETE /events may delete): the events the fuzzing
  // causes are checked against zulip.yaml as they come back
  const queueIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    queueIds.push((await org.call(notifications.registerQueue, { fetch_event_types: ["realm"] }, fuzzer)).queue_id!);
  }

  const userIds = [...everyone, org.owner.userId, bot.user_id];
  return {
    fuzzer,
    ids: {
      user_id: userIds,
      muted_user_id: userIds,
      bot_id: [bot.user_id],
      stream_id: [...streams.map((s) => s.stream_id), design.id],
      message_id: messageIds,
      user_group_id: [group.group_id],
      draft_id: drafts.ids,
      scheduled_message_id: [scheduled.scheduled_message_id],
      reminder_id: [reminder.reminder_id],
      saved_snippet_id: [snippet.saved_snippet_id],
      channel_folder_id: [folder.channel_folder_id],
      field_id: [field.id],
      invite_id: invites.map((i) => i.id),
      export_id: [realmExport.id],
      device_id: [device.device_id],
      fragment: ["narrow/is/starred", "inbox"],
      email: [member.email, guest.email, fuzzer.email],
      user_id_or_email: [member.userId, guest.email],
      queue_id: queueIds,
      last_event_id: [-1],
    },
  };
}
