// The Docker image's entry point (Dockerfile CMD): binds the instance's port and starts the instance
// with the socket handed over as the local stack's supervisor does, so an instance in the image also
// takes in a burst of connections many per turn. It stays the container's first process: SIGTERM and
// SIGINT go on to the instance, and it exits with the instance's status.
//
//   node --import tsx scripts/stack/app-launch.ts <host> <port> <script> [args…]

import { spawn } from "node:child_process";
import os from "node:os";
import { INSTANCE_NODE_FLAGS, bindAppSocket, handOver } from "./app-socket";

const [host, portText, script, ...args] = process.argv.slice(2);
const port = Number(portText);
if (!host || !script || !Number.isInteger(port) || port < 0 || port > 65535) {
  console.error("usage: node --import tsx scripts/stack/app-launch.ts <host> <port> <script> [args…]");
  process.exit(2);
}

const server = await bindAppSocket(host, port).catch((error: Error) => {
  console.error(`app-launch: cannot listen on ${host}:${port}: ${error.message}`);
  process.exit(1);
});
const { env, fds } = handOver(server);
const instance = spawn(process.execPath, [...INSTANCE_NODE_FLAGS, script, ...args], {
  env: { ...process.env, ...env },
  stdio: ["inherit", "inherit", "inherit", ...fds],
});
server.close();

for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => instance.kill(signal));
instance.once("error", (error) => {
  console.error(`app-launch: cannot start ${script}: ${error.message}`);
  process.exit(1);
});
instance.once("exit", (code, signal) => process.exit(code ?? 128 + (signal ? os.constants.signals[signal] : 0)));
