import { createServer, connect as tcpConnect, type Server, type Socket } from "node:net";

/**
 * A TCP proxy in front of a nats-server, for a client whose connection a test
 * cuts while the server (and every other client) goes on: it drops every
 * connection and refuses new ones until resumed, and can hold back what the
 * client sends from a given protocol text on, for a while.
 */
export class CuttableProxy {
  private readonly sockets = new Set<Socket>();
  private refusing = false;
  private hold?: { marker: string; ms: number };
  private readonly server: Server;

  constructor(target: URL) {
    this.server = createServer((client) => {
      if (this.refusing) return client.destroy();
      const upstream = tcpConnect(Number(target.port), target.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("close", () => this.sockets.delete(s));
        s.on("error", () => undefined);
      }
      upstream.pipe(client);
      let held: Buffer[] | null = null;
      client.on("data", (chunk: Buffer) => {
        if (held) return void held.push(chunk);
        const at = this.hold ? chunk.indexOf(this.hold.marker) : -1;
        if (at < 0 || !this.hold) return void upstream.write(chunk);
        // the protocol lines before the marker's go through now
        const line = chunk.lastIndexOf("\r\n", at) + 2;
        upstream.write(chunk.subarray(0, line));
        held = [chunk.subarray(line)];
        setTimeout(() => {
          for (const c of held ?? []) upstream.write(c);
          held = null;
        }, this.hold.ms);
        this.hold = undefined;
      });
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
  }

  /** Listens on a free port of the loopback: the URL to give the client. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    const address = this.server.address();
    if (!address || typeof address === "string") throw new Error("proxy has no port");
    return `nats://127.0.0.1:${address.port}`;
  }

  /** Drops every connection; new ones are refused until resume(). */
  cut(): void {
    this.refusing = true;
    for (const s of this.sockets) s.destroy();
  }

  resume(): void {
    this.refusing = false;
  }

  /** Holds back, once, what the client sends from the protocol line holding `marker` on, for `ms`. */
  holdBack(marker: string, ms: number): void {
    this.hold = { marker, ms };
  }

  close(): void {
    this.cut();
    this.server.close();
  }
}
