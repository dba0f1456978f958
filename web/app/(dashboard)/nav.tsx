"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { type RefObject, useEffect, useRef } from "react";
import type { DashboardArea } from "./areas";

/** Whether `href` is the current page's area (`/dashboard` only itself; others also their sub-pages). */
function isCurrent(pathname: string, href: string): boolean {
  return href === "/dashboard" ? pathname === href : pathname === href || pathname.startsWith(`${href}/`);
}

/**
 * Scrolls the navigation (only it, never the page) so the current area's link is in view: on a phone the
 * links are one row wider than the screen, and an area far along it would otherwise be out of sight. Again
 * when the window is resized (turning the phone, or a sidebar becoming the row).
 */
function useCurrentLinkInView(nav: RefObject<HTMLElement | null>, pathname: string) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: the current link changes with the path
  useEffect(() => {
    const reveal = () => {
      const bar = nav.current;
      const link = bar?.querySelector<HTMLElement>('a[aria-current="page"]');
      if (!bar || !link || bar.scrollWidth <= bar.clientWidth) return;
      const barBox = bar.getBoundingClientRect();
      const linkBox = link.getBoundingClientRect();
      if (linkBox.left >= barBox.left && linkBox.right <= barBox.right) return;
      bar.scrollLeft += linkBox.left - barBox.left - (barBox.width - linkBox.width) / 2;
    };
    reveal();
    window.addEventListener("resize", reveal);
    return () => window.removeEventListener("resize", reveal);
  }, [nav, pathname]);
}

/**
 * The sidebar on wide screens, a horizontal scroller under the header on narrow ones; the current area
 * is marked with `aria-current="page"` (and scrolled into view). The API reference (`/docs`) is linked at
 * the foot.
 */
export function DashboardNav({ areas }: { areas: readonly DashboardArea[] }) {
  const pathname = usePathname() ?? "";
  const nav = useRef<HTMLElement>(null);
  useCurrentLinkInView(nav, pathname);
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
    <nav ref={nav} className="shell-nav" aria-label="Dashboard">
      <ul className="nav-main">{areas.filter((a) => !a.footer).map(link)}</ul>
      <ul className="nav-foot">
        {areas.filter((a) => a.footer).map(link)}
        <li>
          {/* The reference is its own page (not the dashboard's): a full load, not a client navigation. */}
          <a href="/docs" title="The web API's reference (OpenAPI), to try each route">
            API docs
          </a>
        </li>
      </ul>
    </nav>
  );
}
