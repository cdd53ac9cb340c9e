/**
 * A round-robin TCP balancer for several gateway instances sharing one public
 * port (Node 20 has no SO_REUSEPORT): each connection goes to the next
 * gateway; one refusing the connection (stopped, or restarting) is skipped
 * for the one after it, as nginx's proxy_next_upstream does. TCP, not HTTP:
 * keep-alive connections and long-polls stay on the gateway they reached.
 */
import { connect, createServer, type Socket } from "node:net";

export interface Balancer {
  port: number;
  close(): Promise<void>;
}

export async function startBalancer(opts: { host: string; port: number; backendPorts: number[] }): Promise<Balancer> {
  let next = 0;
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
  };
  /** Connects the client to the first gateway from `first` on that accepts; closes it when none does. */
  const forward = (client: Socket, first: number, tried = 0) => {
    if (tried === opts.backendPorts.length || client.destroyed) return void client.destroy();
    const upstream = connect(opts.backendPorts[(first + tried) % opts.backendPorts.length]!, "127.0.0.1");
    upstream.once("error", () => forward(client, first, tried + 1));
    upstream.once("connect", () => {
      upstream.removeAllListeners("error");
      track(upstream);
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
      upstream.once("close", () => client.destroy());
      client.once("close", () => upstream.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    });
  };
  const server = createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    client.on("error", () => client.destroy());
    forward(client, next);
    next = (next + 1) % opts.backendPorts.length;
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, resolve);
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
