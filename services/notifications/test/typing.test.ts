import { identity, messaging, notifications, type ParamsIn } from "@teamchat/shared";
import { expectZulipError, type ExpectedZulipError } from "../../../test/support/call";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { catalogueEvents, noProfileFields } from "./helpers";

let org: TestOrganization;
let owner: TestUser;
/** subscribed to the channel, receives typing notifications */
let other: TestUser;
/** subscribed to the channel, receives_typing_notifications off */
let quiet: TestUser;
/** not subscribed to the channel */
let outsider: TestUser;
let channelId: number;
let messageId: number;
let publish: ReturnType<typeof catalogueEvents>;
beforeAll(async () => {
  org = await testOrganization();
  owner = org.owner;
  publish = catalogueEvents(org);
  [other, quiet, outsider] = [await org.makeUser("other"), await org.makeUser("quiet"), await org.makeUser("outsider")];
  await org.call(identity.updateSettings, { receives_typing_notifications: false }, quiet);
  const subscribers = [owner.userId, other.userId, quiet.userId];
  channelId = (await org.call(messaging.createChannel, { name: "lunch room", subscribers }, owner)).id;
  messageId = (
    await org.call(
      messaging.sendMessage,
      { type: "channel", to: channelId, topic: "edited topic", content: "hi" },
      owner,
    )
  ).id;
});
afterAll(() => org?.stop());

/** A queue of `u` for typing events, and custom_profile_fields for the marker of `nothingFor`. */
const listen = (u: TestUser, params: Record<string, unknown> = {}) =>
  EventReader.register(org.api(u), {
    event_types: ["custom_profile_fields", "typing", "typing_edit_message"],
    ...params,
  });

/** Waits for `u`'s queue to hold exactly `event`. */
const receives = async (reader: EventReader, event: Omit<ZulipEvent, "id">) =>
  expect(await reader.until((events) => events.length > 0)).toEqual([{ ...event, id: expect.any(Number) }]);

/**
 * Asserts that these queues got nothing: a marker published after the call is
 * appended after anything the call published (one notifications instance
 * appends an organization's events in arrival order), so once the marker is
 * there, an event that did not come never will.
 */
async function nothingFor(...listeners: Array<[TestUser, EventReader]>) {
  publish.noProfileFields([...new Set(listeners.map(([u]) => u.userId))]);
  for (const [, reader] of listeners) await receives(reader, noProfileFields);
}

type TypingParams = ParamsIn<typeof notifications.setTypingStatus>;
/** An expected error, all of whose statuses here are 400. */
type Refusal = Pick<ExpectedZulipError, "code" | "msg"> & { var_name?: string };

describe("POST /typing", () => {
  it("direct: the recipients (sender included, as in Zulip) who receive typing notifications get Zulip's event", async () => {
    const [mine, theirs, quietQueue, outside] = await Promise.all(
      [owner, other, quiet, outsider].map((u) => listen(u)),
    );
    await org.call(notifications.setTypingStatus, { op: "start", to: [other.userId, quiet.userId] }, owner);
    const expected = {
      type: "typing",
      op: "start",
      message_type: "direct",
      sender: { user_id: owner.userId, email: owner.email },
      recipients: [
        { user_id: other.userId, email: other.email },
        { user_id: quiet.userId, email: quiet.email },
        { user_id: owner.userId, email: owner.email },
      ],
    };
    await receives(theirs, expected);
    await receives(mine, expected);
    await nothingFor([quiet, quietQueue], [outsider, outside]);
  });

  it("channel: subscribers who receive typing notifications, on queues that declared stream_typing_notifications", async () => {
    const capable = { client_capabilities: { stream_typing_notifications: true } };
    const [mine, theirs, legacy, quietQueue, outside] = await Promise.all([
      listen(owner, capable),
      listen(other, capable),
      listen(other),
      listen(quiet, capable),
      listen(outsider, capable),
    ]);
    await org.call(
      notifications.setTypingStatus,
      { type: "channel", op: "stop", stream_id: channelId, topic: "lunch" },
      owner,
    );
    const expected = {
      type: "typing",
      op: "stop",
      message_type: "stream",
      sender: { user_id: owner.userId, email: owner.email },
      stream_id: channelId,
      topic: "lunch",
    };
    await receives(theirs, expected);
    await receives(mine, expected);
    await nothingFor([other, legacy], [quiet, quietQueue], [outsider, outside]);
  });

  it("refuses bad requests with Zulip's errors", async () => {
    const refused: Array<[TypingParams, Refusal]> = [
      [{ op: "start" }, { code: "BAD_REQUEST", msg: "Missing 'to' argument" }],
      [
        { op: "start", to: [] },
        { code: "BAD_REQUEST", msg: "Empty 'to' list" },
      ],
      [
        { op: "start", to: [999999] },
        { code: "BAD_REQUEST", msg: "Invalid user ID 999999" },
      ],
      [
        { op: "start", type: "stream", topic: "x" },
        { code: "BAD_REQUEST", msg: "Missing 'stream_id' argument" },
      ],
      [
        { op: "start", type: "channel", stream_id: 7 },
        { code: "BAD_REQUEST", msg: "Missing topic" },
      ],
    ];
    for (const [params, error] of refused) {
      await expectZulipError(org.call(notifications.setTypingStatus, params, owner), { status: 400, ...error });
    }
    // what the contract's types refuse: raw HTTP, as a client could send it
    const malformed: Array<[Record<string, unknown>, Refusal]> = [
      [
        { op: "go", to: [other.userId] },
        { code: "BAD_REQUEST", msg: "Invalid op" },
      ],
      [
        { op: "start", type: "huddle", to: [other.userId] },
        { code: "BAD_REQUEST", msg: "Invalid type" },
      ],
      [{ to: [other.userId] }, { code: "REQUEST_VARIABLE_MISSING", msg: "Missing 'op' argument", var_name: "op" }],
    ];
    for (const [params, error] of malformed) {
      await expectZulipError(org.api(owner).post("/typing", params), { status: 400, ...error });
    }
  });
});

describe("POST /messages/{message_id}/typing", () => {
  it("sends typing_edit_message to the message's audience who receive typing notifications", async () => {
    const [mine, theirs, quietQueue, outside] = await Promise.all(
      [owner, other, quiet, outsider].map((u) => listen(u)),
    );
    await org.call(notifications.setMessageEditTypingStatus, { message_id: messageId, op: "start" }, owner);
    const expected = {
      type: "typing_edit_message",
      op: "start",
      sender_id: owner.userId,
      message_id: messageId,
      recipient: { type: "channel", channel_id: channelId, topic: "edited topic" },
    };
    await receives(theirs, expected);
    await receives(mine, expected);
    await nothingFor([quiet, quietQueue], [outsider, outside]);
    // what the contract's types refuse: raw HTTP
    await expectZulipError(org.api(owner).post(`/messages/${messageId}/typing`, { op: "maybe" }), {
      status: 400,
      code: "BAD_REQUEST",
      msg: "Invalid op",
    });
  });
});
