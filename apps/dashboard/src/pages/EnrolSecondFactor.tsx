import { useMutation } from '@tanstack/react-query';
import { useSession } from '../session';
import { Button } from '../ui';
import { TotpEnrolment } from './Security';

/**
 * The first screen of an owner or admin without a second factor where the
 * service requires one (REQUIRE_MFA_FOR_ADMINS): every other page answers 403
 * until two-step sign-in is on.
 */
export function EnrolSecondFactor() {
  const session = useSession();
  const signOut = useMutation({
    mutationFn: () => session.call('post', '/auth/logout'),
    onSettled: () => session.forget(),
  });
  return (
    <main className="signin">
      <div className="signin-card enrol-required">
        <p className="brand brand-large">Cowrie</p>
        <h1>Two-step sign-in is required</h1>
        <p className="hint">Owners and admins of this workspace sign in with a second factor. Set it up to open the dashboard.</p>
        <TotpEnrolment onEnrolled={() => session.enrolled()} />
        <Button onClick={() => signOut.mutate()} busy={signOut.isPending} busyLabel="Signing out…">
          Sign out
        </Button>
      </div>
    </main>
  );
}
