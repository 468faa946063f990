// The sign-in of a server with a token: the token is asked for once and traded for an HttpOnly
// session cookie (POST /session); the page never keeps it.
import { sessionState } from '../host/protocol/serve-schemas';
import { el } from './dom';
import { describeFailure, json } from './server-api';

export function showSignIn(container: HTMLElement, signedIn: () => void): void {
  const field = el('input', { type: 'password', id: 'token', name: 'token', autocomplete: 'current-password', required: true, spellcheck: 'false' });
  const status = el('p', { class: 'sign-in-status', role: 'status' });
  const form = el('form', { class: 'sign-in', 'aria-labelledby': 'sign-in-title' }, [
    el('h1', { id: 'sign-in-title' }, ['Sign in to this Attractor server']),
    el('p', { class: 'muted' }, ['The server asks for its token (the one its --token-file holds) once; the browser then keeps a session cookie, not the token.']),
    el('label', { for: 'token' }, ['Token']),
    field,
    el('button', { type: 'submit' }, ['Sign in']),
    status,
  ]);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    status.textContent = 'Signing in…';
    json(sessionState, 'POST', 'session', { token: field.value }).then(
      () => {
        field.value = '';
        signedIn();
      },
      (error: unknown) => {
        status.textContent = `Not signed in: ${describeFailure(error)}`;
        field.select();
      },
    );
  });
  container.replaceChildren(el('main', { class: 'web-page' }, [form]));
  field.focus();
}
