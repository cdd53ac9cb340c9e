/**
 * Video call links (Zulip's video_calls.py): BigBlueButton's signed join link,
 * made on this server; Zoom and Webex, which need OAuth credentials this
 * server does not have, answer as Zulip does without them.
 */
import { identity } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let alice: TestUser, guest: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  guest = await org.makeUser("Guest", 600, "Guest");
});
afterAll(() => org?.stop());

/** The signed meeting in a join link, and its signature. */
const meetingOf = (url: string) => {
  const match = /^\/calls\/bigbluebutton\/join\?bigbluebutton=([\w-]+):([\w-]+)$/.exec(url);
  expect(match).not.toBeNull();
  return {
    payload: match![1]!,
    signature: match![2]!,
    meeting: JSON.parse(Buffer.from(match![1]!, "base64url").toString()),
  };
};

describe("GET /calls/bigbluebutton/create", () => {
  it("gives a join link with the signed meeting: a random id, the name, voice-only, the creator as moderator", async () => {
    const voice = await org.call(
      identity.createBigBlueButtonCall,
      { meeting_name: "design sync", voice_only: true },
      alice,
    );
    expect(Object.keys(voice).sort()).toEqual(["msg", "result", "url"]);
    const first = meetingOf(voice.url);
    expect(first.meeting).toEqual({
      meeting_id: expect.stringMatching(/^zulip-\d{12}$/),
      name: "design sync",
      lock_settings_disable_cam: true,
      moderator: alice.userId,
    });
    const video = meetingOf((await org.call(identity.createBigBlueButtonCall, { meeting_name: "x" }, guest)).url);
    expect(video.meeting).toMatchObject({ name: "x", lock_settings_disable_cam: false, moderator: guest.userId });
    expect(video.meeting.meeting_id).not.toBe(first.meeting.meeting_id);
    // an HMAC-SHA256 of the payload under the organization's key
    expect(first.signature).toMatch(/^[\w-]{43}$/);
    expect(video.signature).not.toBe(first.signature);
  });

  it("requires meeting_name", async () => {
    await expectZulipError(org.api(alice).get("/calls/bigbluebutton/create"), {
      ...badRequestError("Missing 'meeting_name' argument", "REQUEST_VARIABLE_MISSING"),
      var_name: "meeting_name",
    });
  });
});

describe("Zoom and Webex", () => {
  it("answer that their credentials are not configured", async () => {
    await expectZulipError(
      org.call(identity.createZoomCall, { is_video_call: false }, alice),
      badRequestError("Zoom credentials have not been configured"),
    );
    await expectZulipError(
      org.call(identity.createWebexCall, {}, alice),
      badRequestError("Webex credentials have not been configured"),
    );
  });
});
