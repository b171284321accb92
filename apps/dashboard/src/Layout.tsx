import type { ReactNode } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link, useRoute } from 'wouter';
import { useMyRole } from './queries';
import { useSession } from './session';
import { Button } from './ui';

function NavLink({ href, children }: { href: string; children: ReactNode }) {
  const [active] = useRoute(href);
  return (
    <Link href={href} className={active ? 'nav-link active' : 'nav-link'} aria-current={active ? 'page' : undefined}>
      {children}
    </Link>
  );
}

/** The signed-in frame: navigation, the live/test switch, sign-out. */
export function Layout({ children }: { children: ReactNode }) {
  const session = useSession();
  const signOut = useMutation({
    mutationFn: () => session.call('post', '/auth/logout'),
    // Signed out here even when the service could not be told (its token then simply expires).
    onSettled: () => session.forget(),
  });
  const test = session.mode === 'test';
  // The audit trail is for owners and admins: members are not shown the way to a page that refuses them.
  const role = useMyRole();
  return (
    <div className={test ? 'frame frame-test' : 'frame'}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Cowrie</span>
        <nav aria-label="Dashboard">
          <NavLink href="/">Home</NavLink>
          <NavLink href="/transactions">Transactions</NavLink>
          <NavLink href="/payouts">Payouts</NavLink>
          <NavLink href="/payout-requests">Approvals</NavLink>
          <NavLink href="/deposits">Deposits</NavLink>
          <NavLink href="/verifications">Verifications</NavLink>
          <NavLink href="/api-keys">API keys</NavLink>
          <NavLink href="/webhooks">Webhooks</NavLink>
          <NavLink href="/team">Team</NavLink>
          <NavLink href="/security">Security</NavLink>
          {(role === 'owner' || role === 'admin') && <NavLink href="/audit">Audit</NavLink>}
        </nav>
        <div className="topbar-actions">
          <label className="mode-switch">
            <input type="checkbox" role="switch" checked={test} onChange={(e) => session.setMode(e.target.checked ? 'test' : 'live')} />
            <span>Test data</span>
          </label>
          <Button onClick={() => signOut.mutate()} busy={signOut.isPending} busyLabel="Signing out…">
            Sign out
          </Button>
        </div>
      </header>
      {test && (
        <p className="test-banner" role="status">
          Test mode: you are looking at test data (sandbox rails, ck_test_ keys).
        </p>
      )}
      <main id="main" className="content">
        {children}
      </main>
    </div>
  );
}
