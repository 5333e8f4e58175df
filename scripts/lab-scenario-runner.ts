/**
 * The lab's scenario runner process: `node --import tsx scripts/lab-scenario-runner.ts <labRunId>`.
 * Started by POST /api/admin/lab/scenarios/:id/run; a scenario may kill an app instance, so it
 * never runs inside one.
 */
import { closeDb } from "../lib/db";
import { runLabRun } from "../lib/lab/runner";
import { getLockServices } from "../lib/lock-services";
import { closeRedis } from "../lib/redis";

const labRunId = Number(process.argv[2]);

runLabRun(labRunId)
  .then((record) => {
    console.log(JSON.stringify({ id: record.id, scenario: record.scenarioId, status: record.status, asExpected: record.asExpected }));
  })
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(async () => {
    // The reconciler may have taken a ZooKeeper or etcd lock to give a unit back: those clients
    // keep heartbeats going, so they are closed too, and whatever still holds the process after
    // that does not keep it alive past two seconds.
    await Promise.allSettled([closeDb(), closeRedis(), getLockServices().close()]);
    setTimeout(() => process.exit(), 2_000).unref();
  });
