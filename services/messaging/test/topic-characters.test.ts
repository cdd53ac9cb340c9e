/**
 * Topics with characters Zulip refuses (zerver/lib/string_validation.py
 * check_stream_topic: control characters, lone surrogates and non-characters,
 * the position 1-based in code points, after Python's str.strip) in every
 * operation that takes a topic, through the HTTP API; and a message whose
 * topic was stored before that check still moves, with its notices.
 */
import { request as httpRequest } from "node:http";
import { messaging, type ParamsIn } from "@teamchat/shared";
import { basicAuth } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel, withMessagingDatabase } from "./helpers";

let org: TestOrganization;
let alice: TestUser;
let lab: number, annex: number;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  lab = await createChannel(org, alice, "lab", [alice.userId]);
  annex = await createChannel(org, alice, "annex", [alice.userId]);
});
afterAll(() => org?.stop());

const invalidAt = (position: number) => badRequestError(`Invalid character in topic, at position ${position}!`);

/** Topics Zulip refuses, and the position its error names. */
const REFUSED: Array<[string, string, number]> = [
  ["a NUL", "a\u0000b", 2],
  ["a newline inside", "editing\nfun", 8],
  ["a tab inside", "a\tb", 2],
  ["a carriage return inside", "ab\rc", 3],
  ["DEL", "x\u007f", 2],
  ["a C1 control (U+0085) inside", "a\u0085b", 2],
  ["an escape", "\u001b[31mred", 1],
  // U+001F is whitespace to Python's strip, not when inside
  ["U+001F inside", "a\u001fb", 2],
  ["a non-character", "a\ufdd0", 2],
  ["U+FFFE", "\ufffe", 1],
  ["a plane-16 non-character", "x\u{10ffff}", 2],
  // positions count code points, as Python does: the emoji is one character
  ["after an emoji", "🙂\u0001", 2],
];

/** Topics Zulip takes, and what it stores. */
const ACCEPTED: Array<[string, string, string]> = [
  ["surrounding newlines and tabs stripped", "\n\tclean\t\n", "clean"],
  // Python's str.strip removes U+001C-U+001F and U+0085 at the ends (they are whitespace to it)
  ["U+001F and U+0085 at the ends stripped", "\u001fends\u0085", "ends"],
  // U+FEFF is no whitespace to Python (it is to String.prototype.trim) and is printable (Cf)
  ["U+FEFF kept", "\ufeffbom", "\ufeffbom"],
  ["format characters and a surrogate pair kept", "a\u200db 🙂", "a\u200db 🙂"],
];

const channelMessages = async (channel: string) =>
  (
    await org.call(
      messaging.getMessages,
      {
        anchor: "newest",
        num_before: 100,
        num_after: 0,
        apply_markdown: false,
        narrow: [{ operator: "channel", operand: channel }],
      },
      alice,
    )
  ).messages;
const send = async (params: Partial<ParamsIn<typeof messaging.sendMessage>>) =>
  (await org.call(messaging.sendMessage, { type: "stream", to: "lab", topic: "t", content: "x", ...params }, alice)).id;
const topicOf = async (messageId: number) =>
  (await org.call(messaging.getMessage, { message_id: messageId, apply_markdown: false }, alice)).message.subject;
const scheduledOf = async () => (await org.call(messaging.getScheduledMessages, {}, alice)).scheduled_messages;
/** A POST with this JSON text as its body, as alice. */
function postJson(path: string, json: string): Promise<{ status: number; body: unknown }> {
  const api = org.api(alice);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${api.baseUrl}/api/v1${path}`,
      {
        method: "POST",
        headers: {
          authorization: basicAuth(alice),
          "content-type": "application/json",
          ...(api.host ? { host: api.host } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown }),
        );
      },
    );
    req.on("error", reject);
    req.end(json);
  });
}
const later = () => Math.floor(Date.now() / 1000) + 3600;

describe("POST /messages", () => {
  it.each(REFUSED)("refuses %s and stores nothing", async (_what, topic, position) => {
    const before = await channelMessages("lab");
    await expectZulipError(send({ topic }), invalidAt(position));
    expect(await channelMessages("lab")).toEqual(before);
  });

  it.each(ACCEPTED)("takes a topic with %s", async (_what, topic, stored) => {
    expect(await topicOf(await send({ topic }))).toBe(stored);
  });

  // a form cannot carry one (URLSearchParams sends U+FFFD, raw bytes are invalid UTF-8); a JSON body can
  it("refuses a lone surrogate sent in a JSON body", async () => {
    const before = await channelMessages("lab");
    const body = '{"type": "stream", "to": "lab", "topic": "a\\ud800b", "content": "x"}';
    expect(await postJson("/messages", body)).toEqual({
      status: 400,
      body: { result: "error", code: "BAD_REQUEST", msg: "Invalid character in topic, at position 2!" },
    });
    expect(await channelMessages("lab")).toEqual(before);
  });

  it("checks the topic before truncating it: a bad character past the 60th is still found", async () => {
    await expectZulipError(send({ topic: `${"a".repeat(70)}\n!` }), invalidAt(71));
  });
});

describe("PATCH /messages/{message_id}", () => {
  it.each(REFUSED)("refuses %s as a new topic; the message stays where it was", async (_what, topic, position) => {
    const id = await send({ topic: "stays" });
    await expectZulipError(org.call(messaging.updateMessage, { message_id: id, topic }, alice), invalidAt(position));
    await expectZulipError(
      org.call(
        messaging.updateMessage,
        { message_id: id, topic, stream_id: annex, propagate_mode: "change_all" },
        alice,
      ),
      invalidAt(position),
    );
    expect((await org.call(messaging.getMessage, { message_id: id }, alice)).message).toMatchObject({
      stream_id: lab,
      subject: "stays",
    });
  });

  it("takes a new topic whose surrounding whitespace Python strips", async () => {
    const id = await send({ topic: "before" });
    await org.call(messaging.updateMessage, { message_id: id, topic: "\u001c after \n" }, alice);
    expect(await topicOf(id)).toBe("after");
  });
});

describe("POST and PATCH /scheduled_messages", () => {
  it.each(REFUSED)("refuses %s when scheduling and when changing the topic", async (_what, topic, position) => {
    const before = await scheduledOf();
    const create = (t: string) =>
      org.call(
        messaging.createScheduledMessage,
        { type: "stream", to: lab, topic: t, content: "later", scheduled_delivery_timestamp: later() },
        alice,
      );
    await expectZulipError(create(topic), invalidAt(position));
    expect(await scheduledOf()).toEqual(before);

    const { scheduled_message_id } = await create("planned");
    const stored = await scheduledOf();
    await expectZulipError(
      org.call(messaging.updateScheduledMessage, { scheduled_message_id, topic }, alice),
      invalidAt(position),
    );
    expect(await scheduledOf()).toEqual(stored);
    await org.call(messaging.deleteScheduledMessage, { scheduled_message_id }, alice);
  });
});

describe("a topic stored before the check", () => {
  /** A message of "lab" whose topic is `topic`, as an older version of the server stored it. */
  async function legacyMessage(topic: string): Promise<number> {
    const id = await send({ topic: "placeholder", content: "from before" });
    await withMessagingDatabase(async (db) => {
      const where = { realmId: org.realm.id, messageId: id };
      await db.collection("messages").updateOne(where, { $set: { topic, topicKey: topic.toLowerCase() } });
    });
    return id;
  }

  it("moves to another topic, and both notices name it (its NUL shown as U+FFFD)", async () => {
    const id = await legacyMessage("old\u0000topic");
    await org.call(
      messaging.updateMessage,
      { message_id: id, topic: "renamed", propagate_mode: "change_all", send_notification_to_old_thread: true },
      alice,
    );
    const messages = await channelMessages("lab");
    const byTopic = (t: string) => messages.filter((m) => m.subject === t).map((m) => m.content);
    const mover = `@_**Alice|${alice.userId}**`;
    expect(byTopic("renamed")).toEqual([
      "from before",
      `This topic was moved here from [#lab > old\ufffdtopic](#narrow/channel/${lab}-lab/topic/old.00topic) by ${mover}.`,
    ]);
    expect(byTopic("old\u0000topic")).toEqual([`This topic was moved to #**lab>renamed** by ${mover}.`]);
  });

  it("moves to another channel keeping its topic, with its notices", async () => {
    const topic = "line\nbreak";
    const id = await legacyMessage(topic);
    await org.call(
      messaging.updateMessage,
      { message_id: id, stream_id: annex, propagate_mode: "change_all", send_notification_to_old_thread: true },
      alice,
    );
    expect(await topicOf(id)).toBe(topic);
    const moved = (await channelMessages("annex")).filter((m) => m.subject === topic).map((m) => m.content);
    expect(moved).toEqual([
      "from before",
      `This topic was moved here from [#lab > line\ufffdbreak](#narrow/channel/${lab}-lab/topic/line.0Abreak) by @_**Alice|${alice.userId}**.`,
    ]);
    expect((await channelMessages("lab")).filter((m) => m.subject === topic)).toHaveLength(1);
  });
});
