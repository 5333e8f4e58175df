import Link from "next/link";
import { requireAdminPage } from "@/lib/auth/guard";
import { listStrategies } from "@/lib/locks/registry";
import { getExposure, qrSvg } from "@/lib/workshop/exposure";
import { getAdminLiveSnapshot } from "@/lib/workshop/live";
import { ProjectorView } from "./projector-view";

export const dynamic = "force-dynamic";

/** The projector view of workshop mode: the join link, the drop, live stock and holders, and the accounting. */
export default async function LivePage() {
  await requireAdminPage("/admin/live");
  const [snapshot, exposure] = await Promise.all([getAdminLiveSnapshot(), getExposure()]);
  const joinUrl = exposure.storeUrls[0] ?? "";
  const strategies = listStrategies().map((strategy) => ({ name: strategy.name, safe: strategy.safe }));
  return (
    <div className="dashboard projector">
      <div className="toolbar">
        <h1>Workshop — live drop</h1>
        <div>
          <Link href="/admin" className="button-link">Dashboard</Link>
          <Link href="/admin/lab" className="button-link">Pitfall lab</Link>
        </div>
      </div>
      <ProjectorView initial={snapshot} exposure={exposure} qr={joinUrl ? await qrSvg(joinUrl) : ""} strategies={strategies} />
    </div>
  );
}
