import { notFound } from "next/navigation";

/** Any dashboard address no area answers: the dashboard's own 404 (../not-found.tsx), inside the shell. */
export default function MissingDashboardPage(): never {
  notFound();
}
