// Entry point of the browser app `attractor serve` answers GET / with: sign in when the server asks
// for its token, then the runs list, or one run's page (?run=ID).
import { sessionState } from '../host/protocol/serve-schemas';
import { showRunPage } from './run-page';
import { showRunsPage } from './runs-page';
import { describeFailure, json } from './server-api';
import { showSignIn } from './sign-in';
import './web.css';

function open(): void {
  json(sessionState, 'GET', 'session').then(
    ({ signedIn }) => {
      if (!signedIn) return showSignIn(document.body, open);
      const runId = new URLSearchParams(window.location.search).get('run');
      if (runId) showRunPage(document.body, runId);
      else showRunsPage(document.body);
    },
    (error: unknown) => (document.body.textContent = `This server did not answer: ${describeFailure(error)}`),
  );
}

open();
