/**
 * Widgets and submessages (Zulip's zerver/lib/widget.py, zerver/views/submessage.py,
 * zerver/actions/submessage.py; its test_submessage.py and test_widgets.py):
 * a /poll or /todo message carries its widget, POST /submessage attaches
 * votes and tasks by Zulip's rules, and the message's recipients hear of them.
 */
import { messaging } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel, makeCast } from "./helpers";

let org: TestOrganization;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let guest: TestUser;
let kitchen: number;
beforeAll(async () => {
  org = await testOrganization();
  ({ alice, bob, carol, guest } = await makeCast(org));
  kitchen = await createChannel(org, alice, "kitchen", [alice.userId, bob.userId]);
});
afterAll(() => org?.stop());

const send = async (user: TestUser, content: string) =>
  (await org.call(messaging.sendMessage, { type: "stream", to: kitchen, topic: "lunch", content }, user)).id;
const attach = (user: TestUser, message_id: number, content: unknown, msg_type = "widget") =>
  org.call(
    messaging.sendSubmessage,
    { message_id, msg_type, content: typeof content === "string" ? content : JSON.stringify(content) },
    user,
  );
const submessagesOf = async (user: TestUser, id: number) =>
  (await org.call(messaging.getMessage, { message_id: id }, user)).message.submessages;
const widget = (sender: TestUser, messageId: number, content: string) => ({
  id: expect.any(Number) as number,
  message_id: messageId,
  sender_id: sender.userId,
  msg_type: "widget",
  content,
});

describe("a message starting with a widget command", () => {
  it("/poll carries the poll's question and options (list markers dropped) in its message event and every read", async () => {
    const reader = await EventReader.register(org.api(bob), { event_types: ["message"] });
    const id = await send(alice, "/poll What for lunch?\nPizza\n- Tacos\n\n* Café crème");
    const poll =
      '{"widget_type": "poll", "extra_data": {"question": "What for lunch?", "options": ["Pizza", "Tacos", "Caf\\u00e9 cr\\u00e8me"]}}';
    const expected = [widget(alice, id, poll)];
    const [event] = await reader.until((events) => events.length >= 1);
    expect((event!.message as { submessages: unknown }).submessages).toEqual(expected);
    expect(await submessagesOf(bob, id)).toEqual(expected);
    // a channel's newest page (the instances' recent messages) and messages by id
    const page = await org.call(
      messaging.getMessages,
      { anchor: "newest", num_before: 5, num_after: 0, narrow: [{ operator: "channel", operand: kitchen }] },
      bob,
    );
    expect(page.messages.find((m) => m.id === id)!.submessages).toEqual(expected);
  });

  it("/todo carries the list's title and tasks, a task's description after its first ': '", async () => {
    const id = await send(alice, "/todo Groceries\n- Milk: two liters: cold\nBread");
    const todo =
      '{"widget_type": "todo", "extra_data": {"task_list_title": "Groceries", "tasks": [{"task": "Milk", "desc": "two liters: cold"}, {"task": "Bread", "desc": ""}]}}';
    expect(await submessagesOf(alice, id)).toEqual([widget(alice, id, todo)]);
  });

  it("a widget's content cannot be edited; its topic can", async () => {
    const id = await send(alice, "/poll Games?\nYES\nNO");
    await expectZulipError(
      org.call(messaging.updateMessage, { message_id: id, content: "/poll Games?\nYES\nNO\nMaybe" }, alice),
      badRequestError("Widgets cannot be edited."),
    );
    await org.call(messaging.updateMessage, { message_id: id, topic: "games" }, alice);
  });

  it("/poll alone has an empty question; other commands and text before the command make no widget", async () => {
    const bare = await send(alice, "/poll");
    expect(await submessagesOf(alice, bare)).toEqual([
      widget(alice, bare, '{"widget_type": "poll", "extra_data": {"question": "", "options": []}}'),
    ]);
    for (const content of ["/polls are fun", " /poll indented", "see /poll", "/me waves"]) {
      expect(await submessagesOf(alice, await send(alice, content))).toEqual([]);
    }
  });
});

describe("POST /messages with widget_content", () => {
  const sendWidget = (widget_content: string) =>
    org.call(
      messaging.sendMessage,
      { type: "stream", to: kitchen, topic: "bots", content: "Pick one", widget_content },
      alice,
    );

  it("a zform of choices becomes the message's widget in place of its content's", async () => {
    const zform = {
      widget_type: "zform",
      extra_data: { type: "choices", heading: "Pick", choices: [{ short_name: "A", long_name: "Apple", reply: "a" }] },
    };
    const { id } = await sendWidget(JSON.stringify(zform));
    expect(await submessagesOf(bob, id)).toEqual([
      widget(
        alice,
        id,
        '{"widget_type": "zform", "extra_data": {"type": "choices", "heading": "Pick", "choices": [{"short_name": "A", "long_name": "Apple", "reply": "a"}]}}',
      ),
    ]);
  });

  it("refuses what check_widget_content refuses, with its messages after 'Widgets: '", async () => {
    const refusals: Array<[string, string]> = [
      ["{{{{{{", "Widgets: API programmer sent invalid JSON content"],
      ['{"color": "red"}', "Widgets: widget_type is not in widget_content"],
      ['{"widget_type": "poll", "extra_data": {}}', "Widgets: unknown widget type: poll"],
      ['{"widget_type": "zform", "extra_data": {}}', "Widgets: zform is missing type field"],
      [
        '{"widget_type": "zform", "extra_data": {"type": "choices", "heading": "H", "choices": [99]}}',
        'Widgets: extra_data["choices"][0] is not a dict',
      ],
    ];
    for (const [content, msg] of refusals) await expectZulipError(sendWidget(content), badRequestError(msg));
  });
});

describe("POST /submessage", () => {
  it("a poll's votes and options from readers, heard by the message's recipients in order", async () => {
    const id = await send(alice, "/poll Tea or coffee?\nTea\nCoffee");
    const [aliceEvents, bobEvents] = await Promise.all([
      EventReader.register(org.api(alice), { event_types: ["submessage"] }),
      EventReader.register(org.api(bob), { event_types: ["submessage"] }),
    ]);
    await attach(bob, id, { type: "vote", key: "canned,1", vote: 1 });
    await attach(bob, id, { type: "new_option", option: "Water", idx: 1 });
    await attach(alice, id, { type: "question", question: "Tea, coffee or water?" });
    await attach(alice, id, { type: "vote", key: `${bob.userId},1`, vote: -1 });
    const stored = await submessagesOf(bob, id);
    expect(stored.map((s) => [s.sender_id, JSON.parse(s.content) as unknown])).toEqual([
      [alice.userId, expect.objectContaining({ widget_type: "poll" })],
      [bob.userId, { type: "vote", key: "canned,1", vote: 1 }],
      [bob.userId, { type: "new_option", option: "Water", idx: 1 }],
      [alice.userId, { type: "question", question: "Tea, coffee or water?" }],
      [alice.userId, { type: "vote", key: `${bob.userId},1`, vote: -1 }],
    ]);
    for (const reader of [aliceEvents, bobEvents]) {
      const events = await reader.until((e) => e.length >= 4);
      expect(events.map(({ id: _, ...e }) => e)).toEqual(
        stored.slice(1).map((s) => ({
          type: "submessage",
          msg_type: "widget",
          message_id: id,
          submessage_id: s.id,
          sender_id: s.sender_id,
          content: s.content,
        })),
      );
    }
  });

  it("a todo list's tasks and strikes from readers; only its author retitles it", async () => {
    const id = await send(alice, "/todo Chores");
    await attach(bob, id, { type: "new_task", key: 2, task: "Dishes", desc: "", completed: false });
    await attach(bob, id, { type: "strike", key: `2,${bob.userId}` });
    await expectZulipError(
      attach(bob, id, { type: "new_task_list_title", title: "Mine" }),
      badRequestError("You can't edit the task list title unless you are the author."),
    );
    await attach(alice, id, { type: "new_task_list_title", title: "House chores" });
    expect((await submessagesOf(alice, id)).map((s) => s.sender_id)).toEqual([
      alice.userId,
      bob.userId,
      bob.userId,
      alice.userId,
    ]);
    await expectZulipError(
      attach(bob, id, { type: "new_task", key: 1001, task: "x", desc: "", completed: false }),
      badRequestError('todo data["key"] is too large'),
    );
    await expectZulipError(
      attach(bob, id, { type: "new_task", key: 3, task: "x", desc: "" }),
      badRequestError("completed key is missing from todo data"),
    );
    await expectZulipError(
      attach(bob, id, { type: "strike", key: 3 }),
      badRequestError('todo data["key"] is not a string'),
    );
    await expectZulipError(attach(bob, id, { type: "vote" }), badRequestError("Unknown type for todo data: vote"));
  });

  it("refuses a poll change the widget does not know, with Zulip's messages", async () => {
    const id = await send(alice, "/poll Which day?");
    const refusals: Array<[unknown, string]> = [
      ["not json", "Invalid json for submessage"],
      [[1, 2], "poll data is not a dict"],
      [{ key: "x" }, "type key is missing from poll data"],
      [{ type: 5 }, 'poll data["type"] is not a string'],
      [{ type: "bogus" }, "Unknown type for poll data: bogus"],
      [{ type: "vote", key: "x", vote: 2 }, 'Invalid poll data["vote"]'],
      [{ type: "vote", key: "x", vote: "1" }, 'poll data["vote"] is not an integer'],
      [{ type: "vote", key: "x", vote: 1, extra: true }, "Unexpected arguments: extra"],
      [{ type: "new_option", option: "Friday", idx: -1 }, 'poll data["idx"] is too small'],
      [{ type: "question", question: "Whose day?" }, "You can't edit a question unless you are the author."],
    ];
    for (const [content, msg] of refusals) {
      await expectZulipError(attach(bob, id, content), badRequestError(msg));
    }
    expect(await submessagesOf(alice, id)).toHaveLength(1);
  });

  it("takes any JSON on a message without a widget, once its sender attached the first", async () => {
    const id = await send(alice, "plain text");
    const first = badRequestError("You cannot attach a submessage to this message.");
    await expectZulipError(attach(bob, id, { anything: 1 }, "custom"), first);
    await attach(alice, id, { anything: 1 }, "custom");
    await attach(bob, id, [1, 2], "custom");
    expect((await submessagesOf(bob, id)).map((s) => [s.msg_type, s.sender_id, s.content])).toEqual([
      ["custom", alice.userId, '{"anything":1}'],
      ["custom", bob.userId, "[1,2]"],
    ]);
  });

  it("is refused for messages the caller may not read, as if they did not exist", async () => {
    const poll = await send(alice, "/poll Secret?");
    const direct = (
      await org.call(messaging.sendMessage, { type: "private", to: [bob.userId], content: "/poll Just us?" }, alice)
    ).id;
    const invalid = badRequestError("Invalid message(s)");
    // the guest is not subscribed to the public channel; Carol is not in the direct conversation
    await expectZulipError(attach(guest, poll, { type: "vote", key: "canned,0", vote: 1 }), invalid);
    await expectZulipError(attach(carol, direct, { type: "vote", key: "canned,0", vote: 1 }), invalid);
    await expectZulipError(attach(bob, 999_999_999, { type: "vote", key: "canned,0", vote: 1 }), invalid);
    // a member who may read the channel's history votes without being subscribed
    await attach(carol, poll, { type: "vote", key: "canned,0", vote: 1 });
    await attach(bob, direct, { type: "vote", key: "canned,0", vote: 1 });
  });
});
