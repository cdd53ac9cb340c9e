/** An account's API credentials, as Zulip's clients send them. */
export interface Credentials {
  email: string;
  apiKey: string;
}

/** HTTP Basic credentials as Zulip takes them: `email:api_key`. */
export const basicAuth = (c: Credentials): string =>
  `Basic ${Buffer.from(`${c.email}:${c.apiKey}`).toString("base64")}`;
