/**
 * The weekly digest's pieces as Zulip's zerver/lib/digest.py makes them: the
 * hot topics' scoring (senders first, then length, bots not counted), the
 * traffic that is enough for a mail, display_list, the digest weekday and
 * week, and the text when message content is hidden.
 */
import {
  enoughTraffic,
  hotTopics,
  topicsOf,
  weekOf,
  zulipWeekday,
  type DigestMessage,
} from "../src/digest/digest-content";
import { displayList, renderDigestMail } from "../src/digest/render";

const senders = new Map([
  [1, { fullName: "Ada", isBot: false }],
  [2, { fullName: "Ben", isBot: false }],
  [3, { fullName: "Cy", isBot: false }],
  [9, { fullName: "Feed Bot", isBot: true }],
]);
let nextId = 1;
const messages = (topic: string, senderIds: number[]): DigestMessage[] =>
  senderIds.map((senderId) => ({
    messageId: nextId++,
    senderId,
    topic,
    content: `in ${topic}`,
    renderedContent: `<p>in ${topic}</p>`,
  }));

describe("hot topics", () => {
  it("the two with the most human senders, then the longest, four at most, ties in channel order", () => {
    const topics = topicsOf(
      5,
      [
        ...messages("feed", [9, 9, 9, 9, 9, 9, 9]),
        ...messages("pair", [1, 2]),
        ...messages("solo", [1, 1, 1, 1]),
        ...messages("trio", [1, 2, 3]),
        ...messages("one", [3]),
        ...messages("other", [2]),
      ],
      senders,
    );
    expect(hotTopics(topics).map((t) => t.topic)).toEqual(["trio", "pair", "solo", "one"]);
  });

  it("keeps a topic's first two messages and counts its human messages and senders only", () => {
    const [topic] = topicsOf(5, messages("mixed", [9, 1, 2, 1]), senders);
    expect(topic!.sampleMessages.map((m) => m.senderId)).toEqual([9, 1]);
    expect(topic!.humanMessages).toBe(3);
    expect([...topic!.humanSenders].sort()).toEqual(["Ada", "Ben"]);
  });

  it("topics differing only in case are separate, as Zulip's topic_key", () => {
    const topics = topicsOf(5, [...messages("Deploy", [1]), ...messages("deploy", [2])], senders);
    expect(topics.map((t) => t.topic)).toEqual(["Deploy", "deploy"]);
  });
});

it("enough traffic: a new channel, else new messages when content is hidden, else a hot conversation", () => {
  expect(enoughTraffic(0, 1, 0, true)).toBe(true);
  expect(enoughTraffic(0, 0, 3, false)).toBe(true);
  expect(enoughTraffic(2, 0, 0, false)).toBe(false);
  expect(enoughTraffic(0, 0, 3, true)).toBe(false);
  expect(enoughTraffic(1, 0, 0, true)).toBe(true);
});

it("display_list: all names up to the limit, then the count of others", () => {
  expect(displayList(["Ada"], 4)).toBe("Ada");
  expect(displayList(["Ada", "Ben"], 4)).toBe("Ada and Ben");
  expect(displayList(["Ada", "Ben", "Cy", "Dee"], 4)).toBe("Ada, Ben, Cy and Dee");
  expect(displayList(["Ada", "Ben", "Cy", "Dee", "Eve"], 4)).toBe("Ada, Ben, Cy, Dee, and 1 other");
  expect(displayList(["Ada", "Ben", "Cy", "Dee", "Eve", "Fay"], 4)).toBe("Ada, Ben, Cy, Dee, and 2 others");
});

it("the digest weekday counts from Monday, and a week is keyed by its Monday (UTC)", () => {
  const sunday = new Date("2026-11-29T23:30:00Z");
  const monday = new Date("2026-11-30T00:10:00Z");
  expect(zulipWeekday(sunday)).toBe(6);
  expect(zulipWeekday(monday)).toBe(0);
  expect(weekOf(sunday)).toBe("2026-11-23");
  expect(weekOf(monday)).toBe("2026-11-30");
});

it("with message content hidden by the organization: the counts and why, no conversation", () => {
  const { subject, text } = renderDigestMail({
    realmName: "Acme",
    realmUri: "http://acme.example",
    unsubscribeUrl: "http://acme.example/accounts/unsubscribe/digest/0123456789abcdef01234567",
    showContent: false,
    contentDisabledByRealm: true,
    contentDisabledByUser: false,
    hotConversations: [],
    newChannels: [],
    newMessagesCount: 7,
  });
  expect(subject).toBe("Zulip digest for Acme");
  expect(text.split("\n").slice(0, 5)).toEqual([
    "You have 7 new messages in Acme.",
    "",
    "This email does not include message content because your organization hides message content in email notifications. See http://acme.example/help/hide-message-content-in-emails for more details.",
    "",
    "Log in to Zulip to catch up: http://acme.example.",
  ]);
  expect(text.split("\n").slice(-4)).toEqual([
    "Unsubscribe from digest emails:",
    "",
    "http://acme.example/accounts/unsubscribe/digest/0123456789abcdef01234567",
    "",
  ]);
});
