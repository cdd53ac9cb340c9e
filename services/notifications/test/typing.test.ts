import { ok } from "@teamchat/shared/src/testing/api";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { makeUser, type TestUser } from "../../../test/support/users";
import { alertWords, publish } from "./helpers";

let sys: TestSystem;
let owner: TestUser;
/** subscribed to the channel, receives typing notifications */
let other: TestUser;
/** subscribed to the channel, receives_typing_notifications off */
let quiet: TestUser;
/** not subscribed to the channel */
let outsider: TestUser;
let channelId: number;
let messageId: number;
beforeAll(async () => {
  sys = await startSystem({ env: { RATE_LIMIT_REQUESTS: "10000" } });
  owner = { ...sys.owner, fullName: "Test Owner" };
  [other, quiet, outsider] = [
    await makeUser(sys, "other"),
    await makeUser(sys, "quiet"),
    await makeUser(sys, "outsider"),
  ];
  ok(await sys.api(quiet).patch("/settings", { receives_typing_notifications: false }));
  const subscribers = [owner.userId, other.userId, quiet.userId];
  channelId = ok(await sys.api(owner).post("/channels/create", { name: "lunch room", subscribers })).id as number;
  messageId = ok(
    await sys.api(owner).post("/messages", { type: "channel", to: channelId, topic: "edited topic", content: "hi" }),
  ).id as number;
});
afterAll(() => sys?.stop());

/** A queue of `u` for typing events, and alert_words for the marker of `nothingFor`. */
const listen = (u: TestUser, params: Record<string, unknown> = {}) =>
  EventReader.register(sys.api(u), { event_types: ["alert_words", "typing", "typing_edit_message"], ...params });

/** Waits for `u`'s queue to hold exactly `event`. */
const receives = async (reader: EventReader, event: Omit<ZulipEvent, "id">) =>
  expect(await reader.until((events) => events.length > 0)).toEqual([{ ...event, id: 0 }]);

/**
 * Asserts that these queues got nothing: a marker published after the call is
 * appended after anything the call published (one notifications instance
 * appends an organization's events in arrival order), so once the marker is
 * there, an event that did not come never will.
 */
async function nothingFor(...listeners: Array<[TestUser, EventReader]>) {
  publish(sys, [...new Set(listeners.map(([u]) => u.userId))], alertWords("marker"));
  for (const [, reader] of listeners) await receives(reader, alertWords("marker"));
}

describe("POST /typing", () => {
  it("direct: the recipients (sender included, as in Zulip) who receive typing notifications get Zulip's event", async () => {
    const [mine, theirs, quietQueue, outside] = await Promise.all(
      [owner, other, quiet, outsider].map((u) => listen(u)),
    );
    ok(await sys.api(owner).post("/typing", { op: "start", to: [other.userId, quiet.userId] }));
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
    ok(await sys.api(owner).post("/typing", { type: "channel", op: "stop", stream_id: channelId, topic: "lunch" }));
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
    const api = sys.api(owner);
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
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
    for (const [params, error] of cases) {
      const res = await api.post("/typing", params);
      expect({ params, status: res.status, body: res.body }).toEqual({
        params,
        status: 400,
        body: { result: "error", ...error },
      });
    }
  });
});

describe("POST /messages/{message_id}/typing", () => {
  it("sends typing_edit_message to the message's audience who receive typing notifications", async () => {
    const [mine, theirs, quietQueue, outside] = await Promise.all(
      [owner, other, quiet, outsider].map((u) => listen(u)),
    );
    ok(await sys.api(owner).post(`/messages/${messageId}/typing`, { op: "start" }));
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
    const bad = await sys.api(owner).post(`/messages/${messageId}/typing`, { op: "maybe" });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ result: "error", code: "BAD_REQUEST", msg: "Invalid op" });
  });
});
