/**
 * Topics policies (Zulip's get_stream_topics_policy): a channel's own
 * allow_empty_topic / disable_empty_topic / empty_topic_only, or the
 * organization's realm_topics_policy for "inherit", for sends, moves and
 * content edits (check_message, build_message_edit_request).
 */
import { messaging, notifications, type ParamsIn, type realmConfig } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import type { ChannelDoc } from "../src/channels/channel.schema";
import { checkTopicAllowed, topicsPolicyOf } from "../src/messages/message-content";
import { createChannel } from "./helpers";

let org: TestOrganization;
let alice: TestUser;
let open: number, strict: number, only: number;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  open = await createChannel(org, alice, "open", [alice.userId]);
  strict = await createChannel(org, alice, "strict", [alice.userId], { topics_policy: "disable_empty_topic" });
  only = await createChannel(org, alice, "only", [alice.userId], { topics_policy: "empty_topic_only" });
});
afterAll(() => org?.stop());

const send = (to: number, topic: string, content = "hi") =>
  org.call(messaging.sendMessage, { type: "stream", to, topic, content }, alice);
const edit = (params: ParamsIn<typeof messaging.updateMessage>) => org.call(messaging.updateMessage, params, alice);
const placeOf = async (id: number) => {
  const { message } = await org.call(messaging.getMessage, { message_id: id, allow_empty_topic_name: true }, alice);
  return message.type === "stream" ? [message.stream_id, message.subject] : null;
};
const NO_EMPTY_TOPIC = badRequestError("Sending messages to the general chat is not allowed in this channel.");
const EMPTY_TOPIC_ONLY = badRequestError("Only the general chat topic is allowed in this channel.");

describe("topics_policy", () => {
  it("inherit follows the organization's topics policy: allow_empty_topic by default", async () => {
    const state = (await org.call(notifications.registerQueue, { fetch_event_types: ["realm"] }, alice)) as unknown as {
      realm_topics_policy: string;
    };
    expect(state.realm_topics_policy).toBe("allow_empty_topic");
    const { id } = await send(open, "general chat");
    expect(await placeOf(id)).toEqual([open, ""]);
    await edit({ message_id: id, topic: "named" });
    await edit({ message_id: id, topic: "" });
    expect(await placeOf(id)).toEqual([open, ""]);
  });

  it("disable_empty_topic refuses sends and moves into the empty topic, and changes nothing", async () => {
    await expectZulipError(send(strict, ""), NO_EMPTY_TOPIC);
    await expectZulipError(send(strict, "general chat"), NO_EMPTY_TOPIC);
    const { id } = await send(strict, "named");
    await expectZulipError(edit({ message_id: id, topic: "" }), NO_EMPTY_TOPIC);
    expect(await placeOf(id)).toEqual([strict, "named"]);
    // a move from another channel keeps the empty topic: refused; a named one is taken
    const { id: empty } = await send(open, "");
    await expectZulipError(edit({ message_id: empty, stream_id: strict }), NO_EMPTY_TOPIC);
    expect(await placeOf(empty)).toEqual([open, ""]);
    await edit({ message_id: empty, stream_id: strict, topic: "moved" });
    expect(await placeOf(empty)).toEqual([strict, "moved"]);
  });

  it("empty_topic_only refuses any other topic for sends and moves", async () => {
    await expectZulipError(send(only, "named"), EMPTY_TOPIC_ONLY);
    const { id } = await send(only, "");
    await expectZulipError(edit({ message_id: id, topic: "named" }), EMPTY_TOPIC_ONLY);
    await edit({ message_id: id, content: "edited" });
    const { id: named } = await send(open, "named");
    await expectZulipError(edit({ message_id: named, stream_id: only }), EMPTY_TOPIC_ONLY);
    expect(await placeOf(named)).toEqual([open, "named"]);
    await edit({ message_id: named, stream_id: only, topic: "general chat" });
    expect(await placeOf(named)).toEqual([only, ""]);
  });
});

describe("topicsPolicyOf and checkTopicAllowed", () => {
  // No operation changes the organization's topics policy yet: its effect, checked on the functions.
  const settings = (topics_policy: realmConfig.RealmSettings["topics_policy"]) =>
    ({ topics_policy }) as realmConfig.RealmSettings;
  const channel = (topicsPolicy: ChannelDoc["topicsPolicy"]) => ({ topicsPolicy }) as ChannelDoc;

  it("a channel with inherit takes the organization's policy; its own policy wins otherwise", () => {
    expect(topicsPolicyOf(channel("inherit"), settings("disable_empty_topic"))).toBe("disable_empty_topic");
    expect(topicsPolicyOf(channel("inherit"), settings("allow_empty_topic"))).toBe("allow_empty_topic");
    expect(topicsPolicyOf(channel("allow_empty_topic"), settings("disable_empty_topic"))).toBe("allow_empty_topic");
    expect(topicsPolicyOf(channel("empty_topic_only"), settings("disable_empty_topic"))).toBe("empty_topic_only");
  });

  it("the empty topic is refused to messages arriving in it, not to a content edit of one already there", () => {
    const strictRealm = settings("disable_empty_topic");
    expect(() => checkTopicAllowed("", strictRealm, channel("inherit"), true)).toThrow(
      "Sending messages to the general chat is not allowed in this channel.",
    );
    expect(() => checkTopicAllowed("", strictRealm, channel("inherit"), false)).not.toThrow();
    expect(() => checkTopicAllowed("", strictRealm, channel("allow_empty_topic"), true)).not.toThrow();
    expect(() => checkTopicAllowed("named", settings("allow_empty_topic"), channel("empty_topic_only"), false)).toThrow(
      "Only the general chat topic is allowed in this channel.",
    );
  });
});
