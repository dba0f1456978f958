"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import type { DashboardArea } from "./areas";

/** Whether `href` is the current page's area (`/dashboard` only itself; others also their sub-pages). */
function isCurrent(pathname: string, href: string): boolean {
  return href === "/dashboard" ? pathname === href : pathname === href || pathname.startsWith(`${href}/`);
}

/**
 * The sidebar on wide screens, a horizontal scroller under the header on narrow ones; the current area
 * is marked with `aria-current="page"`.
 */
export function DashboardNav({ areas }: { areas: readonly DashboardArea[] }) {
  const pathname = usePathname() ?? "";
  const link = (area: DashboardArea) => (
    <li key={area.href}>
      <Link
        href={area.href}
        title={area.description}
        aria-current={isCurrent(pathname, area.href) ? "page" : undefined}
      >
        {area.label}
      </Link>
    </li>
  );
  return (
    <nav className="shell-nav" aria-label="Dashboard">
      <ul className="nav-main">{areas.filter((a) => !a.footer).map(link)}</ul>
      <ul className="nav-foot">{areas.filter((a) => a.footer).map(link)}</ul>
    </nav>
  );
}
