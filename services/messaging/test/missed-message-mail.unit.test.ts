/**
 * Zulip's missed-message emails as render.ts writes them: buckets per
 * conversation, subjects (group DMs, resolved topics, the organization's name)
 * and the text when content is hidden; and a batch's notices as the mailer
 * gathers them from its stored items and the user's rows listing them.
 */
import type { notifications } from "@teamchat/shared";
import { batchNoticesOf, listsItem } from "../src/missed-message-emails/batch-notices";
import { roundKey, type PendingRow } from "../src/missed-message-emails/pending-email.repository";
import { bucketsOf, renderMissedMessageMail } from "../src/missed-message-emails/render";

const ctx = {
  realmName: "Acme",
  realmUri: "http://acme.example",
  showContent: true,
  contentDisabledByRealm: false,
  includeRealmName: false,
};

let nextId = 1;
const notice = (
  message: Partial<notifications.MissedMessageSnapshot>,
  trigger: notifications.MissedMessageTrigger = "private_message",
): notifications.MissedMessageNotice => {
  const id = nextId++;
  return {
    realmId: 1,
    userId: 9,
    trigger,
    message: {
      id,
      senderId: 2,
      senderFullName: "Ada",
      senderEmail: "ada@acme.example",
      type: "private",
      directRecipientIds: [2, 9],
      content: `message ${id}`,
      renderedContent: `<p>message ${id}</p>`,
      dateSent: 1_700_000_000 + id,
      ...message,
    },
  };
};
const channel = (topic: string, trigger: notifications.MissedMessageTrigger = "mentioned") =>
  notice({ type: "stream", channelId: 5, channelName: "general", topic, directRecipientIds: undefined }, trigger);

describe("bucketsOf", () => {
  it("groups a topic case-insensitively, a one-to-one DM per sender, a group DM by its members; oldest conversation first", () => {
    const a = channel("Deploy");
    const b = notice({ senderId: 3, senderFullName: "Bo", directRecipientIds: [3, 9] });
    const c = channel("deploy");
    const d = notice({ directRecipientIds: [9, 2, 3] });
    const e = notice({});
    const buckets = bucketsOf([e, d, c, b, a]);
    expect(buckets.map((bucket) => bucket.map((n) => n.message.id))).toEqual([
      [b.message.id],
      [a.message.id, c.message.id],
      [d.message.id],
      [e.message.id],
    ]);
  });
});

describe("renderMissedMessageMail", () => {
  it("names a group DM's others as Zulip does", () => {
    const group = [notice({ directRecipientIds: [2, 3, 4, 5, 9] })];
    expect(renderMissedMessageMail(group, ctx, ["Ada", "Bo"]).subject).toBe("Group DMs with Ada and Bo");
    expect(renderMissedMessageMail(group, ctx, ["Ada", "Bo", "Cy"]).subject).toBe("Group DMs with Ada, Bo, and Cy");
    expect(renderMissedMessageMail(group, ctx, ["Ada", "Bo", "Cy", "Di"]).subject).toBe(
      "Group DMs with Ada, Bo, and 2 others",
    );
  });

  it("marks a resolved topic and adds the organization's name when asked", () => {
    const mail = renderMissedMessageMail([channel("✔ outage")], { ...ctx, includeRealmName: true });
    expect(mail.subject).toBe("[resolved] #general > outage [Acme]");
    expect(mail.text).toContain("http://acme.example/#narrow/channel/5-general/topic/.E2.9C.94.20outage");
  });

  it("leaves the content out, saying who hid it", () => {
    const hidden = renderMissedMessageMail([notice({ content: "secret" })], {
      ...ctx,
      showContent: false,
      contentDisabledByRealm: true,
    });
    expect(hidden.subject).toBe("New messages");
    expect(hidden.text).not.toContain("secret");
    expect(hidden.text).toContain("your organization hides message content in email notifications");
    expect(hidden.text).toContain("View or reply in Acme Zulip:");
  });

  it("prefixes a sender's first message in a row with their name", () => {
    const bucket = bucketsOf([notice({ content: "one" }), notice({ content: "two" })])[0]!;
    const { text } = renderMissedMessageMail(bucket, ctx);
    expect(text.startsWith("Ada: one\n\ntwo\n")).toBe(true);
  });

  it("names the smallest group whose mention notified the user, unless a message mentions them personally", () => {
    const byGroup = (topic: string, id: number, name: string, membersCount: number) => ({
      ...channel(topic),
      mentionedUserGroup: { id, name, membersCount },
    });
    const reason = (bucket: notifications.MissedMessageNotice[]) =>
      renderMissedMessageMail(bucket, ctx)
        .text.split("\n")
        .find((l) => l.startsWith("You are receiving this"));
    const groups = [byGroup("t", 1, "everyone-ish", 30), byGroup("t", 2, "leads", 3), byGroup("t", 3, "pair", 3)];
    // equal sizes: the first met keeps it, as Zulip's strict comparison does
    expect(reason(groups)).toBe("You are receiving this because @leads was mentioned.");
    expect(reason([...groups, channel("t")])).toBe("You are receiving this because you were personally mentioned.");
  });
});

describe("a batch's notices", () => {
  let storedAt = 1_700_000_000_000;
  const item = (
    id: string,
    message: notifications.MissedMessageSnapshot,
    users: Array<[number, notifications.MissedMessageTrigger]>,
    round = "r1",
  ) => ({
    _id: id,
    realmId: 1,
    message,
    users: users.map(([userId, trigger]) => ({ userId, trigger, batchingSeconds: 120 })),
    round,
    storedAt: new Date(storedAt++),
  });

  it("gives each message once, with the latest stored item's trigger and content, as Zulip's handle_missedmessage_emails keeps the last event per message", () => {
    const sent = notice({
      type: "stream",
      channelId: 3,
      channelName: "triage",
      topic: "bugs",
      content: "a crash",
    }).message;
    const other = notice({}).message;
    const edited = { ...sent, content: "a crash, @**Quinn**" };
    const first = item("email:1:sent", sent, [
      [9, "stream_email_notify"],
      [10, "stream_email_notify"],
    ]);
    const notices = batchNoticesOf(1, 9, [
      item("email:1:other", other, [[10, "private_message"]]),
      item("email:edit:7", edited, [[9, "mentioned"]]),
      first,
    ]);
    expect(notices).toEqual([
      {
        notice: { realmId: 1, userId: 9, trigger: "mentioned", message: edited },
        itemIds: ["email:1:sent", "email:edit:7"],
      },
    ]);
  });

  it("an item is listed by the round that stored it, not by the rows of its delivery again", () => {
    const row = (round: string): PendingRow => ({ id: `${round}:1:9`, round, storedAt: new Date(), notices: [] });
    const stored = item("email:1:5", notice({}).message, [[9, "private_message"]], "r-first");
    expect(listsItem(row("r-first"), stored, 9)).toBe(true);
    expect(listsItem(row("r-again"), stored, 9)).toBe(false);
  });

  it("a row stored before rows kept their notices lists an item the user is still pending on", () => {
    const earlier: PendingRow = { id: "1:9:0b6a", round: undefined, itemIds: ["email:1:6"] };
    const { round: _round, ...stored } = item("email:1:6", notice({}).message, [[9, "private_message"]]);
    expect(listsItem(earlier, { ...stored, pendingUserIds: [9, 10] }, 9)).toBe(true);
    expect(listsItem(earlier, { ...stored, pendingUserIds: [10] }, 9)).toBe(false);
    // an item stored since, which its own round lists
    expect(listsItem(earlier, item("email:1:7", notice({}).message, [[9, "private_message"]]), 9)).toBe(false);
  });

  it("rows' ids sort by their round's time, after those of rows stored before rounds had keys", () => {
    const at = new Date("2026-11-29T12:00:00Z");
    const ids = [
      `${roundKey(new Date(at.getTime() + 1))}:1:9`,
      `${roundKey(at)}:1:9`,
      `${roundKey(new Date(at.getTime() - 1))}:12:9`,
      "999:9:0b6a",
    ];
    const before = roundKey(at, "");
    expect(ids.filter((id) => id < before)).toEqual(ids.slice(2));
    expect([...ids].sort()).toEqual([...ids].reverse());
  });
});
