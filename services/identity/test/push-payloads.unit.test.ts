/**
 * The text and payloads of push notifications as Zulip's
 * zerver/lib/push_notifications.py makes them: get_mobile_push_content on
 * rendered messages, truncation, the APNs alert's title and subtitle per
 * trigger, group direct messages' pm_users, and the newest 200 ids of a removal.
 */
import type { notifications } from "@teamchat/shared";
import { mobilePushContent, truncateContent } from "../src/push-notifications/mobile-push-content";
import {
  apnsMessagePayload,
  e2eeMessagePayload,
  gcmMessagePayload,
  removedMessageIds,
  type NotifiedMessage,
} from "../src/push-notifications/payloads";

describe("mobilePushContent (Zulip's get_mobile_push_content)", () => {
  it.each([
    ["<p>Hello <strong>world</strong> &amp; you</p>", "Hello world & you"],
    ['<p><span aria-label="smile" class="emoji emoji-1f604" role="img" title="smile">:smile:</span></p>', "😄"],
    ['<p><span class="emoji emoji-1f1e9-1f1f0">:flag_denmark:</span></p>', "🇩🇰"],
    ['<p><img alt=":zulip:" class="emoji" src="/static/zulip.png" title="zulip"> hi</p>', ":zulip: hi"],
    ["<blockquote>\n<p>only a quote</p>\n</blockquote>", "> only a quote\n"],
    ["<blockquote>\n<p>quoted</p>\n</blockquote>\n<p>my reply</p>", "[…]\nmy reply"],
    [
      '<p><span class="user-mention silent" data-user-id="8">Iago</span> <a href="http://x/#narrow/channel/1-a/topic/b/near/12">said</a>:</p>\n<blockquote>\n<p>quoted</p>\n</blockquote>\n<p>reply</p>',
      "[…]\nreply",
    ],
    ['<ol start="3">\n<li>three</li>\n<li>four</li>\n</ol>', "3. three\n4. four"],
    [
      '<div class="spoiler-block"><div class="spoiler-header">\n<p>Plot</p>\n</div><div class="spoiler-content" aria-hidden="true">\n<p>twist</p>\n</div></div>',
      "Plot (…)\n",
    ],
  ])("%s", (html, text) => {
    expect(mobilePushContent(html)).toBe(text);
  });

  it("truncates at 200 characters with an ellipsis", () => {
    expect(truncateContent("a".repeat(200))).toBe("a".repeat(200));
    expect(truncateContent("b".repeat(201))).toBe(`${"b".repeat(200)}…`);
  });
});

const realm = { id: 2, host: "chat.example.com", uri: "https://chat.example.com", name: "Example" };
const to = { realm, userId: 10 };
const snapshot = (extra: Partial<notifications.MissedMessageSnapshot>): notifications.MissedMessageSnapshot => ({
  id: 45,
  senderId: 6,
  senderFullName: "aaron",
  senderEmail: "aaron@example.com",
  type: "private",
  content: "hi",
  renderedContent: "<p>hi</p>",
  dateSent: 1754385395,
  ...extra,
});
const notified = (extra: Partial<NotifiedMessage>): NotifiedMessage => ({
  message: snapshot({}),
  trigger: "private_message",
  senderAvatarUrl: "https://secure.gravatar.com/avatar/x",
  participantNames: ["aaron", "Zoe"],
  ...extra,
});

describe("payloads", () => {
  it("a group direct message: the participants as the title, the sender as the subtitle, pm_users", () => {
    const n = notified({
      message: snapshot({ directRecipientIds: [10, 6, 3] }),
      participantNames: ["Zoe", "aaron", "Cordelia"],
    });
    expect(apnsMessagePayload(to, n).alert).toEqual({ title: "Cordelia, Zoe, aaron", subtitle: "aaron:", body: "hi" });
    expect(gcmMessagePayload(to, n).data).toMatchObject({ recipient_type: "private", pm_users: "3,6,10" });
    expect(e2eeMessagePayload(to, n)).toMatchObject({ recipient_type: "direct", recipient_user_ids: [3, 6, 10] });
  });

  it("the subtitle says why: a group mention, a wildcard mention, a followed topic", () => {
    const channel = snapshot({ type: "stream", channelId: 10, channelName: "Denmark", topic: "" });
    const subtitle = (extra: Partial<NotifiedMessage>) =>
      (apnsMessagePayload(to, notified({ message: channel, ...extra })).alert as { subtitle: string }).subtitle;
    expect(subtitle({ trigger: "mentioned", mentionedUserGroup: { id: 41, name: "support" } })).toBe(
      "aaron mentioned @support:",
    );
    expect(subtitle({ trigger: "stream_wildcard_mentioned" })).toBe("aaron mentioned everyone:");
    expect(subtitle({ trigger: "followed_topic_push_notify" })).toBe("aaron:");
    // the empty topic by its display name
    expect((apnsMessagePayload(to, notified({ message: channel })).alert as { title: string }).title).toBe(
      "#Denmark > general chat",
    );
    expect(
      e2eeMessagePayload(to, notified({ message: channel, mentionedUserGroup: { id: 41, name: "support" } })),
    ).toMatchObject({
      mentioned_user_group_id: 41,
      mentioned_user_group_name: "support",
    });
  });

  it("a removal keeps the newest 200 ids", () => {
    const ids = Array.from({ length: 250 }, (_, i) => 1000 - i);
    expect(removedMessageIds(ids)).toEqual(Array.from({ length: 200 }, (_, i) => 801 + i));
  });
});
