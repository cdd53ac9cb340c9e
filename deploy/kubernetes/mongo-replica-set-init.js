/* global rs, db, print, sleep */
// mongosh script that initiates the MongoDB replica set once: the `mongo-rs-init` job of the compose
// profile `cluster` and the Kubernetes Job `mongo-replica-set-init` both run it against the first
// member. A member of an initiated set answers rs.status(), so a rerun changes nothing.
// REPLICA_SET: the set's name; REPLICA_SET_MEMBERS: every member's host:port, comma-separated.
const name = process.env.REPLICA_SET;
const hosts = process.env.REPLICA_SET_MEMBERS.split(",");
try {
  rs.status();
  print(`replica set ${name} is already initiated`);
} catch (err) {
  if (err.codeName !== "NotYetInitialized") throw err;
  rs.initiate({ _id: name, members: hosts.map((host, i) => ({ _id: i, host })) });
  print(`replica set ${name} initiated with ${hosts.join(", ")}`);
}
// The services start once this has exited: wait until the set has elected a primary.
const deadline = Date.now() + 60_000;
while (!db.hello().primary) {
  if (Date.now() > deadline) throw new Error(`replica set ${name} elected no primary within 60 s`);
  sleep(500);
}
print(`replica set ${name}: primary ${db.hello().primary}`);
