import { Redirect, Route, Switch, useLocation } from 'wouter';
import { Layout } from './Layout';
import { ApiKeys } from './pages/ApiKeys';
import { Audit } from './pages/Audit';
import { ChoosePassword } from './pages/ChoosePassword';
import { Deposits } from './pages/Deposits';
import { EnrolSecondFactor } from './pages/EnrolSecondFactor';
import { Home } from './pages/Home';
import { PayoutRequests } from './pages/PayoutRequests';
import { Payouts } from './pages/Payouts';
import { Security } from './pages/Security';
import { ForgotPassword, SetPasswordWithLink } from './pages/SetPassword';
import { SignIn } from './pages/SignIn';
import { Team } from './pages/Team';
import { Transactions } from './pages/Transactions';
import { Verifications } from './pages/Verifications';
import { Webhooks } from './pages/Webhooks';
import { useSession } from './session';
import { PageHeader } from './ui';

export function App() {
  const { token, joining, passwordChangeRequired, mfaEnrolmentRequired } = useSession();
  const [location] = useLocation();
  // The pages an emailed link opens, signed in or not (the link speaks for the user).
  if (location === '/reset-password') return <SetPasswordWithLink purpose="reset" />;
  if (location === '/accept-invitation') return <SetPasswordWithLink purpose="invitation" />;
  // A new tab asking the signed-in tabs for their session: a moment with nothing to show.
  if (!token && joining)
    return (
      <p className="muted" role="status">
        Opening…
      </p>
    );
  if (!token) return location === '/forgot-password' ? <ForgotPassword /> : <SignIn />;
  if (passwordChangeRequired) return <ChoosePassword />;
  if (mfaEnrolmentRequired) return <EnrolSecondFactor />;
  return (
    <Layout>
      <Switch>
        <Route path="/" component={Home} />
        <Route path="/transactions" component={Transactions} />
        <Route path="/payouts" component={Payouts} />
        <Route path="/payout-requests" component={PayoutRequests} />
        <Route path="/deposits" component={Deposits} />
        <Route path="/verifications" component={Verifications} />
        <Route path="/api-keys" component={ApiKeys} />
        <Route path="/webhooks" component={Webhooks} />
        <Route path="/team" component={Team} />
        <Route path="/audit" component={Audit} />
        <Route path="/security" component={Security} />
        <Route path="/signin">
          <Redirect to="/" />
        </Route>
        <Route path="/forgot-password">
          <Redirect to="/" />
        </Route>
        <Route>
          <PageHeader title="Page not found" />
          <p>There is no such dashboard page.</p>
        </Route>
      </Switch>
    </Layout>
  );
}
