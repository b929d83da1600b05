import { ApiError, signIn, type SessionUser } from './api.js';
import { h, replaceContent } from './dom.js';
import { htmlText } from './html-text.js';

/** WordPress's login form: username or email address, password, "Remember me". */
export function showSignIn(main: HTMLElement, signedIn: (user: SessionUser) => void): void {
  document.title = 'Sign in · CMS admin';
  const error = h('div', { class: 'notice notice-error', role: 'alert', id: 'sign-in-error', hidden: true });
  const username = h('input', { id: 'user_login', name: 'username', type: 'text', autocomplete: 'username', required: true, autocapitalize: 'off', spellcheck: 'false' });
  const password = h('input', { id: 'user_pass', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const remember = h('input', { id: 'rememberme', name: 'remember', type: 'checkbox' });
  const submit = h('button', { type: 'submit', class: 'button button-primary' }, 'Sign in');
  const form = h(
    'form',
    { class: 'sign-in card', novalidate: true },
    h('h1', {}, 'Sign in'),
    error,
    h('p', {}, h('label', { for: 'user_login' }, 'Username or Email Address'), username),
    h('p', {}, h('label', { for: 'user_pass' }, 'Password'), password),
    h('p', { class: 'remember' }, remember, h('label', { for: 'rememberme' }, 'Remember me')),
    h('p', {}, submit),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!username.value || !password.value) {
      error.textContent = 'Enter your username or email address and your password.';
      error.hidden = false;
      return;
    }
    submit.disabled = true;
    try {
      signedIn(await signIn(username.value.trim(), password.value, remember.checked));
    } catch (failure) {
      // The service's own message says which of the two was wrong, or how long to wait.
      error.textContent = failure instanceof ApiError ? messageOf(failure, username.value.trim()) : 'The sign-in could not be sent. Try again.';
      error.hidden = false;
      password.value = '';
      password.focus();
    } finally {
      submit.disabled = false;
    }
  });
  replaceContent(main, form);
  username.focus();
}

/** wp-login.php's wording for each of the service's codes (the API's own texts are for HTTP Basic). */
function messageOf(error: ApiError, login: string): string {
  switch (error.code) {
    case 'invalid_username':
      return `The username ${login} is not registered on this site. If you are unsure of your username, try your email address instead.`;
    case 'invalid_email':
      return 'Unknown email address. Check again or try your username.';
    case 'incorrect_password':
      return `The password you entered for ${login.includes('@') ? 'the email address' : 'the username'} ${login} is incorrect.`;
    case 'too_many_login_attempts': {
      const wait = Number(error.data.retry_after);
      return `Too many failed sign-ins. ${wait > 0 ? `Try again in ${Math.ceil(wait / 60)} minute${wait > 60 ? 's' : ''}.` : 'Try again later.'}`;
    }
    default:
      return htmlText(error.message);
  }
}
