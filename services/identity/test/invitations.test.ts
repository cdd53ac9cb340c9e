/**
 * Invitations (Zulip's invite.py and actions/invites.py): POST /invites and its
 * INVITATION_FAILED cases, GET /invites, revoking, resending, reusable links,
 * invites_changed events, can_invite_users_group as PATCH /realm sets it, and
 * accepting a link end to end (the new user's role, settings defaults,
 * channels, groups, the Notification Bot's message to the referrer).
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { mongo } from "mongoose";
import { Role, SYSTEM_GROUPS, identity, messaging, notifications, realmConfig, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError, type ExpectedZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

/** Zulip's settings.NOTIFICATION_BOT, the sender of the referrer's notice. */
const NOTIFICATION_BOT = "notification-bot@zulip.com";

let org: TestOrganization;
let admin: TestUser, moderator: TestUser, member: TestUser, other: TestUser, guest: TestUser;
let general: number, design: number, secret: number, team: number;
beforeAll(async () => {
  org = await testOrganization();
  admin = await org.makeUser("admin", Role.ADMINISTRATOR);
  moderator = await org.makeUser("moderator", Role.MODERATOR);
  member = await org.makeUser("member", Role.MEMBER);
  other = await org.makeUser("other", Role.MEMBER);
  guest = await org.makeUser("guest", Role.GUEST);
  const channel = async (name: string, extra: Partial<ParamsIn<typeof messaging.createChannel>> = {}) =>
    (await org.call(messaging.createChannel, { name, subscribers: [org.owner.userId], ...extra }, org.owner)).id;
  general = await channel("general", { is_default_stream: true });
  design = await channel("design");
  // a private channel only the owner is in: others cannot invite to it
  secret = await channel("secret", { invite_only: true });
  team = (
    await org.call(identity.createUserGroup, { name: "team", description: "", members: [member.userId] }, org.owner)
  ).group_id;
});
afterAll(() => org?.stop());

type SendParams = ParamsIn<typeof identity.sendInvites>;
const send = (user: Credentials, params: Partial<SendParams> & { invitee_emails: string }) =>
  org.call(identity.sendInvites, { stream_ids: [], ...params }, user);
const invites = async (user: Credentials = org.owner) => (await org.call(identity.getInvites, {}, user)).invites;
const inviteFor = async (email: string) => (await invites()).find((i) => i.email === email)!;
const link = async (user: Credentials, params: Partial<ParamsIn<typeof identity.createInviteLink>> = {}) =>
  (await org.call(identity.createInviteLink, params, user)).invite_link;
const accept = (key: string, full_name: string, email?: string) =>
  org.call(
    identity.acceptInvitation,
    { key, full_name, password: "new-password-1", ...(email ? { email } : {}) },
    null,
  );

/** The development transport's mails to `email` in this organization, oldest first: their To line and accept link. */
async function mailsTo(email: string): Promise<Array<{ to: string; link: string; text: string }>> {
  const dir = process.env.TEST_INVITATION_MAIL_DIR!;
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.startsWith(`${org.realm.id}-`));
  const mails = await Promise.all(
    files.sort().map(async (f) => {
      const text = await readFile(join(dir, f), "utf8");
      return { to: /^To: (.*)$/m.exec(text)![1]!, link: /(http\S+\/join\/\S+\/)/.exec(text)![1]!, text };
    }),
  );
  return mails.filter((m) => m.to === email);
}

/** Sets an invitation's expiry in identity's database (expiry cannot be waited for). */
async function expireInvitation(isMultiuse: boolean, inviteId: number): Promise<void> {
  const client = await mongo.MongoClient.connect(process.env.TEST_MONGO_URL!);
  try {
    await client
      .db(`${process.env.TEST_MONGO_DB_PREFIX!}_identity`)
      .collection("invitations")
      .updateOne({ realmId: org.realm.id, isMultiuse, inviteId }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
  } finally {
    await client.close();
  }
}

/** Asserts the error and that GET /invites is as it was. */
async function refusedWithoutChange(call: () => Promise<unknown>, error: ExpectedZulipError): Promise<void> {
  const before = await invites();
  await expectZulipError(call(), error);
  expect(await invites()).toEqual(before);
}

const invitationFailed = (msg: string, errors: Array<[string, string, boolean]>, sent: boolean, daily = false) => ({
  ...badRequestError(msg, "INVITATION_FAILED"),
  errors,
  sent_invitations: sent,
  license_limit_reached: false,
  daily_limit_reached: daily,
});

describe("POST /invites", () => {
  it("invites each address once (commas, newlines, `Name <address>`), lists them and mails the accept link", async () => {
    const start = Math.floor(Date.now() / 1000);
    expect(
      await send(member, {
        invitee_emails: "ann@example.org, Bea <bea@example.org>\nann@example.org,",
        stream_ids: [design],
      }),
    ).toEqual({ result: "success", msg: "" });
    const ann = await inviteFor("ann@example.org");
    expect(ann).toEqual({
      email: "ann@example.org",
      invited_by_user_id: member.userId,
      invited: expect.any(Number),
      expiry_date: ann.invited + 14400 * 60,
      id: expect.any(Number),
      invited_as: Role.MEMBER,
      is_multiuse: false,
      notify_referrer_on_join: true,
    });
    expect(ann.invited).toBeGreaterThanOrEqual(start);
    expect((await invites()).filter((i) => i.email === "ann@example.org")).toHaveLength(1);
    expect(await inviteFor("bea@example.org")).toBeDefined();
    const [mail] = await mailsTo("ann@example.org");
    expect(mail!.link).toMatch(new RegExp(`^${org.realm.uri.replace(/[.]/g, "\\.")}/join/[0-9a-f]{24}/$`));
    expect(mail!.text).toContain(`Subject: ${member.fullName} invited you to join Test Organization`);
  });

  it("takes null as never expiring and a number of minutes", async () => {
    await send(org.owner, { invitee_emails: "never@example.org", invite_expires_in_minutes: null });
    expect((await inviteFor("never@example.org")).expiry_date).toBeNull();
    await send(org.owner, { invitee_emails: "hour@example.org", invite_expires_in_minutes: 60 });
    const hour = await inviteFor("hour@example.org");
    expect(hour.expiry_date).toBe(hour.invited + 3600);
  });

  it("sends invites_changed to administrators and the inviter only", async () => {
    const readers = await Promise.all(
      [org.owner, admin, moderator, member, other].map((u) =>
        EventReader.register(org.api(u), { event_types: ["invites_changed"] }),
      ),
    );
    await send(member, { invitee_emails: "events@example.org" });
    for (const reader of readers.slice(0, 2).concat(readers[3]!)) {
      expect(await reader.until((es) => es.length === 1)).toEqual([
        { id: expect.any(Number), type: "invites_changed" },
      ]);
    }
    expect(await readers[2]!.drain()).toEqual([]);
    expect(await readers[4]!.drain()).toEqual([]);
  });

  it("bounds invite_as by the inviter's role", async () => {
    const cases: Array<[TestUser | Credentials, number, ExpectedZulipError | null]> = [
      [org.owner, Role.OWNER, null],
      [admin, Role.OWNER, badRequestError("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL")],
      [admin, Role.ADMINISTRATOR, null],
      [moderator, Role.ADMINISTRATOR, badRequestError("Must be an organization administrator")],
      [moderator, Role.MODERATOR, null],
      [member, Role.MODERATOR, badRequestError("Must be an organization administrator")],
      [member, Role.MEMBER, null],
      [member, Role.GUEST, null],
    ];
    let n = 0;
    for (const [user, role, error] of cases) {
      const email = `role${++n}@example.org`;
      const call = () => send(user, { invitee_emails: email, invite_as: role as SendParams["invite_as"] });
      if (error) await refusedWithoutChange(call, error);
      else {
        await call();
        expect((await inviteFor(email)).invited_as).toBe(role);
      }
    }
  });

  it("refuses guests and bad parameters, changing nothing", async () => {
    await refusedWithoutChange(
      () => send(guest, { invitee_emails: "x@example.org" }),
      badRequestError("Not allowed for guest users"),
    );
    await refusedWithoutChange(
      () => send(member, { invitee_emails: "" }),
      badRequestError("You must specify at least one email address."),
    );
    await refusedWithoutChange(
      () => send(member, { invitee_emails: "x@example.org", stream_ids: [9999] }),
      badRequestError("Invalid channel ID 9999. No invites were sent."),
    );
    await refusedWithoutChange(
      () => send(member, { invitee_emails: "x@example.org", stream_ids: [secret] }),
      badRequestError(`Invalid channel ID ${secret}. No invites were sent.`),
    );
    await refusedWithoutChange(
      () => send(member, { invitee_emails: "x@example.org", group_ids: [team] }),
      badRequestError("Insufficient permission"),
    );
    await refusedWithoutChange(
      () => send(member, { invitee_emails: "x@example.org", group_ids: [99999] }),
      badRequestError("Invalid user group"),
    );
    await refusedWithoutChange(
      () => send(member, { invitee_emails: "x@example.org", welcome_message_custom_text: "Hi" }),
      badRequestError("Must be an organization administrator"),
    );
    await refusedWithoutChange(
      () => send(admin, { invitee_emails: "x@example.org", welcome_message_custom_text: "a".repeat(8001) }),
      badRequestError("welcome_message_custom_text is too long (limit: 8000 characters)"),
    );
    await refusedWithoutChange(
      () => send(admin, { invitee_emails: "x@example.org", invite_as: 500 as never }),
      badRequestError("Invalid invite_as"),
    );
    await refusedWithoutChange(
      () => org.call(identity.sendInvites, { invitee_emails: "x@example.org" } as SendParams, member),
      { ...badRequestError("Missing 'stream_ids' argument", "REQUEST_VARIABLE_MISSING"), var_name: "stream_ids" },
    );
  });

  it("lets anyone who may invite use default channels; other channels need permission to add subscribers", async () => {
    await send(member, { invitee_emails: "default@example.org", stream_ids: [general] });
    expect(await inviteFor("default@example.org")).toBeDefined();
  });

  it("reports addresses that already have accounts, and invites the others", async () => {
    await refusedWithoutChange(
      () => send(member, { invitee_emails: `${other.email}, bad-address` }),
      invitationFailed(
        "Some emails did not validate, so we didn't send any invitations.",
        [
          ["bad-address", "Invalid address.", false],
          [other.email, "Already has an account.", false],
        ],
        false,
      ),
    );
    await refusedWithoutChange(
      () => send(member, { invitee_emails: other.email.toUpperCase() }),
      invitationFailed(
        "We weren't able to invite anyone.",
        [[other.email.toUpperCase(), "Already has an account.", false]],
        false,
      ),
    );
    await expectZulipError(
      send(member, { invitee_emails: `${other.email}, partly@example.org` }),
      invitationFailed(
        "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
        [[other.email, "Already has an account.", false]],
        true,
      ),
    );
    expect(await inviteFor("partly@example.org")).toBeDefined();
  });

  it("follows can_invite_users_group as PATCH /realm sets it: a user group's members invite, others do not", async () => {
    const { group_id: inviters } = await org.call(
      identity.createUserGroup,
      { name: "inviters", description: "", members: [moderator.userId, guest.userId] },
      org.owner,
    );
    await org.call(realmConfig.updateRealm, { can_invite_users_group: { new: inviters } }, org.owner);
    try {
      expect(await send(moderator, { invitee_emails: "by-group@example.org" })).toEqual({ result: "success", msg: "" });
      expect((await inviteFor("by-group@example.org")).invited_by_user_id).toBe(moderator.userId);
      // administrators are not exempt from the setting (Zulip's has_permission); guests never invite
      for (const user of [member, admin]) {
        await refusedWithoutChange(
          () => send(user, { invitee_emails: "not-by-group@example.org" }),
          badRequestError("Insufficient permission"),
        );
      }
      await refusedWithoutChange(
        () => send(guest, { invitee_emails: "not-by-group@example.org" }),
        badRequestError("Not allowed for guest users"),
      );
    } finally {
      await org.call(
        realmConfig.updateRealm,
        { can_invite_users_group: { new: SYSTEM_GROUPS["role:members"] } },
        org.owner,
      );
    }
    await send(member, { invitee_emails: "by-members@example.org" });
    expect((await inviteFor("by-members@example.org")).invited_by_user_id).toBe(member.userId);
  });

  it("refuses more than a day's invitations (Zulip's daily limit), sending none", async () => {
    const many = Array.from({ length: 3001 }, (_, i) => `many${i}@example.org`).join(",");
    await refusedWithoutChange(
      () => send(org.owner, { invitee_emails: many }),
      invitationFailed(
        "To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.",
        [],
        false,
        true,
      ),
    );
  });
});

describe("GET /invites, DELETE /invites/{id}, POST /invites/{id}/resend", () => {
  it("shows administrators every invitation, others their own", async () => {
    await send(other, { invitee_emails: "mine@example.org" });
    const ownOnly = await invites(other);
    expect(ownOnly.map((i) => i.email)).toEqual(["mine@example.org"]);
    expect((await invites(admin)).map((i) => i.email)).toEqual(
      expect.arrayContaining(["mine@example.org", "ann@example.org"]),
    );
    await expectZulipError(org.call(identity.getInvites, {}, guest), badRequestError("Not allowed for guest users"));
  });

  it("lets the inviter and administrators revoke; others are refused", async () => {
    await send(other, { invitee_emails: "revoke1@example.org" });
    await send(org.owner, { invitee_emails: "revoke2@example.org", invite_as: Role.OWNER });
    const first = await inviteFor("revoke1@example.org");
    const owners = await inviteFor("revoke2@example.org");
    const revoke = (user: Credentials, invite_id: number) => org.call(identity.revokeInvite, { invite_id }, user);
    await refusedWithoutChange(
      () => revoke(member, first.id),
      badRequestError("Must be an organization administrator"),
    );
    await refusedWithoutChange(
      () => revoke(moderator, first.id),
      badRequestError("Must be an organization administrator"),
    );
    await refusedWithoutChange(
      () => revoke(admin, owners.id),
      badRequestError("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL"),
    );
    await refusedWithoutChange(() => revoke(admin, 99999), badRequestError("No such invitation"));
    const reader = await EventReader.register(org.api(other), { event_types: ["invites_changed"] });
    expect(await revoke(admin, first.id)).toEqual({ result: "success", msg: "" });
    expect(await reader.until((es) => es.length === 1)).toEqual([{ id: expect.any(Number), type: "invites_changed" }]);
    expect(await revoke(org.owner, owners.id)).toEqual({ result: "success", msg: "" });
    expect((await invites()).map((i) => i.email)).not.toContain("revoke1@example.org");
    await expectZulipError(revoke(other, first.id), badRequestError("No such invitation"));
    // a revoked invitation's link no longer works
    const [mail] = await mailsTo("revoke1@example.org");
    await expectZulipError(
      accept(mail!.link, "Too Late"),
      badRequestError("The confirmation link has expired or been deactivated."),
    );
  });

  it("resends the same link from the invitation's creator", async () => {
    await send(other, { invitee_emails: "resend@example.org" });
    const invite = await inviteFor("resend@example.org");
    await expectZulipError(
      org.call(identity.resendInvite, { invite_id: invite.id }, member),
      badRequestError("Must be an organization administrator"),
    );
    expect(await org.call(identity.resendInvite, { invite_id: invite.id }, admin)).toEqual({
      result: "success",
      msg: "",
    });
    const mails = await mailsTo("resend@example.org");
    expect(mails).toHaveLength(2);
    expect(mails[1]!.link).toBe(mails[0]!.link);
    expect(mails[1]!.text).toContain(`Subject: ${other.fullName} invited you`);
    await expectZulipError(
      org.call(identity.resendInvite, { invite_id: 99999 }, admin),
      badRequestError("No such invitation"),
    );
  });
});

describe("reusable links (POST /invites/multiuse, DELETE /invites/multiuse/{id})", () => {
  it("are for create_multiuse_invite_group (administrators by default)", async () => {
    for (const user of [moderator, member]) {
      await refusedWithoutChange(() => link(user), badRequestError("Insufficient permission"));
    }
    await refusedWithoutChange(() => link(guest), badRequestError("Not allowed for guest users"));
    await refusedWithoutChange(
      () => link(admin, { invite_as: Role.OWNER }),
      badRequestError("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL"),
    );
    await refusedWithoutChange(
      () => link(admin, { stream_ids: [secret] }),
      badRequestError(`Invalid channel ID ${secret}. No invites were sent.`),
    );
    const url = await link(admin, { invite_expires_in_minutes: null });
    expect(url).toMatch(/\/join\/[0-9a-f]{24}\/$/);
    const listed = (await invites(admin)).find((i) => i.is_multiuse && i.link_url === url)!;
    expect(listed).toEqual({
      invited_by_user_id: admin.userId,
      invited: expect.any(Number),
      expiry_date: null,
      id: expect.any(Number),
      link_url: url,
      invited_as: Role.MEMBER,
      is_multiuse: true,
    });
    const revoke = (user: Credentials) => org.call(identity.revokeInviteLink, { invite_id: listed.id }, user);
    await refusedWithoutChange(() => revoke(member), badRequestError("Must be an organization administrator"));
    expect(await revoke(org.owner)).toEqual({ result: "success", msg: "" });
    await expectZulipError(revoke(admin), badRequestError("Invitation has already been revoked"));
    await expectZulipError(
      org.call(identity.revokeInviteLink, { invite_id: 99999 }, admin),
      badRequestError("No such invitation"),
    );
    await expectZulipError(
      accept(url, "Late Comer", "late@example.org"),
      badRequestError("The confirmation link has expired or been deactivated."),
    );
  });
});

describe("accepting an invitation (POST /teamchat/invitations/accept)", () => {
  it("creates the account with the invited role, channels and groups, and uses the invitation up", async () => {
    await send(org.owner, {
      invitee_emails: "newbie@example.org, other-newbie@example.org",
      invite_as: Role.MODERATOR,
      stream_ids: [design],
      group_ids: [team],
      include_realm_default_subscriptions: true,
    });
    await send(admin, { invitee_emails: "newbie@example.org" });
    const readers = await Promise.all(
      [org.owner, admin].map((u) =>
        EventReader.register(org.api(u), { event_types: ["invites_changed", "realm_user"] }),
      ),
    );
    const [mail] = await mailsTo("newbie@example.org");
    const joined = await accept(mail!.link, "  New Bie ");
    expect(joined).toEqual({
      result: "success",
      msg: "",
      user_id: expect.any(Number),
      email: "newbie@example.org",
      api_key: expect.any(String),
    });
    const newbie = { email: joined.email, apiKey: joined.api_key };
    const { user } = await org.call(identity.getUser, { user_id: joined.user_id }, org.owner);
    expect(user).toMatchObject({ full_name: "New Bie", role: Role.MODERATOR, delivery_email: "newbie@example.org" });
    const subs = (await org.call(messaging.getSubscriptions, {}, newbie)).subscriptions.map((s) => s.stream_id);
    expect(subs.sort()).toEqual([general, design].sort());
    expect((await org.call(identity.getUserGroupMembers, { user_group_id: team }, org.owner)).members).toEqual([
      member.userId,
      joined.user_id,
    ]);
    // both invitations of the address are gone (the other one revoked), the other invitee's stays
    expect((await invites()).map((i) => i.email)).not.toContain("newbie@example.org");
    expect((await invites()).map((i) => i.email)).toContain("other-newbie@example.org");
    for (const reader of readers) {
      const events = await reader.until((es) => es.some((e) => e.type === "invites_changed"));
      expect(events).toContainEqual(expect.objectContaining({ type: "realm_user", op: "add" }));
    }
    await expectZulipError(
      accept(mail!.link, "Again"),
      badRequestError("The confirmation link has expired or been deactivated."),
    );
  });

  it("lets a reusable link create several accounts, each giving its email", async () => {
    const url = await link(org.owner, { invite_as: Role.GUEST, stream_ids: [design] });
    const first = await accept(url, "Guest One", "g1@example.org");
    const second = await accept(url.split("/join/")[1]!.replace("/", ""), "Guest Two", "g2@example.org");
    for (const joined of [first, second]) {
      const { user } = await org.call(identity.getUser, { user_id: joined.user_id }, org.owner);
      expect(user.role).toBe(Role.GUEST);
      const subs = (await org.call(messaging.getSubscriptions, {}, { email: joined.email, apiKey: joined.api_key }))
        .subscriptions;
      expect(subs.map((s) => s.stream_id)).toEqual([design]);
    }
    await expectZulipError(accept(url, "No Email"), {
      ...badRequestError("Missing 'email' argument", "REQUEST_VARIABLE_MISSING"),
      var_name: "email",
    });
    await expectZulipError(
      accept(url, "Taken", "g1@example.org"),
      badRequestError("Email 'g1@example.org' already in use"),
    );
    await expectZulipError(accept(url, "x", "g3@example.org"), badRequestError("Name too short!"));
  });

  it("starts the account with the organization's settings defaults", async () => {
    await org.call(identity.updateRealmUserSettingsDefaults, { emojiset: "text", enter_sends: true }, org.owner);
    await send(org.owner, { invitee_emails: "defaults@example.org" });
    const [mail] = await mailsTo("defaults@example.org");
    const joined = await accept(mail!.link, "With Defaults");
    const state = (await org.call(
      notifications.registerQueue,
      { fetch_event_types: ["user_settings"], client_capabilities: { user_settings_object: true } },
      { email: joined.email, apiKey: joined.api_key },
    )) as unknown as { user_settings: Record<string, unknown> };
    expect(state.user_settings).toMatchObject({ emojiset: "text", enter_sends: true });
  });

  it("has the Notification Bot tell the referrer, when the invitation asks, that it was accepted", async () => {
    const accepted = async (user: Credentials) =>
      (
        await org.call(
          messaging.getMessages,
          {
            anchor: "oldest",
            num_before: 0,
            num_after: 100,
            apply_markdown: false,
            narrow: [{ operator: "is", operand: "dm" }],
          },
          user,
        )
      ).messages.filter((m) => m.sender_email === NOTIFICATION_BOT && m.content.includes("accepted your invitation"));
    await send(other, { invitee_emails: "told@example.org" });
    await send(other, { invitee_emails: "untold@example.org", notify_referrer_on_join: false });
    const told = await accept((await mailsTo("told@example.org"))[0]!.link, "Told One");
    await accept((await mailsTo("untold@example.org"))[0]!.link, "Untold One");
    // a reusable link tells its creator too (Zulip's MultiuseInvite has no choice)
    const fromLink = await accept(await link(admin), "Linked One", "linked@example.org");

    const [toOther] = await accepted(other);
    expect(await accepted(other)).toHaveLength(1);
    expect(toOther).toMatchObject({
      type: "private",
      sender_email: NOTIFICATION_BOT,
      client: "Internal",
      content: `@_**Told One|${told.user_id}** accepted your invitation to join Zulip!`,
      display_recipient: expect.arrayContaining([expect.objectContaining({ id: other.userId })]),
    });
    expect(toOther!.flags).not.toContain("read");
    expect((await accepted(admin)).map((m) => m.content)).toEqual([
      `@_**Linked One|${fromLink.user_id}** accepted your invitation to join Zulip!`,
    ]);
  });

  it("has Welcome Bot send the email invitation's custom text (feature level 416), starred", async () => {
    await send(admin, {
      invitee_emails: "welcomed@example.org",
      welcome_message_custom_text: "Say hi in #**general**.",
    });
    const joined = await accept((await mailsTo("welcomed@example.org"))[0]!.link, "Welcomed One");
    const { messages } = await org.call(
      messaging.getMessages,
      {
        anchor: "oldest",
        num_before: 0,
        num_after: 100,
        apply_markdown: false,
        narrow: [{ operator: "is", operand: "dm" }],
      },
      { email: joined.email, apiKey: joined.api_key },
    );
    const fromWelcomeBot = messages.filter((m) => m.sender_email === "welcome-bot@zulip.com");
    expect(fromWelcomeBot).toEqual([
      expect.objectContaining({
        sender_full_name: "Welcome Bot",
        content: "A note from @_*role:administrators*:\n```quote\nSay hi in #**general**.\n```",
        flags: ["starred"],
      }),
    ]);
  });

  it("revokes a user's invitations when the user is deactivated (Zulip's revoke_invites_generated_by_user)", async () => {
    const leaving = await org.makeUser("leaving", Role.MEMBER);
    await send(leaving, { invitee_emails: "orphan@example.org" });
    expect((await invites()).map((i) => i.email)).toContain("orphan@example.org");
    const events = await EventReader.register(org.api(admin), { event_types: ["invites_changed"] });
    await org.call(identity.deactivateUser, { user_id: leaving.userId }, org.owner);
    expect((await invites()).map((i) => i.email)).not.toContain("orphan@example.org");
    expect(await events.until((es) => es.length === 1)).toEqual([{ id: expect.any(Number), type: "invites_changed" }]);
    const [mail] = await mailsTo("orphan@example.org");
    await expectZulipError(
      accept(mail!.link, "Orphan"),
      badRequestError("The confirmation link has expired or been deactivated."),
    );
  });

  it("refuses unknown and expired links", async () => {
    await expectZulipError(
      accept("0123456789abcdef01234567", "Nobody"),
      badRequestError("We couldn't find your confirmation link in the system."),
    );
    await send(org.owner, { invitee_emails: "expired@example.org" });
    const invite = await inviteFor("expired@example.org");
    await expireInvitation(false, invite.id);
    // expired invitations are not listed
    expect((await invites()).map((i) => i.email)).not.toContain("expired@example.org");
    const [mail] = await mailsTo("expired@example.org");
    await expectZulipError(
      accept(mail!.link, "Expired"),
      badRequestError("The confirmation link has expired or been deactivated."),
    );
  });
});
