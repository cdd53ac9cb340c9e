// zulip-js 2.1.0 ships no types; what the interop test uses of it.
declare module "zulip-js" {
  namespace zulipInit {
    type Reply = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    type Call = (params?: Record<string, unknown>) => Promise<Reply>;
    interface ZulipClient {
      config: { apiKey: string };
      users: { me: { getProfile: Call; subscriptions: { add: Call } }; retrieve: Call };
      server: { settings: Call };
      streams: { subscriptions: { retrieve: Call }; topics: { retrieve: Call } };
      messages: { send: Call; retrieve: Call };
      queues: { register: Call; deregister: Call };
      events: { retrieve: Call };
      typing: { send: Call };
      filters: { retrieve: Call };
    }
  }
  function zulipInit(config: {
    username: string;
    apiKey?: string;
    password?: string;
    realm: string;
  }): Promise<zulipInit.ZulipClient>;
  export = zulipInit;
}
