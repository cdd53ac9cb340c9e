/**
 * A real SMTP server (the smtp-server package) for tests: it takes every
 * mail, parses it (mailparser) and keeps it; `refuseNext` makes it answer the
 * next mails with a temporary failure, as a mail server that is down does.
 */
import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  /** envelope recipients */
  to: string[];
  from: string;
  subject: string;
  text: string;
  /** the HTML part, "" when there is none */
  html: string;
  /** each header as sent, by its name in lower case */
  headers: Record<string, string>;
  /** when it was taken (Date.now()) */
  at: number;
}

export interface TestSmtpServer {
  url: string;
  received: ReceivedMail[];
  /** how many mails were refused */
  refused: number;
  /** answers the next `count` mails with 451, once it has taken `after` more */
  refuseNext(count: number, after?: number): void;
  /** waits until `predicate` holds of what was received (10 s at most) */
  waitFor(predicate: (mails: ReceivedMail[]) => boolean, timeoutMs?: number): Promise<ReceivedMail[]>;
  stop(): Promise<void>;
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  let toRefuse = 0;
  let toTakeFirst = 0;
  const state = { refused: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const refuse = toTakeFirst === 0 && toRefuse > 0;
      if (toTakeFirst > 0) toTakeFirst--;
      else if (refuse) toRefuse--;
      simpleParser(stream).then(
        (parsed) => {
          if (refuse) {
            state.refused++;
            const err = Object.assign(new Error("Try again later"), { responseCode: 451 });
            return callback(err);
          }
          received.push({
            to: session.envelope.rcptTo.map((r) => r.address),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            subject: parsed.subject ?? "",
            text: parsed.text ?? "",
            html: parsed.html || "",
            headers: Object.fromEntries(
              parsed.headerLines.map(({ key, line }) => [key, line.slice(line.indexOf(":") + 1).trim()]),
            ),
            at: Date.now(),
          });
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    get refused() {
      return state.refused;
    },
    refuseNext: (count, after = 0) => {
      toRefuse = count;
      toTakeFirst = after;
    },
    waitFor: async (predicate, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline) throw new Error(`mail not received in time; received: ${JSON.stringify(received)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return received;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
