import { escapeHtml } from "@teamchat/shared";
import { channelNarrowUrl, topicNarrowUrl } from "../missed-message-emails/render";

export interface DigestChannel {
  id: number;
  name: string;
}

/** A hot conversation as the digest shows it (Zulip's DigestTopic.teaser_data). */
export interface HotConversation {
  channel: DigestChannel;
  topic: string;
  /** its first messages, oldest first */
  messages: Array<{ senderName: string; content: string; renderedContent: string }>;
  /** its human messages beyond those shown */
  count: number;
  /** its human senders' names, sorted */
  participants: string[];
}

/** What a digest says, as Zulip's bulk_get_digest_context gathers it. */
export interface DigestMailContext {
  realmName: string;
  realmUri: string;
  /** the user's one-click link that turns digests off (Zulip's one_click_unsubscribe_link) */
  unsubscribeUrl: string;
  /** Zulip's message_content_allowed_in_missedmessage_emails: the user's and the organization's settings */
  showContent: boolean;
  contentDisabledByRealm: boolean;
  contentDisabledByUser: boolean;
  hotConversations: HotConversation[];
  newChannels: DigestChannel[];
  /** the messages the user received since the cutoff, from humans: shown when content is hidden */
  newMessagesCount: number;
}

/** Zulip's display_list: "A", "A and B", "A, B and C"; past `limit`, "A, B, and 2 others". */
export function displayList(values: string[], limit: number): string {
  if (values.length === 1) return values[0]!;
  if (values.length <= limit) return `${values.slice(0, -1).join(", ")} and ${values[values.length - 1]}`;
  const others = values.length - limit;
  return `${values.slice(0, limit).join(", ")}, and ${others} other${others === 1 ? "" : "s"}`;
}

const plural = (count: number) => (count === 1 ? "" : "s");

/** Zulip's build_message_payload for plain text: image links as their URL, uploads absolute, each line quoted. */
function plainContent(content: string, realmUri: string): string {
  return content
    .replace(/\[(\S*)\]\((\S*)\)/g, "$2")
    .replace(/\/user_uploads\/(\S*)/g, `${realmUri}/user_uploads/$1`)
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
}

/** Zulip's relative_to_full_url, for the links and images of a rendered message. */
const absoluteLinks = (html: string, realmUri: string) =>
  html.replace(/(href|src)="(\/(?!\/)|#narrow\/)/g, (_m, attr: string, start: string) =>
    start === "/" ? `${attr}="${realmUri}/` : `${attr}="${realmUri}/#narrow/`,
  );

/** Zulip's prepend_sender_to_message for HTML: the name in bold, inside the first paragraph when there is one. */
const withSender = (html: string, sender: string) =>
  html.startsWith("<p>")
    ? `<p><b>${escapeHtml(sender)}</b>: ${html.slice(3)}`
    : `<b>${escapeHtml(sender)}</b>: ${html}`;

/** Zulip's build_message_list of one conversation: one block per run of messages by the same sender. */
function senderBlocks(messages: HotConversation["messages"]): Array<{ sender: string; messages: typeof messages }> {
  const blocks: Array<{ sender: string; messages: typeof messages }> = [];
  for (const m of messages) {
    const last = blocks[blocks.length - 1];
    if (last?.sender === m.senderName) last.messages.push(m);
    else blocks.push({ sender: m.senderName, messages: [m] });
  }
  return blocks;
}

function noContentLines(ctx: DigestMailContext): { summary: string; why: string | undefined } {
  const n = ctx.newMessagesCount;
  const channels = ctx.newChannels.length;
  const summary =
    n > 0 && channels > 0
      ? `You have ${n} new messages, and there are ${channels} new channels in ${ctx.realmName}.`
      : n > 0
        ? `You have ${n} new messages in ${ctx.realmName}.`
        : `There are ${channels} new channels in ${ctx.realmName}.`;
  const why = ctx.contentDisabledByRealm
    ? `This email does not include message content because your organization hides message content in email notifications. See ${ctx.realmUri}/help/hide-message-content-in-emails for more details.`
    : ctx.contentDisabledByUser
      ? `This email does not include message content because you have chosen to hide message content in email notifications. See ${ctx.realmUri}/help/email-notifications#hide-message-content for more details.`
      : undefined;
  return { summary, why };
}

/** Where the user's mail settings are. */
const settingsUrl = (realmUri: string) => `${realmUri}/#settings/notifications`;

function renderText(ctx: DigestMailContext): string {
  const lines: string[] = [];
  if (ctx.showContent) {
    for (const convo of ctx.hotConversations) {
      lines.push(`#${convo.channel.name} > ${convo.topic}`);
      for (const block of senderBlocks(convo.messages)) {
        lines.push(`${block.sender}:`, ...block.messages.map((m) => plainContent(m.content, ctx.realmUri)));
      }
      if (convo.count > 0) {
        lines.push(`+ ${convo.count} more message${plural(convo.count)} by ${displayList(convo.participants, 4)}.`);
      }
      lines.push("");
    }
    if (ctx.newChannels.length) {
      lines.push(
        "** New channels **",
        `    ${displayList(
          ctx.newChannels.map((c) => c.name),
          1000,
        )}.`,
        "",
      );
    }
  } else {
    const { summary, why } = noContentLines(ctx);
    lines.push(summary, "");
    if (why) lines.push(why, "");
  }
  lines.push(
    `Log in to Zulip to catch up: ${ctx.realmUri}.`,
    "",
    "--",
    "Manage email preferences:",
    "",
    settingsUrl(ctx.realmUri),
    "",
    "Unsubscribe from digest emails:",
    "",
    ctx.unsubscribeUrl,
    "",
  );
  return lines.join("\n");
}

function renderHtml(ctx: DigestMailContext): string {
  const uri = escapeHtml(ctx.realmUri);
  const parts: string[] = [];
  if (ctx.showContent) {
    for (const convo of ctx.hotConversations) {
      const { channel } = convo;
      const header =
        `<a href='${escapeHtml(channelNarrowUrl(ctx.realmUri, channel.id, channel.name))}'>#${escapeHtml(channel.name)}</a> &gt; ` +
        `<a href='${escapeHtml(topicNarrowUrl(ctx.realmUri, channel.id, channel.name, convo.topic))}'>${escapeHtml(convo.topic)}</a>`;
      const blocks = senderBlocks(convo.messages).flatMap((block) =>
        block.messages.map((m, i) => {
          const html = absoluteLinks(m.renderedContent, ctx.realmUri);
          return `<div class="hot_convo_message_content_block">${i === 0 ? withSender(html, block.sender) : html}</div>`;
        }),
      );
      const more =
        convo.count > 0
          ? `<p class="digest_paragraph">+ ${convo.count} more message${plural(convo.count)} by ${escapeHtml(displayList(convo.participants, 4))}.</p>`
          : "";
      parts.push(
        `<div class="messages"><div class="hot_convo_recipient_block">` +
          `<div class="hot_convo_recipient_header">${header}</div>` +
          `<div class="hot_convo_message_content">${blocks.join("")}</div></div>${more}</div>`,
      );
    }
    if (ctx.newChannels.length) {
      const links = ctx.newChannels.map(
        (c) => `<a href='${escapeHtml(channelNarrowUrl(ctx.realmUri, c.id, c.name))}'>#${escapeHtml(c.name)}</a>`,
      );
      parts.push(
        `<p class="digest_paragraph"><b>New channels</b></p>`,
        `<p class="digest_paragraph">${displayList(links, 1000)}.</p>`,
      );
    }
  } else {
    const { summary, why } = noContentLines(ctx);
    parts.push(`<p class="digest_paragraph">${escapeHtml(summary)}</p>`);
    if (why) parts.push(`<p class="digest_paragraph">${escapeHtml(why)}</p>`);
  }
  parts.push(
    `<p class="digest_paragraph"><a href="${uri}">Log in</a> to Zulip to catch up.</p>`,
    `<p class="digest_paragraph"><a href="${escapeHtml(settingsUrl(ctx.realmUri))}">Manage email preferences</a> | ` +
      `<a href="${escapeHtml(ctx.unsubscribeUrl)}">Unsubscribe from digest emails</a></p>`,
  );
  return `<!DOCTYPE html>\n<html><body>\n${parts.join("\n")}\n</body></html>\n`;
}

/**
 * The weekly digest as Zulip's zerver/emails/digest templates make it: the
 * hot conversations' first messages and who else wrote in them, the new
 * channels, or, with message content hidden, counts only; plain text and HTML.
 */
export function renderDigestMail(ctx: DigestMailContext): { subject: string; text: string; html: string } {
  return { subject: `Zulip digest for ${ctx.realmName}`, text: renderText(ctx), html: renderHtml(ctx) };
}
