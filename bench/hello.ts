/** The baseline: a bare Fastify hello-world, in its own process like each service. */
import Fastify from "fastify";

const app = Fastify();
app.get("/hello", async () => ({ result: "success", msg: "", hello: "world" }));
app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" }).then(() => process.stdout.write("ready\n"));
process.once("SIGTERM", () => void app.close().then(() => process.exit(0)));
