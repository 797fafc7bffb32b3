// HTTP helpers of the dashboard: every request goes to the dynatwin server that served the page.

// Under --auth verify the server prints a link ending in #token=<token>: the part after '#' never
// leaves the browser. The token is kept in this tab's sessionStorage (per origin, so no other port's
// page reads it), taken out of the address bar, and sent as a header on every fetch; no cookie, so
// no other page can make the browser send it.
const TOKEN_KEY = 'dynatwin-inspection-token';
const token = takeToken();

function takeToken() {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const fromLink = params.get('token');
  if (fromLink) {
    try {
      sessionStorage.setItem(TOKEN_KEY, fromLink);
    } catch {
      // Storage refused (a private mode): the token still serves this page.
    }
    params.delete('token');
    const rest = params.toString();
    history.replaceState(null, '', window.location.pathname + window.location.search + (rest === '' ? '' : '#' + rest));
    return fromLink;
  }
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

/** An answer that was not 2xx: `status` and the server's `{"error": ...}` text. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** GET a JSON document; throws ApiError for a non-2xx answer. */
export async function getJson(path, params) {
  const url = new URL(path, window.location.origin);
  if (params !== undefined) {
    for (const [name, value] of Object.entries(params)) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
  }
  const headers = { Accept: 'application/json' };
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(url, { cache: 'no-store', headers });
  const text = await response.text();
  let body;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const message =
      response.status === 403 && body !== undefined && typeof body.__type === 'string'
        ? 'this dynatwin runs with --auth verify: open the dashboard link it printed at start-up (…/dynatwin/#token=…)'
        : body !== undefined && typeof body.error === 'string'
          ? body.error
          : `HTTP ${response.status}`;
    throw new ApiError(response.status, message);
  }
  return body;
}

export function tablePath(table) {
  return '/dynatwin/tables/' + encodeURIComponent(table);
}
