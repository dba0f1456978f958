"use client";

import { createContext, type ReactNode, useContext } from "react";

/** The signed-in user as the dashboard's pages may know it (checked by the layout on the server). */
export interface DashboardUser {
  id: string;
  name: string;
  email: string;
  isAdmin: boolean;
}

const SessionUserContext = createContext<DashboardUser | null>(null);

export function SessionUserProvider({ user, children }: { user: DashboardUser; children: ReactNode }) {
  return <SessionUserContext.Provider value={user}>{children}</SessionUserContext.Provider>;
}

/** The signed-in user, inside a dashboard page. */
export function useSessionUser(): DashboardUser {
  const user = useContext(SessionUserContext);
  if (!user) throw new Error("useSessionUser is only available inside the dashboard layout");
  return user;
}
