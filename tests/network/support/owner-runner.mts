// Stands in for the stack's runner in the network tests: opens the nft table the way the network
// service does, starts a child of its own in its own process group (as the stack starts its
// servers), prints both pids and waits to be killed.
//
//   node --import tsx tests/network/support/owner-runner.mts <table>

import { spawn } from "node:child_process";
import { renderTable } from "../../../scripts/stack/network";
import { NftSession } from "../../../scripts/stack/nft-session";

const table = process.argv[2] ?? "";
const session = await NftSession.open(table, renderTable(table, { clients: [{ name: "client", gid: 61903 }], servers: [] }));
const server = spawn("sleep", ["120"], { detached: true, stdio: "ignore" });
console.log(JSON.stringify({ ready: true, nftPid: session.pid, serverPid: server.pid }));
// Waits until killed; the test bounds it.
setTimeout(() => process.exit(3), 60_000);
