import { useTranslations } from "next-intl";

/**
 * Shown while a signed-in admin page reads its data (runs, sale figures, faults, lab results).
 * It sits below this group's layout.tsx, which has already turned strangers away with a 307.
 */
export default function AdminLoading() {
  const t = useTranslations("dashboard");
  return (
    <div className="dashboard" aria-busy="true" data-testid="admin-loading">
      <p className="muted" role="status">{t("loading")}</p>
      <div className="skeleton card" />
      <div className="skeleton card" />
      <div className="skeleton card" />
    </div>
  );
}
