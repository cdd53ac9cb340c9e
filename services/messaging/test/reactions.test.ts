/**
 * Emoji reactions (Zulip's zerver/views/reactions.py, zerver/actions/reactions.py,
 * zerver/lib/emoji.py): POST and DELETE /messages/{id}/reactions, the reactions
 * messages show, and the reaction events.
 */
import { messaging, type ParamsIn } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel, makeCast } from "./helpers";

let org: TestOrganization;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let guest: TestUser;
let design: number;
let secret: number;
beforeAll(async () => {
  org = await testOrganization();
  ({ alice, bob, carol, guest } = await makeCast(org));
  design = await createChannel(org, alice, "design", [alice.userId, bob.userId]);
  secret = await createChannel(org, alice, "secret", [alice.userId, bob.userId], { invite_only: true });
});
afterAll(() => org?.stop());

type AddParams = Omit<ParamsIn<typeof messaging.addReaction>, "message_id">;
type RemoveParams = Omit<ParamsIn<typeof messaging.removeReaction>, "message_id">;
const react = (user: TestUser, message_id: number, params: AddParams) =>
  org.call(messaging.addReaction, { message_id, ...params }, user);
const unreact = (user: TestUser, message_id: number, params: RemoveParams) =>
  org.call(messaging.removeReaction, { message_id, ...params }, user);
const toChannel = async (stream: number, topic = "reactions") =>
  (await org.call(messaging.sendMessage, { type: "stream", to: stream, topic, content: "news" }, alice)).id;
const getOne = async (user: TestUser, id: number) =>
  (await org.call(messaging.getMessage, { message_id: id }, user)).message;
const reactionsOf = async (user: TestUser, id: number) => (await getOne(user, id)).reactions;
const unicode = (user: TestUser, emoji_name: string, emoji_code: string) => ({
  emoji_name,
  emoji_code,
  reaction_type: "unicode_emoji",
  user_id: user.userId,
});

describe("POST /messages/{message_id}/reactions", () => {
  it("adds by name alone, or by name, code and type, and messages show the reactions in the order added", async () => {
    const id = await toChannel(design);
    await react(alice, id, { emoji_name: "octopus" });
    await react(bob, id, { emoji_name: "+1", emoji_code: "1f44d", reaction_type: "unicode_emoji" });
    await react(bob, id, { emoji_name: "heart" });
    const expected = [unicode(alice, "octopus", "1f419"), unicode(bob, "+1", "1f44d"), unicode(bob, "heart", "2764")];
    expect(await reactionsOf(alice, id)).toEqual(expected);
    // a channel's newest page (each instance's recent messages) and messages by id
    const page = await org.call(
      messaging.getMessages,
      { anchor: "newest", num_before: 5, num_after: 0, narrow: [{ operator: "channel", operand: design }] },
      bob,
    );
    expect(page.messages.find((m) => m.id === id)!.reactions).toEqual(expected);
    const byId = await org.call(messaging.getMessages, { message_ids: [id] }, bob);
    expect(byId.messages[0]!.reactions).toEqual(expected);
  });

  it("takes the built-in zulip emoji by name, as zulip_extra_emoji and by its other spelling service_extra_emoji", async () => {
    const id = await toChannel(design);
    await react(alice, id, { emoji_name: "zulip" });
    await react(bob, id, { emoji_name: "zulip", emoji_code: "zulip", reaction_type: "service_extra_emoji" });
    const zulip = (user: TestUser) => ({
      emoji_name: "zulip",
      emoji_code: "zulip",
      reaction_type: "zulip_extra_emoji",
      user_id: user.userId,
    });
    expect(await reactionsOf(alice, id)).toEqual([zulip(alice), zulip(bob)]);
    await expectZulipError(
      react(bob, id, { emoji_name: "zulip", emoji_code: "zulip", reaction_type: "zulip_extra_emoji" }),
      badRequestError("Reaction already exists.", "REACTION_ALREADY_EXISTS"),
    );
  });

  it("refuses a reaction the user already has, however it is named", async () => {
    const id = await toChannel(design);
    await react(alice, id, { emoji_name: "tada" });
    const exists = badRequestError("Reaction already exists.", "REACTION_ALREADY_EXISTS");
    await expectZulipError(react(alice, id, { emoji_name: "tada" }), exists);
    await expectZulipError(
      react(alice, id, { emoji_name: "tada", emoji_code: "1f389", reaction_type: "unicode_emoji" }),
      exists,
    );
    expect(await reactionsOf(bob, id)).toEqual([unicode(alice, "tada", "1f389")]);
  });

  it("counts a second user's reaction with the same emoji as a vote, under the first one's name", async () => {
    const id = await toChannel(design);
    await react(alice, id, { emoji_name: "thumbs_up" });
    await react(bob, id, { emoji_name: "+1" });
    expect(await reactionsOf(alice, id)).toEqual([
      unicode(alice, "thumbs_up", "1f44d"),
      unicode(bob, "thumbs_up", "1f44d"),
    ]);
  });

  it("names emoji by Zulip's own table (tools/setup/emoji/emoji_names.py): its names, aliases and codes", async () => {
    const id = await toChannel(design);
    // a name gives one emoji: smile is U+1F642, not U+263A, whatever other emoji sets call it
    await expectZulipError(
      react(bob, id, { emoji_name: "smile", emoji_code: "263a", reaction_type: "unicode_emoji" }),
      badRequestError("Invalid emoji name."),
    );
    await expectZulipError(
      react(bob, id, { emoji_name: "fried_egg" }),
      badRequestError("Emoji 'fried_egg' does not exist"),
    );
    await react(alice, id, { emoji_name: "smile" });
    await react(alice, id, { emoji_name: "working_on_it" });
    await react(alice, id, { emoji_name: "gold" });
    await react(bob, id, { emoji_name: "smiling_face", emoji_code: "263a", reaction_type: "unicode_emoji" });
    expect(await reactionsOf(alice, id)).toEqual([
      unicode(alice, "smile", "1f642"),
      unicode(alice, "working_on_it", "1f6e0"),
      unicode(alice, "gold", "1f947"),
      unicode(bob, "smiling_face", "263a"),
    ]);
  });

  it("refuses unknown emoji, codes, names and types with Zulip's messages, and changes nothing", async () => {
    const id = await toChannel(design);
    await react(alice, id, { emoji_name: "octopus" });
    await expectZulipError(
      react(bob, id, { emoji_name: "no_such_emoji" }),
      badRequestError("Emoji 'no_such_emoji' does not exist"),
    );
    // a name is looked up whenever the code or the type is missing
    await expectZulipError(
      react(bob, id, { emoji_name: "no_such_emoji", emoji_code: "1f419" }),
      badRequestError("Emoji 'no_such_emoji' does not exist"),
    );
    await expectZulipError(
      react(bob, id, { emoji_name: "tada", emoji_code: "fffff", reaction_type: "unicode_emoji" }),
      badRequestError("Invalid emoji code."),
    );
    await expectZulipError(
      react(bob, id, { emoji_name: "tada", emoji_code: "1f44d", reaction_type: "unicode_emoji" }),
      badRequestError("Invalid emoji name."),
    );
    // Zulip stores codes without the U+FE0F variation selector
    await expectZulipError(
      react(bob, id, { emoji_name: "heart", emoji_code: "2764-fe0f", reaction_type: "unicode_emoji" }),
      badRequestError("Invalid emoji code."),
    );
    await expectZulipError(
      react(bob, id, { emoji_name: "zulip", emoji_code: "1f419", reaction_type: "zulip_extra_emoji" }),
      badRequestError("Invalid emoji code."),
    );
    await expectZulipError(
      react(bob, id, { emoji_name: "octopus", emoji_code: "zulip", reaction_type: "zulip_extra_emoji" }),
      badRequestError("Invalid emoji name."),
    );
    // no organization has custom emoji: every one is unknown
    await expectZulipError(
      react(bob, id, { emoji_name: "party_parrot", emoji_code: "1", reaction_type: "realm_emoji" }),
      badRequestError("Invalid custom emoji."),
    );
    await expectZulipError(
      react(bob, id, { emoji_name: "tada", reaction_type: "realm_emoji" }),
      badRequestError("Invalid custom emoji."),
    );
    await expectZulipError(
      react(bob, id, { emoji_name: "tada", emoji_code: "1f389", reaction_type: "sticker" }),
      badRequestError("Invalid emoji type."),
    );
    await expectZulipError(org.call(messaging.addReaction, { message_id: id } as never, bob), {
      status: 400,
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'emoji_name' argument",
      var_name: "emoji_name",
    });
    expect(await reactionsOf(bob, id)).toEqual([unicode(alice, "octopus", "1f419")]);
  });

  it("refuses messages the user may not see, as Zulip's access_message does", async () => {
    const hidden = await toChannel(secret);
    const invalid = badRequestError("Invalid message(s)");
    await expectZulipError(react(carol, hidden, { emoji_name: "octopus" }), invalid);
    await expectZulipError(react(guest, await toChannel(design), { emoji_name: "octopus" }), invalid);
    await expectZulipError(react(alice, 999_999_999, { emoji_name: "octopus" }), invalid);
    const dm = (await org.call(messaging.sendMessage, { type: "private", to: [bob.userId], content: "psst" }, alice))
      .id;
    await expectZulipError(react(carol, dm, { emoji_name: "octopus" }), invalid);
    await expectZulipError(unreact(carol, dm, { emoji_name: "octopus" }), invalid);
    await react(bob, dm, { emoji_name: "octopus" });
    expect(await reactionsOf(alice, dm)).toEqual([unicode(bob, "octopus", "1f419")]);
    expect(await reactionsOf(alice, hidden)).toEqual([]);
  });

  it("lets a user react to a public channel's message they never received, through a historical row", async () => {
    const id = await toChannel(design);
    const reader = await EventReader.register(org.api(carol), { event_types: ["reaction"] });
    await react(carol, id, { emoji_name: "eyes" });
    const message = await getOne(carol, id);
    expect(message.reactions).toEqual([unicode(carol, "eyes", "1f440")]);
    expect(message.flags).toEqual(["read", "historical"]);
    // the reacting user has a row of the message now, so hears of its reactions
    const [event] = await reader.until((events) => events.length >= 1);
    expect(event).toMatchObject({ type: "reaction", op: "add", message_id: id, user_id: carol.userId });
  });
});

describe("DELETE /messages/{message_id}/reactions", () => {
  it("removes by name, by code, and by code and type; a reaction not there is REACTION_DOES_NOT_EXIST", async () => {
    const id = await toChannel(design);
    await react(alice, id, { emoji_name: "octopus" });
    await react(alice, id, { emoji_name: "tada" });
    await react(alice, id, { emoji_name: "zulip" });
    await react(bob, id, { emoji_name: "octopus" });
    await unreact(alice, id, { emoji_name: "octopus" });
    expect(await reactionsOf(alice, id)).toEqual([
      unicode(alice, "tada", "1f389"),
      { emoji_name: "zulip", emoji_code: "zulip", reaction_type: "zulip_extra_emoji", user_id: alice.userId },
      unicode(bob, "octopus", "1f419"),
    ]);
    await unreact(alice, id, { emoji_code: "1f389" });
    const missing = badRequestError("Reaction doesn't exist.", "REACTION_DOES_NOT_EXIST");
    // the type is unicode_emoji unless said, as in Zulip, even for a name that is another type's
    await expectZulipError(unreact(alice, id, { emoji_name: "zulip" }), missing);
    await unreact(alice, id, { emoji_name: "zulip", reaction_type: "service_extra_emoji" });
    await expectZulipError(unreact(alice, id, { emoji_name: "octopus" }), missing);
    await expectZulipError(unreact(alice, id, { emoji_code: "1f419", reaction_type: "realm_emoji" }), missing);
    await expectZulipError(
      unreact(alice, id, { emoji_name: "no_such_emoji" }),
      badRequestError("Emoji 'no_such_emoji' does not exist"),
    );
    await expectZulipError(
      unreact(alice, id, {}),
      badRequestError("At least one of the following arguments must be present: emoji_name, emoji_code"),
    );
    expect(await reactionsOf(bob, id)).toEqual([unicode(bob, "octopus", "1f419")]);
    await unreact(bob, id, { emoji_name: "octopus", emoji_code: "1f419", reaction_type: "unicode_emoji" });
    expect(await reactionsOf(bob, id)).toEqual([]);
  });
});

describe("reaction events", () => {
  it("reach the queues of those who may see the message, with Zulip's fields", async () => {
    const id = await toChannel(design);
    const [bobReader, aliceReader] = await Promise.all([
      EventReader.register(org.api(bob), { event_types: ["reaction"] }),
      EventReader.register(org.api(alice), { event_types: ["reaction"] }),
    ]);
    await react(alice, id, { emoji_name: "octopus" });
    await unreact(alice, id, { emoji_name: "octopus" });
    const { sender_email } = await getOne(alice, id);
    const event = (op: string) => ({
      type: "reaction",
      op,
      user_id: alice.userId,
      user: { user_id: alice.userId, email: sender_email, full_name: "Alice" },
      message_id: id,
      emoji_name: "octopus",
      emoji_code: "1f419",
      reaction_type: "unicode_emoji",
    });
    for (const reader of [bobReader, aliceReader]) {
      const events = await reader.until((e) => e.length >= 2);
      expect(events.map(({ id: _id, ...e }) => e)).toEqual([event("add"), event("remove")]);
    }
  });

  it("of a direct message reach its participants only", async () => {
    const dm = (await org.call(messaging.sendMessage, { type: "private", to: [bob.userId], content: "psst" }, alice))
      .id;
    const [bobReader, carolReader] = await Promise.all([
      EventReader.register(org.api(bob), { event_types: ["reaction"] }),
      EventReader.register(org.api(carol), { event_types: ["reaction"] }),
    ]);
    await react(alice, dm, { emoji_name: "wave" });
    const [event] = await bobReader.until((e) => e.length >= 1);
    expect(event).toMatchObject({ op: "add", message_id: dm, emoji_name: "wave", user_id: alice.userId });
    expect(await carolReader.drain()).toEqual([]);
  });
});
